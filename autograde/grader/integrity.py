"""Can the grading environment be trusted? A private attnkit, and the tamper checks.

* :func:`pristine` loads attnkit's contract modules afresh from their files under a private
  name, so the grader's verify, points and tolerances cannot be patched from the notebook (in
  a kernel forked from the grading template, the copy the template loaded before any student's
  code existed: :func:`preload`);
* :func:`tampering` lists (in Chinese) what the notebook changed that grading relies on:
  numpy's and math's callables, the builtins, ``sys.setprofile``, the names ``np``,
  ``attnkit``, ``verify``, ``lab``, every function, class and constant of the live attnkit
  modules (compared with the fresh load), and how IPython prints a float (nbgrader reads
  the score from that text). An empty list means grading may go on.
"""
import builtins
import importlib
import math
import os
import sys
import types

import numpy as np

__all__ = ["PRISTINE", "attnkit_dir", "preload", "pristine", "tampering"]

PRISTINE = ("errors", "masks", "attention", "lab", "verify", "gradecell", "record")
_ALIAS = "_attn_grader_pristine_attnkit"
_NUMPY_NAMES = ("zeros", "ones", "full", "array", "asarray", "eye", "all", "any", "exp", "max",
                "sum", "triu_indices", "float32", "float64", "integer", "ndarray", "add", "where")
_MATH_NAMES = ("exp", "fsum", "isfinite", "sqrt")
_BUILTINS = ("BaseException", "KeyboardInterrupt", "abs", "all", "bool", "enumerate", "float", "getattr",
             "int", "isinstance", "len", "list", "map", "max", "print", "range", "set", "sorted", "str",
             "sum", "tuple", "type", "vars", "zip")
_GENUINE_BUILTINS = {name: getattr(builtins, name) for name in _BUILTINS}  # as they were when the grader loaded


def attnkit_dir() -> str:
    """The folder of the attnkit package the kernel imported."""
    return os.path.dirname(os.path.abspath(sys.modules["attnkit"].__file__))


def pristine() -> dict:
    """``{name: module}`` for :data:`PRISTINE`: the copy :func:`preload` made before any student's code ran in
    this process, else loaded afresh from attnkit's files now (never the live modules)."""
    preloaded = getattr(sys.modules.get(_ALIAS), "PRELOADED", None)
    if isinstance(preloaded, dict):
        return dict(preloaded)
    return _load()


def preload() -> None:
    """Load the private copy once, for every later :func:`pristine` in this process and its forks.

    Only for a process no student's code has run in: the grading kernels' template, which forks one kernel
    per student (``coursekit.sandbox.template``). Each test cell then skips building the copy again (its
    dataclasses alone were ≈ 4 ms a cell). Nothing of it is importable by name.
    """
    modules = _load()
    holder = types.ModuleType(_ALIAS)  # no __path__: `import <alias>.verify` finds nothing
    holder.PRELOADED = modules
    sys.modules[_ALIAS] = holder


def _load() -> dict:
    package = types.ModuleType(_ALIAS)
    package.__path__ = [attnkit_dir()]
    sys.modules[_ALIAS] = package
    try:
        return {name: importlib.import_module(f"{_ALIAS}.{name}") for name in PRISTINE}
    finally:
        for key in [k for k in sys.modules if k == _ALIAS or k.startswith(_ALIAS + ".")]:
            del sys.modules[key]


def tampering(namespace: dict, fresh: dict) -> list:
    """Reasons why grading cannot be trusted (Chinese); empty when the environment is clean."""
    return (_names(namespace) + _numpy() + _builtins() + _attnkit(namespace, fresh) + _display())


def _names(ns: dict) -> list:
    problems = [f"名字 {name} 不再指向模块 {module}" for name, module in (("np", "numpy"), ("attnkit", "attnkit"))
                if name in ns and ns[name] is not sys.modules.get(module)]
    if sys.modules.get("numpy") is not np:
        problems.append("sys.modules['numpy'] 被替换")
    return problems


def _genuine(obj, name: str, module: str, folder: str) -> bool:
    if getattr(obj, "__name__", None) != name or not str(getattr(obj, "__module__", "")).startswith(module):
        return False
    # a Python function must come from numpy's own files (C and Cython callables cannot be faked in a cell)
    return not isinstance(obj, types.FunctionType) or obj.__code__.co_filename.startswith(folder)


def _numpy() -> list:
    folder = os.path.dirname(os.path.abspath(np.__file__))
    problems = [f"numpy.{n}" for n in _NUMPY_NAMES if not _genuine(getattr(np, n, None), n, "numpy", folder)]
    if not _genuine(getattr(np.random, "default_rng", None), "default_rng", "numpy", folder):
        problems.append("numpy.random.default_rng")
    return [f"{p} 被替换" for p in problems]


def _genuine_builtin(obj, name: str) -> bool:
    if isinstance(obj, type):
        return obj.__module__ == "builtins" and obj.__name__ == name
    return getattr(obj, "__self__", None) is builtins and getattr(obj, "__name__", None) == name


def _builtins() -> list:
    problems = [f"内置函数 {name} 被替换" for name, obj in _GENUINE_BUILTINS.items()
                if obj is not getattr(builtins, name, None) or not _genuine_builtin(obj, name)]
    problems += [f"math.{n} 被替换" for n in _MATH_NAMES if getattr(getattr(math, n, None), "__self__", None) is not math]
    problems += [f"sys.{name} 被替换" for name in ("setprofile", "getprofile")
                 if getattr(getattr(sys, name, None), "__self__", None) is not sys]
    return problems


def _attnkit(ns: dict, fresh: dict) -> list:
    problems = []
    for name, module in fresh.items():
        live = sys.modules.get(f"attnkit.{name}")
        if live is None:
            problems.append(f"attnkit.{name} 被替换")
            continue
        problems += [f"attnkit.{name}.{attr} 被改动" for attr, value in vars(module).items()
                     if not attr.startswith("__") and not _same(value, getattr(live, attr, None))]
    for attr in ("verify", "lab"):  # submodules the notebook uses by name
        live = sys.modules.get(f"attnkit.{attr}")
        if getattr(sys.modules.get("attnkit"), attr, None) is not live or ns.get(attr, live) is not live:
            problems.append(f"名字 {attr} 不再指向 attnkit.{attr}")
    return problems


def _same(fresh, live) -> bool:
    """Does the live attnkit object still do what the file says?"""
    if fresh is live:
        return True
    if isinstance(fresh, types.FunctionType):
        return isinstance(live, types.FunctionType) and _same_code(fresh.__code__, live.__code__)
    if isinstance(fresh, type):
        return isinstance(live, type) and all(
            _same(value, vars(live).get(attr)) for attr, value in vars(fresh).items()
            if isinstance(value, (types.FunctionType, property, staticmethod, classmethod)))
    if isinstance(fresh, property):
        return isinstance(live, property) and _same(fresh.fget, live.fget)
    if isinstance(fresh, (staticmethod, classmethod)):
        return type(live) is type(fresh) and _same(fresh.__func__, live.__func__)
    if isinstance(fresh, types.ModuleType):
        return live is sys.modules.get(fresh.__name__.replace(_ALIAS, "attnkit"))
    if isinstance(fresh, tuple):
        return isinstance(live, tuple) and len(fresh) == len(live) and all(map(_same, fresh, live))
    if isinstance(fresh, dict):
        return isinstance(live, dict) and fresh.keys() == live.keys() and all(_same(v, live[k]) for k, v in fresh.items())
    if isinstance(fresh, (int, float, str, bool)):
        return type(fresh) is type(live) and fresh == live
    return True  # other runtime objects (dataclass instances, sentinels): not behaviour


def _same_code(a, b) -> bool:
    if (a.co_code, a.co_names, a.co_filename, a.co_name) != (b.co_code, b.co_names, b.co_filename, b.co_name):
        return False
    return len(a.co_consts) == len(b.co_consts) and all(
        _same_code(x, y) if isinstance(x, types.CodeType) else (type(x) is type(y) and x == y)
        for x, y in zip(a.co_consts, b.co_consts))


def _display() -> list:
    """nbgrader reads the score from the text/plain repr: it must print a float as itself."""
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    shell = get_ipython()
    if shell is None:
        return []
    plain = shell.display_formatter.formatters["text/plain"]
    plain.type_printers.pop(float, None)
    plain.deferred_printers.pop(("builtins", "float"), None)
    plain.float_precision = ""
    return [] if plain(0.8125) == "0.8125" else ["浮点数的显示方式被改动"]

"""The delegation probe: does a student function hand its work to attnkit's reference code?

The grader (a process of its own, which runs no student code) calls the student's functions in
the student's kernel; each call goes through :func:`guarded_call` there (the course names it as the
kernel's call hook, ``c.GradingKernelManager.call_hook``). Only in the student's own process can
the calls a function makes be seen, so this is the one part of grading that runs there; what it
finds travels back with the call's result. While a student function runs under :class:`Guard`:

* ``sys.setprofile`` (the calling thread) and ``threading.setprofile`` (every thread it
  starts with ``threading`` or ``concurrent.futures``) see each Python call: a frame of
  attnkit's reference code is delegation, and so is a C call that starts a process
  (``fork``, ``exec``, ``posix_spawn``, subprocess' ``fork_exec``);
* every reference function of the live attnkit runs a stub instead of its code: the stub
  records the call and raises. That reaches what the profiler cannot: a thread that existed
  before the call (a thread pool made in an earlier cell), one started with ``_thread``, a
  function found through ``gc`` or ``inspect``, a child made by ``fork``;
* ``ATTNKIT_GRADING_CALL`` is set, so a child process that imports attnkit fails.

Everything is restored when the student function returns or raises. What stays out of
reach is listed in autograde/README.md ("Integrity"): above all, code the student ran before the
call can change this module itself, which is their own process.

What the probe finds travels as codes, not sentences (``reference:softmax``, ``process:fork``,
``memory:2 GB`` …): the grader, which knows the notebook's language, says them in it
(:func:`describe`). A code it does not know (the kernel is the student's process) is shown as sent.
"""
import contextlib
import errno
import functools
import os
import sys
import threading
import types

from coursekit.environ import SANDBOX_MEMORY

from .language import WORDS, marked, resolve
from .safecall import describe_exception, observe

__all__ = ["Guard", "REFERENCE_FREE", "STUB_GLOBAL", "describe", "guarded_call", "limit_hit"]

SAFE_FILES = {"masks.py", "errors.py", "safecall.py", "guard.py"}  # the mask, the error type, the timeout record, this probe: tools, not answers
ALLOWED_LAB = {"scores_inputs_ok", "mask_inputs_ok", "softmax_inputs_ok", "_arrays"}  # the given input checks
STUB_GLOBAL = "_attn_grader_delegated"  # set in attnkit's module globals while a stub may run
REFERENCE_FREE = "ATTNKIT_GRADING_CALL"  # attnkit refuses to import in a child process while set
_SPAWNERS = tuple(f for f in (getattr(os, n, None) for n in (
    "fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "execv", "execve", "execvp", "execvpe"))
    if f is not None)


def _fork_exec():
    with contextlib.suppress(ImportError):
        import _posixsubprocess
        return (_posixsubprocess.fork_exec,)
    return ()


# What the probe's codes say (messages guard.*): delegation (reference, process, probe_off), the sandbox's limits
# (memory, processes, file_size, disk, open_files); and the stub's error in the student's kernel (guard.stub).
_SAID = {"reference": marked("guard.reference"), "process": marked("guard.process"), "memory": marked("guard.memory"),
         "probe_off": marked("guard.probe_off"), "processes": marked("guard.processes"),
         "file_size": marked("guard.file_size"), "disk": marked("guard.disk"), "open_files": marked("guard.open_files")}
_LIMITS = {errno.EAGAIN: "processes", errno.EFBIG: "file_size", errno.ENOSPC: "disk", errno.EMFILE: "open_files"}
_PLAIN = ("probe_off", *_LIMITS.values())  # codes without a detail


def limit_hit(exc: BaseException) -> str:
    """Which of the sandbox's limits ``exc`` means, as a code (``memory:2 GB``, ``processes`` …); "" for an
    ordinary error."""
    if isinstance(exc, MemoryError):
        size = os.environ.get(SANDBOX_MEMORY)
        return f"memory:{size}" if size else "memory"
    return _LIMITS.get(getattr(exc, "errno", None), "")


def describe(code: str, lang: str) -> str:
    """A code of the probe (``reference:softmax``, ``process:fork``, ``probe_off``, ``memory:2 GB`` …) in ``lang``;
    one it does not know as it came."""
    kind, _, detail = str(code).partition(":")
    if kind == "memory":
        return WORDS.say(lang, _SAID[kind], detail=detail or WORDS.say(lang, "guard.memory_limit"))
    if kind in ("reference", "process") and detail:
        return WORDS.say(lang, _SAID[kind], detail=detail)
    if kind in _PLAIN and not detail:
        return WORDS.say(lang, _SAID[kind])
    return str(code)[:120]


_NAME = "<the function's name>"
_STUB = next(c for c in compile(f"def stub(*args, **kwargs):\n    raise {STUB_GLOBAL}({_NAME!r})\n",
                                "<grader stub>", "exec").co_consts if isinstance(c, types.CodeType))


@functools.lru_cache(maxsize=None)
def _stub_code(qualname: str) -> types.CodeType:
    """The stub's code raising ``STUB_GLOBAL(qualname)``: one compiled stub, its name constant swapped (a compile per
    reference function cost about 5 ms per test cell), made once per name (code objects are immutable; made anew for
    each of a cell's hundreds of calls, they were half of what grading a row of the mistake table cost)."""
    return _STUB.replace(co_consts=tuple(qualname if c == _NAME else c for c in _STUB.co_consts))


@functools.lru_cache(maxsize=None)
def _module_names(attnkit_dir: str) -> tuple:
    """The names of attnkit's modules, from its folder (read once): looked up one by one in ``sys.modules``, not found
    by walking it, whose thousands of entries (torch, jupyter) made each call's probe cost a millisecond."""
    return tuple(f"attnkit.{name[:-3]}" for name in sorted(os.listdir(attnkit_dir))
                 if name.endswith(".py") and name != "__init__.py")


def guarded_call(fn, args: tuple, watch=None) -> dict:
    """``fn(*args)`` under the probe, quietly: what the grader needs to know of the call, as plain data.

    ``returned`` or ``error`` (type and first line) with its ``ename`` and ``errno``; ``rebound``: whether
    ``args[watch]`` was rebound; ``forbidden``: the reference code or processes it reached; ``limit``: the
    sandbox's limit it ran into. A KeyboardInterrupt (the grading timeout) goes on up.
    """
    guard = Guard(os.path.dirname(os.path.abspath(__file__)))
    with guard.watching():
        returned, error, rebound = observe(fn, args, watch)
    outcome = {"returned": returned, "rebound": rebound, "forbidden": sorted(guard.forbidden)}
    if error is not None:
        outcome.update(error=describe_exception(error), ename=type(error).__name__,
                       errno=getattr(error, "errno", None), limit=limit_hit(error))
    return outcome


class Guard:
    """The probe around one call; ``forbidden`` collects what the function reached (codes: :func:`describe`)."""

    def __init__(self, attnkit_dir: str):
        self.attnkit_dir = attnkit_dir
        self.forbidden: set = set()
        # the stub's words: read now, since a call into attnkit while profiled is delegation
        self.stub_words = WORDS.template(resolve(), "guard.stub")
        self.hook = self._hook  # one bound method, so that "is the probe still installed?" can compare it
        self.spawners = _SPAWNERS + _fork_exec()
        self.stubs = self._stubs()

    # ---------- what counts as reference code ----------

    def is_reference(self, code) -> bool:
        folder, name = os.path.split(code.co_filename)
        if folder != self.attnkit_dir or name in SAFE_FILES:
            return False
        return not (name == "lab.py" and code.co_qualname.split(".")[0] in ALLOWED_LAB)

    def _reference_functions(self):
        """Every plain function (and method) defined in the live attnkit's reference modules."""
        for module in filter(None, map(sys.modules.get, _module_names(self.attnkit_dir))):
            owners = [module] + [c for c in vars(module).values()
                                 if isinstance(c, type) and c.__module__ == module.__name__]
            for owner in owners:
                for fn in list(vars(owner).values()):
                    if (isinstance(fn, types.FunctionType) and fn.__closure__ is None
                            and fn.__module__ == module.__name__ and self.is_reference(fn.__code__)):
                        yield module, fn

    def _stubs(self) -> list:
        """``(module, function, original code, stub code)`` for every reference function."""
        return [(module, fn, fn.__code__, _stub_code(fn.__qualname__)) for module, fn in self._reference_functions()]

    # ---------- the probe ----------

    def _record(self, name: str) -> RuntimeError:
        self.forbidden.add(f"reference:{name}")
        return RuntimeError(self.stub_words.format(detail=name))  # the student's kernel: its edition's words

    def _hook(self, frame, event, arg):
        if event == "call" and self.is_reference(frame.f_code):
            self.forbidden.add(f"reference:{os.path.basename(frame.f_code.co_filename)[:-3]}.{frame.f_code.co_qualname}")
        elif event == "c_call" and any(arg is f for f in self.spawners):
            self.forbidden.add(f"process:{getattr(arg, '__name__', arg)}")

    @contextlib.contextmanager
    def watching(self):
        """Profile this thread and new threads, stub the reference, block attnkit in child processes."""
        previous, previous_threads = sys.getprofile(), threading.getprofile()
        modules = {module for module, *_ in self.stubs}
        for module in modules:
            vars(module)[STUB_GLOBAL] = self._record
        for _, fn, _, stub in self.stubs:
            fn.__code__ = stub
        os.environ[REFERENCE_FREE] = "1"
        threading.setprofile(self.hook)
        sys.setprofile(self.hook)
        try:
            yield
        finally:
            if sys.getprofile() is not self.hook:
                self.forbidden.add("probe_off")
            sys.setprofile(previous)
            threading.setprofile(previous_threads)
            os.environ.pop(REFERENCE_FREE, None)
            for _, fn, code, _ in self.stubs:
                fn.__code__ = code
            for module in modules:
                vars(module).pop(STUB_GLOBAL, None)


"""Does nothing one student's forked kernel does reach the template, or the next student forked from it?

Two kernels of one grading process, as two students of one ``make grade`` worker: both cell runners
(coursekit.sandbox.cells) forked from the same pre-imported template (coursekit.sandbox.template),
driven by nbclient as nbgrader drives them. The first patches what every
kernel shares by import — numpy, builtins, attnkit, the diagnosis memo, a module of its own in
``sys.modules`` — and leaves a file in its /tmp and home. The second must see none of it; the template must still be the same process, still serving.
"""
import copy
import json
import os
import pathlib
import shutil

import nbformat
import pytest
from nbgrader.preprocessors import Execute
from traitlets.config.loader import PyFileConfigLoader

from coursekit.paths import COURSE
from coursekit.kernel import GradingKernelManager
from coursekit.sandbox import forkserver, missing_tool

POISON = r"""
import builtins, os, sys, types, numpy, attnkit, attnkit.diagnose, attnkit.lab
numpy.exp = lambda x: 0 * x
numpy.random.seed(1234)
builtins.planted_by_student = True  # a new builtin every later name lookup would find
attnkit.lab.softmax = None
attnkit.POISONED = True
attnkit.lab.TOLERANCE["float64"] = 1.0
sys.modules["attnkit.diagnose"]._MEMO["planted"] = ((), ["a finding from the last student"])
sys.modules["grader_helpers"] = types.ModuleType("grader_helpers")
get_ipython().planted_by_student = True  # the shell itself: a runner's is built once, in the template
get_ipython().user_ns["_dh"].append("/elsewhere")
open("/tmp/left-behind.txt", "w").write("x")
open(os.path.expanduser("~/left-behind.txt"), "w").write("x")
print("poisoned")
"""

LOOK = r"""
import builtins, gc, json, os, sys, numpy, attnkit, attnkit.diagnose, attnkit.lab
print(json.dumps({
    "tolerance": attnkit.lab.TOLERANCE, "grader": sorted(m for m in sys.modules if m.split(".")[0] in ("grader", "checks")),
    "frozen": gc.get_freeze_count() > 0,
    "exp(0)": float(numpy.exp(0.0)), "builtin": hasattr(builtins, "planted_by_student"),
    "softmax": attnkit.lab.softmax is not None,
    "poisoned": hasattr(attnkit, "POISONED"), "memo": sorted(map(str, sys.modules["attnkit.diagnose"]._MEMO)),
    "module": "grader_helpers" in sys.modules,
    "files": os.path.exists("/tmp/left-behind.txt") or os.path.exists(os.path.expanduser("~/left-behind.txt")),
    "random": numpy.random.get_state()[1][:3].tolist(),
    "shell": hasattr(get_ipython(), "planted_by_student"), "folders": [str(f) for f in get_ipython().user_ns["_dh"]],
}))
"""

FIGURE = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"

# In the kernel: is there bytecode for each file of a folder (the grader's, attnkit's), made from the file as it is now?
BYTECODE = r"""
import importlib.util, json, os, pathlib, struct
import attnkit
found = {}
for source in sorted(pathlib.Path(attnkit.__file__).parent.glob("*.py")):
    try:
        header = pathlib.Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
    except OSError:
        found[source.name] = "missing"
        continue
    stat = source.stat()
    fresh = header[:4] == importlib.util.MAGIC_NUMBER and struct.unpack("<III", header[4:]) == (
        0, int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)
    found[source.name] = "fresh" if fresh else "stale"
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def config():
    if missing_tool():
        if os.environ.get("CI") == "true":
            pytest.fail(missing_tool())
        pytest.skip(missing_tool())
    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()
    assert GradingKernelManager(config=loaded).sandbox  # else each test here would quietly test unsandboxed kernels
    return loaded


def _executed(source: str, config, folder):
    """The cell ``source`` run by a forked, sandboxed kernel, as nbgrader's Execute runs it."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    Execute(config=config).preprocess(nb, {"metadata": {"path": str(folder)}})
    return nb.cells[0]


def _run(source: str, config, folder) -> str:
    """What the cell printed."""
    return "".join(o.get("text", "") for o in _executed(source, config, folder).outputs)


def test_does_one_students_patching_never_reach_the_next(config, tmp_path):
    """numpy, builtins, attnkit, sys.modules, files: all as the template imported them, for the second student?"""
    assert _run(LOOK, config, tmp_path).strip()  # a first kernel: the template is running
    template = forkserver._templates["current"][1]
    before = json.loads(_run(LOOK, config, tmp_path))
    assert _run(POISON, config, tmp_path).strip() == "poisoned"
    after = json.loads(_run(LOOK, config, tmp_path))
    assert forkserver._templates["current"][1] is template and template.alive()  # the same template served all
    assert after == before
    assert after["exp(0)"] == 1.0 and not after["builtin"] and after["softmax"] and not after["poisoned"]
    assert after["memo"] == [] and not after["module"] and not after["files"]
    assert after["tolerance"] == {"float32": 1e-4, "float64": 1e-9}
    assert not after["shell"] and len(after["folders"]) == 1  # the shell as built, its directory history its own


def test_does_each_kernel_start_frozen_and_without_the_grader(config, tmp_path):
    """The template froze its objects for the collector (a kernel's collections no longer walk, and so copy, the
    template's pages), and the grader is in no kernel's memory: it lives in the grader process only?"""
    seen = json.loads(_run(LOOK, config, tmp_path))
    assert seen["frozen"] and seen["grader"] == []


def test_is_the_graders_bytecode_made_outside_the_sandbox(config, tmp_path):
    """The grader process loads the grader from files it sees read-only: compiled for it, before it starts?"""
    import importlib.util

    grader = tmp_path / "course" / "grader"
    shutil.copytree(COURSE / "grader", grader, ignore=shutil.ignore_patterns("__pycache__"))
    (grader / "checks.py").write_text((grader / "checks.py").read_text() + "\n# changed since\n")
    own = copy.deepcopy(config)
    own.CourseKit.assignments = {**config.CourseKit.assignments, "lab01": {"grader": str(grader / "__init__.py")}}
    (tmp_path / "lab01").mkdir()
    _run("1", own, tmp_path / "lab01")
    for source in grader.glob("*.py"):
        compiled = pathlib.Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
        assert compiled[8:12] == int(source.stat().st_mtime).to_bytes(4, "little"), source.name


def test_does_the_kernel_find_bytecode_for_attnkit(config, tmp_path):
    """attnkit's folder is read-only in the sandbox: its .pyc files are written outside, current ones?"""
    import attnkit

    changed = pathlib.Path(attnkit.__file__).parent / "masks.py"
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # its .pyc, if any, is stale now
    found = json.loads(_run(BYTECODE, config, tmp_path))
    assert found and set(found.values()) == {"fresh"}, found


def test_does_a_students_own_figure_show_as_in_a_fresh_kernel(config, tmp_path):
    """The template imported pyplot with Agg; a forked kernel still shows plt's figure inline, as ipykernel does?"""
    [figure] = _executed(FIGURE, config, tmp_path).outputs
    assert figure.output_type == "display_data" and figure.data["image/png"]
    assert figure.data["text/plain"] == "<Figure size 640x480 with 1 Axes>"

"""Does nothing one student's forked kernel does reach the template, or the next student forked from it?

Two kernels of one grading process, as two students of one ``make grade`` worker: both forked
from the same pre-imported template (coursekit.sandbox.template). The first patches what every
kernel shares by import — numpy, builtins, attnkit, the diagnosis memo, a module of its own in
``sys.modules`` — and leaves a file in its /tmp and home. The second must see none of it; the
template must still be the same process, still serving.
"""
import json
import os

import nbformat
import pytest
from nbclient import NotebookClient
from traitlets.config.loader import PyFileConfigLoader

from coursekit.paths import COURSE
from coursekit.plugins import GradingKernelManager
from coursekit.sandbox import forkserver, missing_tool

POISON = r"""
import builtins, os, sys, types, numpy, attnkit, attnkit.diagnose, attnkit.lab
numpy.exp = lambda x: 0 * x
numpy.random.seed(1234)
builtins.planted_by_student = True  # a new builtin every later name lookup would find
attnkit.lab.softmax = None
attnkit.POISONED = True
sys.modules["attnkit.diagnose"]._MEMO["planted"] = ((), ["a finding from the last student"])
sys.modules["grader_helpers"] = types.ModuleType("grader_helpers")
open("/tmp/left-behind.txt", "w").write("x")
open(os.path.expanduser("~/left-behind.txt"), "w").write("x")
print("poisoned")
"""

LOOK = r"""
import builtins, json, os, sys, numpy, attnkit, attnkit.diagnose, attnkit.lab
print(json.dumps({
    "exp(0)": float(numpy.exp(0.0)), "builtin": hasattr(builtins, "planted_by_student"),
    "softmax": attnkit.lab.softmax is not None,
    "poisoned": hasattr(attnkit, "POISONED"), "memo": sorted(map(str, sys.modules["attnkit.diagnose"]._MEMO)),
    "module": "grader_helpers" in sys.modules,
    "files": os.path.exists("/tmp/left-behind.txt") or os.path.exists(os.path.expanduser("~/left-behind.txt")),
    "random": numpy.random.get_state()[1][:3].tolist(),
}))
"""


@pytest.fixture(scope="module")
def config():
    if missing_tool():
        if os.environ.get("CI") == "true":
            pytest.fail(missing_tool())
        pytest.skip(missing_tool())
    loaded = PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()
    loaded.GradingKernelManager.fork = True
    return loaded


def _run(source: str, config, folder) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, timeout=60, kernel_name="python3", kernel_manager_class=GradingKernelManager, config=config,
                   shutdown_kernel="immediate", resources={"metadata": {"path": str(folder)}}).execute()
    return "".join(o.get("text", "") for o in nb.cells[0].outputs)


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

"""Does the cell runner (coursekit.sandbox.cells) make the outputs a real ipykernel makes under nbclient?

The same notebook of awkward cells is run twice by nbconvert's ExecutePreprocessor: with a fresh
ipykernel, and with the course's GradingKernelManager (a runner forked from a template outside the
sandbox, read through coursekit.kernel.client). Every cell's outputs must
be equal, after consecutive stream chunks are joined (how ipykernel cuts its streams depends on
timing) and pids and object addresses masked. Whole graded classes are compared with serial nbgrader in test_grading.py.
"""
import json
import re

import pytest
from nbconvert.preprocessors import ExecutePreprocessor
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from coursekit.kernel import GradingKernelManager

CELLS = [
    "print('plain'); print('中文输出')\nimport sys\nprint('to stderr', file=sys.stderr)",
    "x = 41\nx + 1",
    "import numpy as np\nnp.arange(6).reshape(2, 3) / 3",
    "from IPython.display import HTML, Markdown, display\ndisplay(HTML('<i>h</i>'), Markdown('**m**'))",
    "handle = display('first', display_id='slot')\nhandle.update('second')",
    "from IPython.display import clear_output\nprint('gone')\nclear_output(wait=True)\nprint('kept')",
    "def inner():\n    return {}['missing']\ninner()",
    "def broken(:\n    pass",
    "%precision 3\nimport math\nmath.pi",
    "!echo from the shell",
    "input('name? ')",
    "import warnings\nwarnings.warn('careful')",
    "raise SystemExit(3)",
    "class Shown:\n    def _repr_html_(self):\n        return '<b>rich</b>'\nShown()",
    "print('no newline at the end', end='')",
    # ipykernel forwards what reaches fd 1 from a thread: it is in the cell if the cell lasts a little longer
    "import os, time\nos.write(1, b'written to fd 1\\n')\ntime.sleep(1)",
    "get_ipython().__class__.__name__",
    "_ + ' again'",
    "In[1][:5], len(Out) > 0",
    "import os\nos.environ.get('MPLBACKEND')",  # ipykernel's default: matplotlib's inline backend
    "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()",
]


# what differs between any two kernels: the folder of ipykernel's cell files (named by the pid), object addresses
_VARIES = re.compile(r"ipykernel_\d+|0x[0-9a-f]+")


def joined(outputs):
    result = []
    for output in outputs:
        if result and output["output_type"] == "stream" == result[-1]["output_type"] and \
                output["name"] == result[-1]["name"]:
            result[-1] = {**result[-1], "text": result[-1]["text"] + output["text"]}
        else:
            result.append(dict(output))
    return _VARIES.sub("<varies>", json.dumps(result, sort_keys=True, ensure_ascii=False))


def run(executor, tmp_path):
    nb = new_notebook(cells=[new_code_cell(source) for source in CELLS])
    executed, _ = executor.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    return executed


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cells")
    with pytest.MonkeyPatch.context() as patch:  # ipykernel captures fds 1 and 2 unless it runs under pytest
        patch.delenv("PYTEST_CURRENT_TEST", raising=False)
        kernel = run(ExecutePreprocessor(kernel_name="python3", timeout=60, allow_errors=True), folder)
    config = Config({"GradingKernelManager": {"sandbox": False}})
    direct = run(ExecutePreprocessor(kernel_manager_class=GradingKernelManager, config=config, timeout=60,
                                     allow_errors=True), folder)
    return kernel, direct


@pytest.mark.parametrize("index", range(len(CELLS)), ids=[source.split("\n")[0][:30] for source in CELLS])
def test_are_the_outputs_of_each_cell_those_of_ipykernel(both, index):
    kernel, direct = both
    assert joined(direct.cells[index].outputs) == joined(kernel.cells[index].outputs)
    assert direct.cells[index].execution_count == kernel.cells[index].execution_count


def test_is_the_language_info_ipykernels(both):
    kernel, direct = both
    assert direct.metadata.language_info == kernel.metadata.language_info

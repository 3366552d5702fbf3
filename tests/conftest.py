"""Shared test set-up: keep Jupyter, IPython and matplotlib state inside the repo.

The Makefile exports the same variables; setting them here too keeps a bare
``.venv/bin/pytest`` from touching the user's home.
"""
import os
import pathlib
import sys

import matplotlib

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "autograde"))  # the instructor-side packages: coursekit, grader
STATE = REPO / ".state"

_STATE_DIRS = {
    "JUPYTER_CONFIG_DIR": "jupyter/config",
    "JUPYTER_DATA_DIR": "jupyter/data",
    "JUPYTER_RUNTIME_DIR": "jupyter/runtime",
    "JUPYTERLAB_SETTINGS_DIR": "jupyter/lab-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "jupyter/lab-workspaces",
    "IPYTHONDIR": "ipython",
    "MPLCONFIGDIR": "matplotlib",
}
for _var, _sub in _STATE_DIRS.items():
    os.environ.setdefault(_var, str(STATE / _sub))
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
# nbgrader's Gradebook runs `alembic` as a subprocess: the venv's scripts must be on PATH.
os.environ["PATH"] = os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ.get("PATH", "")])
# Kernels that run the master outside nbgrader (tests) find the grader as nbgrader's would.
os.environ.setdefault("ATTN_GRADER", str(REPO / "autograde" / "grader" / "__init__.py"))

matplotlib.use("Agg")

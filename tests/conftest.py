"""Shared test set-up: the two tiers, and Jupyter, IPython and matplotlib state inside the repo.

``tests/unit/`` (``make test-fast``) runs without servers, kernels or the nbgrader CLI;
``tests/integration/`` (``make test`` runs both) starts real ones. The modules run in a shuffled order
(one seed per run, printed in the header; ``TEST_SEED=<n>`` repeats it, ``TEST_SEED=0`` keeps file order),
so a module that needs another to run first fails somewhere; the modules of the long shared set-ups go first
(support/module_order.py). A test's tier is its folder:
every test under ``integration/`` is marked ``integration`` here, so ``-m "not integration"``
selects the unit tier. The Makefile exports the same state variables; setting them here too
keeps a bare ``.venv/bin/pytest`` from touching the user's home.
"""
import os
import pathlib
import random

import matplotlib
import pytest

from coursekit.gradebook import alembic_on_path
from coursekit.paths import REPO
from support import setup_clock
from support.module_order import module_order

STATE = REPO / ".state"
INTEGRATION = pathlib.Path(__file__).resolve().parent / "integration"

_STATE_DIRS = {
    "JUPYTER_CONFIG_DIR": "jupyter/config",
    "JUPYTER_DATA_DIR": "jupyter/data",
    "JUPYTER_RUNTIME_DIR": "jupyter/runtime",
    "JUPYTERLAB_SETTINGS_DIR": "jupyter/lab-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "jupyter/lab-workspaces",
    "IPYTHONDIR": "ipython",
    "MPLCONFIGDIR": "matplotlib",
    "ATTNKIT_CACHE_DIR": "attnkit-cache",  # the demo figures under grading, drawn once (attnkit.static)
}
for _var, _sub in _STATE_DIRS.items():
    os.environ.setdefault(_var, str(STATE / _sub))
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
alembic_on_path()  # gradebooks opened by the tests, and nbgrader commands they start
# One seed for the whole run: set before pytest-xdist starts its workers, which inherit it and so collect alike.
os.environ.setdefault("TEST_SEED", str(random.SystemRandom().randrange(1, 10 ** 6)))

matplotlib.use("Agg")


# Session fixtures (tests/integration/conftest.py) that many modules share and that cost minutes to make.
# Under pytest-xdist (``make test`` runs ``-n auto --dist loadgroup``) every module using one of them
# goes to the same worker, so each is made once; any other integration module keeps its tests (and
# its module fixtures) together on one worker; unit tests spread test by test.
SHARED = {"graded_classes": "graded-classes", "shared_class": "graded-classes", "serial_class": "graded-classes",
          "course_hub_plan": "hub"}
# pytest-timeout counts a fixture's set-up in the first test that asks for it: grading the classes on
# two busy cores can take longer than the 600 s every other test gets.
SHARED_SETUP_SECONDS = 1800


def pytest_report_header(config):
    seed = os.environ["TEST_SEED"]
    return f"test modules in {'file order' if seed == '0' else f'a shuffled order, shared set-ups first: TEST_SEED={seed} repeats it'}"


def _ordered_modules(items: list) -> list:
    """``items`` with their modules in this run's order (support.module_order), each module's tests in file order."""
    by_module, groups = {}, {}
    for item in items:
        path = str(item.fspath)
        by_module.setdefault(path, []).append(item)
        shared = {SHARED[name] for name in item.fixturenames if name in SHARED}
        groups[path] = groups.get(path) or (min(shared) if shared else None)
    return [item for path in module_order(groups, int(os.environ["TEST_SEED"])) for item in by_module[path]]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook, which reads the groups set here
def pytest_collection_modifyitems(config, items):
    items[:] = _ordered_modules(items)
    modules = {}
    for item in items:
        if INTEGRATION in pathlib.Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.integration)
            modules.setdefault(str(item.fspath), []).append(item)
    for path, tests in modules.items():
        shared = sorted({SHARED[name] for test in tests for name in test.fixturenames if name in SHARED})
        if len(shared) > 1:
            raise pytest.UsageError(f"{path} uses {' and '.join(shared)}: split it, so that each shared "
                                    "set-up is made by one pytest-xdist worker")
        group = shared[0] if shared else pathlib.Path(path).stem
        for test in tests:
            test.add_marker(pytest.mark.xdist_group(group))
            if shared and not test.get_closest_marker("timeout"):  # the first test also waits for the set-up
                test.add_marker(pytest.mark.timeout(SHARED_SETUP_SECONDS))


def pytest_sessionfinish(session):
    setup_clock.worker_output(session.config)  # a pytest-xdist worker's set-ups, for the controller


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, in the controller
def pytest_testnodedown(node, error):
    setup_clock.merge_worker(node.config, node)


def pytest_terminal_summary(terminalreporter, config):
    lines = setup_clock.summary_lines(config)
    if lines:
        terminalreporter.write_sep("=", "shared set-ups (tests/README.md)")
        for line in lines:
            terminalreporter.write_line(line)

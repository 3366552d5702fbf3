"""coursekit.grading.warm_execute: is the next student's kernel started ahead only where it can serve them?"""
import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool

from coursekit.grading import warm_execute
from coursekit.grading.warm_execute import WarmExecute


class _Manager(AsyncKernelManager):
    """A plain local ipykernel that says whether it counts as sandboxed (sees only its own folder)."""

    sandbox = Bool(False)


class _Sandboxed(_Manager):
    sandbox = Bool(True)


@pytest.fixture
def spares():
    yield warm_execute._SPARE
    warm_execute.shutdown_spare()


@pytest.mark.parametrize("manager, started_ahead", [(_Manager, True), (_Sandboxed, False)])
def test_is_a_kernel_started_ahead_only_for_kernels_that_see_every_folder(tmp_path, spares, manager, started_ahead):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    executed, _ = WarmExecute(kernel_manager_class=manager, kernel_name="python3").preprocess(
        nb, {"metadata": {"path": str(tmp_path)}})
    assert executed.cells[0].outputs[0].data["text/plain"] == "2"
    assert ("python3" in spares) is started_ahead

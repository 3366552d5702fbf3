"""coursekit.kernel.client: does nbgrader's own executor, driving a cell runner, do what it does with ipykernel?

The runner is forked from a template outside the sandbox (``GradingKernelManager.sandbox = False``),
so the timeout, a dead kernel, a runner that sends garbage and the output cap are seen without
bubblewrap. That the outputs equal a real ipykernel's is tests/integration/test_direct_cells.py;
that a class grades the same as serial nbgrader, tests/integration/test_grading.py.
"""
import nbformat
import pytest
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.preprocessors import Execute
from traitlets.config import Config

from coursekit.autograded import kernel_seconds
from coursekit.kernel import grade_with
from coursekit.language import WORDS

NOTE = WORDS.template("zh", "output_cap.note")

FORGE = ("import gc, socket\n[s for s in gc.get_objects() if isinstance(s, socket.socket) and s.fileno() >= 0][0]"
         ".sendall({!r})")


def run(tmp_path, *sources, cap=(-1, -1), **settings):
    """The notebook of these code cells (a markdown cell first), run by nbgrader's Execute set to grade (a runner)."""
    nb = new_notebook(cells=[new_markdown_cell("# title"), *[new_code_cell(source) for source in sources]])
    config = Config({"Execute": settings, "GradingKernelManager": {"sandbox": False, "cell_output_limit": cap[0],
                                                                   "notebook_output_limit": cap[1]}})
    grade_with(config)
    executed, _ = Execute(config=config).preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    return executed


def execute(tmp_path, *sources, **settings):
    """The code cells of :func:`run`'s notebook, as they ran."""
    return run(tmp_path, *sources, **settings).cells[1:]


def test_are_the_outputs_and_counts_those_nbclient_stores(tmp_path):
    cells = execute(tmp_path, "print('hello')\n1 + 1", "raise ValueError('no')", "")
    first, second, empty = cells
    assert [o.output_type for o in first.outputs] == ["stream", "execute_result"]
    assert first.outputs[0].text == "hello\n" and first.outputs[1].data["text/plain"] == "2"
    assert (first.execution_count, second.execution_count, empty.execution_count) == (1, 2, None)
    assert [(o.output_type, o.ename) for o in second.outputs] == [("error", "ValueError")]
    assert set(first.metadata.execution) == {"iopub.status.busy", "iopub.execute_input", "shell.execute_reply",
                                             "iopub.status.idle"}
    nbformat.validate(new_notebook(cells=cells))


def test_does_the_notebook_say_where_its_kernels_time_went(tmp_path):
    seconds = kernel_seconds(run(tmp_path, "sum(range(10 ** 6))"))
    assert seconds["kernel"] > 0 and seconds["cells"] > 0 and seconds["kernel_cpu"] > 0


def test_is_a_hung_cell_interrupted_marked_as_timed_out_and_the_next_cell_run(tmp_path):
    hung, after = execute(tmp_path, "print('before')\nwhile True:\n    pass", "'after'", timeout=2, iopub_timeout=20)
    assert [o.get("ename") for o in hung.outputs if o.output_type == "error"] == \
        ["KeyboardInterrupt", "CellTimeoutError"]  # the interrupt, then nbgrader's timeout error
    assert hung.outputs[0].text == "before\n"
    assert after.outputs[0].data["text/plain"] == "'after'"


def test_does_a_cell_that_ignores_the_interrupt_stop_the_notebook_as_nbclient_does(tmp_path):
    stubborn = ("while True:\n    try:\n        while True:\n            pass\n"
                "    except KeyboardInterrupt:\n        pass")
    with pytest.raises(CellTimeoutError, match="Timeout waiting for IOPub output"):
        execute(tmp_path, stubborn, timeout=1, iopub_timeout=1)


def test_is_a_kernel_that_exits_a_dead_kernel(tmp_path):
    with pytest.raises(DeadKernelError, match="^Kernel died$"):  # nbclient's words, which the gradebook keeps
        execute(tmp_path, "import os\nos._exit(3)", "'never'")


@pytest.mark.parametrize("forged, why", [
    (b"junk\n", "not JSON"),
    (b'{"msg_type": "stream", "content": {}}\n', "unreadable stream message"),
    (b'{"msg_type": "execute_reply", "content": {"status": "error", "ename": 1}}\n', "execute reply"),
])
def test_does_a_student_who_writes_to_the_runners_socket_only_break_their_own_notebook(tmp_path, forged, why, caplog):
    with pytest.raises(DeadKernelError, match="^Kernel died$"):  # nbclient's words, which the gradebook keeps
        execute(tmp_path, FORGE.format(forged))
    assert why in caplog.text  # what it sent, in nbgrader's log


def test_are_messages_grading_does_not_know_ignored(tmp_path):
    [cell] = execute(tmp_path, FORGE.format(b'{"msg_type": "comm_open", "content": {"x": 1}}\n') + "\n'done'")
    assert [o.output_type for o in cell.outputs] == ["execute_result"]


def test_is_a_flood_cut_in_the_client_with_the_note_at_the_end_and_the_score_kept(tmp_path):
    """300 kB of prints then a float: the cell keeps what fits, the note, and the float (a test cell's score)."""
    [cell] = execute(tmp_path, "for _ in range(3000):\n    print('x' * 100)\n0.75", cap=(20_000, 100_000))
    kinds = [o.output_type for o in cell.outputs]
    assert kinds[0] == "stream" and "execute_result" in kinds and kinds[-1] == "stream"
    assert cell.outputs[-1].text.lstrip("\n").startswith(NOTE[:20]) and "没有保存" in cell.outputs[-1].text
    assert sum(len(o.get("text", "")) for o in cell.outputs) < 20_000
    assert [o.data["text/plain"] for o in cell.outputs if o.output_type == "execute_result"] == ["0.75"]


def test_is_the_kernel_ready_as_soon_as_it_has_said_so():
    """The runner's first message already there: ready at once, without waiting on the socket again (a wait after
    it had arrived once cost every notebook a quarter of a second)?"""
    import asyncio
    import json
    import logging
    import socket

    from coursekit.kernel.client import RunnerClient
    from coursekit.kernel.output_cap import OutputCap

    class Alive:
        def poll(self):
            return None

    ours, runner = socket.socketpair()
    with ours, runner:
        client = RunnerClient(ours, Alive(), OutputCap(-1, -1), logging.getLogger(__name__))
        runner.sendall(json.dumps({"msg_type": "kernel_info", "content": {"language_info": {"name": "python"}}})
                       .encode() + b"\n")

        async def never(timeout):
            raise AssertionError("waited for the socket with the runner's message already read")

        client.wire.wait_readable = never
        asyncio.run(client.wait_for_ready(5))
        assert client.language_info == {"name": "python"}

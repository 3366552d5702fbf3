"""coursekit.sandbox.cells: does the runner send, for each cell, the messages ipykernel would publish, in order?

The runner is a plain child process here (tests/support/cell_runner.py); in grading it is a forked,
sandboxed kernel. Its outputs are compared with a real ipykernel's in tests/integration/test_direct_cells.py.
"""
import re
import signal
import time

import pytest

from coursekit.sandbox.channel import Reader
from support.cell_runner import run_cell, start_runner


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    process, sock = start_runner(tmp_path_factory.mktemp("runner"))
    reader = Reader(sock)
    first = reader.next(timeout=60)
    yield process, sock, reader, first
    sock.close()
    process.kill()
    process.wait()


def kinds(messages):
    return [kind for kind, _ in messages]


def test_does_the_runner_first_say_what_language_it_runs(runner):
    *_, first = runner
    assert first["msg_type"] == "kernel_info"
    assert first["content"]["language_info"]["name"] == "python"
    assert first["content"]["language_info"]["pygments_lexer"] == "ipython3"


def test_does_a_cell_give_its_input_outputs_result_reply_and_idle_in_order(runner):
    _, sock, reader, _ = runner
    messages = run_cell(sock, reader, "print('a'); print('b')\nfrom IPython.display import HTML, display\n"
                                      "display(HTML('<b>x</b>'))\n6 * 7")
    assert kinds(messages) == ["status", "execute_input", "stream", "display_data", "execute_result", "execute_reply",
                               "status"]
    assert messages[0][1] == {"execution_state": "busy"}
    messages = messages[1:]
    _, execute_input = messages[0]
    assert execute_input["code"].startswith("print('a')")
    assert messages[1][1] == {"name": "stdout", "text": "a\nb\n"}  # one stream message for both prints
    assert messages[2][1]["data"]["text/html"] == "<b>x</b>"
    result = messages[3][1]
    assert result["data"]["text/plain"] == "42" and result["execution_count"] == execute_input["execution_count"]
    assert messages[4][1] == {"status": "ok", "execution_count": execute_input["execution_count"]}


def test_is_an_exception_an_error_output_and_an_error_reply(runner):
    _, sock, reader, _ = runner
    messages = run_cell(sock, reader, "def f():\n    return 1 / 0\nf()")[1:]
    assert kinds(messages) == ["execute_input", "error", "execute_reply", "status"]
    error, reply = messages[1][1], messages[2][1]
    assert error["ename"] == reply["ename"] == "ZeroDivisionError" and error["evalue"] == "division by zero"
    assert error["traceback"] == reply["traceback"]
    assert "Cell In[" in re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error["traceback"]))  # IPython's cell names
    assert reply["status"] == "error"


def test_is_input_refused_as_ipykernel_refuses_it_under_nbclient(runner):
    _, sock, reader, _ = runner
    messages = run_cell(sock, reader, "input('name? ')")
    [error] = [content for kind, content in messages if kind == "error"]
    assert error["ename"] == "StdinNotImplementedError" and error["evalue"].startswith("raw_input was called")


def test_does_output_written_to_file_descriptors_become_stream_text(runner):
    _, sock, reader, _ = runner
    messages = run_cell(sock, reader, "import os, subprocess\nos.write(1, b'fd one\\n')\n"
                                      "subprocess.run(['sh', '-c', 'echo from a child; echo to stderr >&2'])\nNone")
    streams = {content["name"]: content["text"] for kind, content in messages if kind == "stream"}
    assert streams == {"stdout": "fd one\nfrom a child\n", "stderr": "to stderr\n"}
    again = run_cell(sock, reader, "os.write(1, b'next\\n')\nNone")  # what was read is not read again
    assert [content["text"] for kind, content in again if kind == "stream"] == ["next\n"]


def test_are_stdout_and_stderr_kept_apart_in_the_order_written(runner):
    _, sock, reader, _ = runner
    messages = run_cell(sock, reader, "import sys\nprint('1'); print('2', file=sys.stderr); print('3')")
    assert [(c["name"], c["text"]) for k, c in messages if k == "stream"] == \
        [("stdout", "1\n"), ("stderr", "2\n"), ("stdout", "3\n")]


def test_does_an_interrupt_end_only_the_running_cell(runner):
    process, sock, reader, _ = runner
    from coursekit.sandbox.channel import send

    send(sock, {"code": "print('started', flush=True)\nwhile True:\n    pass"})
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    messages = []
    while not messages or messages[-1] != ("status", {"execution_state": "idle"}):
        message = reader.next(10)
        assert message is not None, messages
        messages.append((message["msg_type"], message["content"]))
    assert ("stream", {"name": "stdout", "text": "started\n"}) in messages
    assert [c["ename"] for k, c in messages if k == "error"] == ["KeyboardInterrupt"]
    assert kinds(run_cell(sock, reader, "'still here'"))[-3:] == ["execute_result", "execute_reply", "status"]


def test_does_the_execution_count_go_up_by_one_per_cell(runner):
    _, sock, reader, _ = runner
    first = run_cell(sock, reader, "1")[1][1]["execution_count"]
    second = run_cell(sock, reader, "2")[1][1]["execution_count"]
    assert second == first + 1


def test_does_an_interrupt_end_the_cell_of_a_runner_whose_parent_ignored_interrupts(tmp_path):
    """exec keeps an ignored SIGINT ignored (an ipykernel application ignores it): the runner must still stop a cell."""
    from coursekit.sandbox.channel import send

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process, sock = start_runner(tmp_path)
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        reader = Reader(sock)
        assert reader.next(timeout=60)["msg_type"] == "kernel_info"
        run_cell(sock, reader, "1")  # the runner is in its loop, past its start
        send(sock, {"code": "while True:\n    pass"})
        assert reader.next(30)["msg_type"] == "status" and reader.next(30)["msg_type"] == "execute_input"
        process.send_signal(signal.SIGINT)
        messages = []
        while not messages or messages[-1] != ("status", {"execution_state": "idle"}):
            message = reader.next(30)
            assert message is not None, f"the interrupt did not end the cell; so far: {messages}"
            messages.append((message["msg_type"], message["content"]))
        [reply] = [content for kind, content in messages if kind == "execute_reply"]
        assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt"
    finally:
        sock.close()
        process.kill()
        process.wait()

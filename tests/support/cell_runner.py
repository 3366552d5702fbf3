"""A cell runner (coursekit.sandbox.cells) as a plain child process, no template, no sandbox: for its own tests.

:func:`start_runner` gives the runner's process and the worker's end of its socket.
"""
import os
import socket
import subprocess
import sys
import time


from coursekit.sandbox.channel import Reader, send

__all__ = ["start_runner", "run_cell"]

SERVE = "import socket, sys; from coursekit.sandbox.cells import serve; serve(socket.socket(fileno=int(sys.argv[1])))"


def start_runner(cwd, env=None):
    """(the Popen of a runner started in ``cwd``, the worker's socket to it)."""
    ours, theirs = socket.socketpair()
    process = subprocess.Popen([sys.executable, "-c", SERVE, str(theirs.fileno())], pass_fds=[theirs.fileno()],
                               cwd=cwd, env=env or dict(os.environ), stdin=subprocess.DEVNULL)
    theirs.close()
    return process, ours


def run_cell(sock, reader: Reader, code: str, timeout: float = 30) -> list:
    """Send one cell; the (msg_type, content) pairs the runner answers with, up to and with its idle status."""
    send(sock, {"code": code})
    messages, deadline = [], time.monotonic() + timeout
    while not messages or messages[-1] != ("status", {"execution_state": "idle"}):
        message = reader.next(max(deadline - time.monotonic(), 0))
        assert message is not None, f"no idle status within {timeout} s; so far: {messages}"
        messages.append((message["msg_type"], message["content"]))
    return messages

"""A cell runner (coursekit.sandbox.cells) as a plain child process, no sandbox: for its tests and DirectExecute's.

:func:`start_runner` gives the runner's process and the worker's end of its socket;
:class:`UnsandboxedRunnerManager` is the part of ``GradingKernelManager`` that ``DirectExecute`` uses,
with such a runner in place of a forked, sandboxed one.
"""
import os
import socket
import subprocess
import sys
import time

from jupyter_client.manager import AsyncKernelManager

from coursekit.sandbox.channel import Reader, send
from coursekit.sandbox.forkserver import ForkedKernel

__all__ = ["start_runner", "run_cell", "UnsandboxedRunnerManager"]

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


class UnsandboxedRunnerManager(AsyncKernelManager):
    """What DirectExecute asks of its kernel manager, with a runner that is a plain child process."""

    def runs_cells_directly(self) -> bool:
        return True

    async def start_cell_runner(self, submission, env, timeout=30):
        self._popen, sock = start_runner(submission, env)
        return ForkedKernel(self._popen.pid), sock

    def stop_cell_runner(self) -> None:
        self._popen.kill()
        self._popen.wait()

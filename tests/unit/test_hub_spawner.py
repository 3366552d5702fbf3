"""Does the course's spawner hand a server to JupyterHub as soon as it listens, and never wait for one that
cannot come (autograde/hub/spawner.py)?

A stand-in for JupyterHub's local-process spawner: its ``start`` returns a port at once, as Popen does, and a
listener opens on that port a moment later (or the process ends first); JupyterHub's own ask then finds it up.
"""
import asyncio
import socket
import time

import pytest

from hub import spawner


class _Started:
    """What LocalProcessSpawner.start leaves: a port nothing listens on yet, a process that may end."""

    start_timeout = 0.5

    def __init__(self, listen_after=None, ends_after=None):
        self.listen_after, self.ends_after, self.began = listen_after, ends_after, None
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]

    async def start(self):
        self.began = time.monotonic()
        if self.listen_after is not None:
            asyncio.get_running_loop().call_later(self.listen_after, self.socket.listen)
        return "127.0.0.1", self.port

    async def poll(self):
        ended = self.ends_after is not None and time.monotonic() - self.began >= self.ends_after
        return 1 if ended else None


class _Spawner(spawner.ListeningMixin, _Started):
    pass


def _start(**started) -> tuple:
    """(seconds start took, what it returned)."""
    server = _Spawner(**started)
    began = time.monotonic()
    try:
        returned = asyncio.run(server.start())
    finally:
        server.socket.close()
    return time.monotonic() - began, returned, server.port


@pytest.mark.parametrize("started, at_least, at_most", [
    ({"listen_after": 0.15}, 0.15, 0.15 + 4 * spawner.LOOK_SECONDS),  # seen within a look of listening
    ({"listen_after": None, "ends_after": 0.1}, 0.1, 0.1 + 4 * spawner.LOOK_SECONDS),  # a process that ended
    ({"listen_after": None}, 0.25, 0.25 + 4 * spawner.LOOK_SECONDS),  # never: half the start timeout, then the hub's
], ids=["listens", "ended", "never"])
def test_does_start_return_once_the_server_listens_or_cannot(started, at_least, at_most):
    """start returns the server's address once its port accepts (not at JupyterHub's next backoff), once its process
    ended, or after half the start timeout, leaving JupyterHub's own ask to decide?"""
    seconds, returned, port = _start(**started)
    assert returned == ("127.0.0.1", port)
    assert at_least <= seconds <= at_most, seconds

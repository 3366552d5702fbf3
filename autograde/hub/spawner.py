"""The course's spawners: JupyterHub's local-process ones, whose ``start`` returns once the server listens.

JupyterHub learns that a server it started is up by asking it over HTTP, with exponential backoff and full jitter
between the asks (``jupyterhub.utils.exponential_backoff``: waits drawn up to 0.2, 0.4, 0.8, 1.6, 3.2 s …), so a
server that needs 2.5 s to start is seen up to 3 s later (on the test hub: up at 18:51:11.69, seen at 13.79, during a
log-in). JupyterHub has no setting for those waits; its spawner API lets ``start`` return only once the server can
be reached, and then the hub's first ask succeeds at once. :class:`ListeningMixin` waits, after the process has
started, until the server's port accepts a connection (a connect on 127.0.0.1 every :data:`LOOK_SECONDS`), the
process has ended, or half the start timeout has passed, whichever comes first; from there JupyterHub goes on as
before (its own ask decides, and reports a server that never came up).
"""
import asyncio
import socket
import time

from jupyterhub.spawner import LocalProcessSpawner, SimpleLocalProcessSpawner

__all__ = ["CourseLocalProcessSpawner", "CourseSimpleSpawner", "ListeningMixin", "LOOK_SECONDS"]

LOOK_SECONDS = 0.05  # a refused connect on 127.0.0.1 costs microseconds


def accepts(ip: str, port: int) -> bool:
    """Whether something listens on ``ip:port`` (it accepts a TCP connection)."""
    try:
        with socket.create_connection((ip or "127.0.0.1", port), timeout=LOOK_SECONDS):
            return True
    except OSError:
        return False


class ListeningMixin:
    """A spawner whose ``start`` returns once the server's port accepts connections (or its process ended)."""

    async def start(self):
        ip, port = await super().start()
        deadline = time.monotonic() + self.start_timeout / 2
        while time.monotonic() < deadline and await self.poll() is None and not accepts(ip, port):
            await asyncio.sleep(LOOK_SECONDS)
        return ip, port


class CourseLocalProcessSpawner(ListeningMixin, LocalProcessSpawner):
    """Each server as its user's Unix account (``make hub`` as root)."""


class CourseSimpleSpawner(ListeningMixin, SimpleLocalProcessSpawner):
    """Every server as the one account that runs the hub (demo mode)."""

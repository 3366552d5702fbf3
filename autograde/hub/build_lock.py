"""One builder at a time for a folder the hub installs into (its user environment, its proxy).

``make hub``, a second ``make hub`` and the hub tests of several pytest workers may all find the same
folder missing at once; two installers writing one folder leave it broken. :func:`build_lock` holds an
exclusive lock on ``.<name>.lock`` beside the folder while one of them checks and installs; the others
wait, then find the work done.
"""
import contextlib
import fcntl
import pathlib

__all__ = ["build_lock"]


@contextlib.contextmanager
def build_lock(prefix):
    """Hold the lock of the folder ``prefix`` (its parent is made if missing) until the block ends."""
    prefix = pathlib.Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with open(prefix.parent / f".{prefix.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield

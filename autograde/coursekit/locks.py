"""File locks (``flock``) taken without waiting: which grading process a uid, a template's folder or the course's
service belongs to.

A ``flock`` goes with the process that holds it, so a lock nobody holds is one whose holder is gone, however
it died. :func:`take` is how a process claims a lock file, :func:`held` how it asks whether another process
still holds one; :func:`try_lock` is both on a file already open.
"""
import fcntl
import os

__all__ = ["held", "take", "try_lock"]


def try_lock(fd: int, mode: int = fcntl.LOCK_EX) -> bool:
    """Lock the open file ``fd`` (``mode``: ``LOCK_EX`` or ``LOCK_SH``) unless another process holds it: did it?"""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def take(path) -> int | None:
    """``path`` opened (made if missing) and locked exclusively: its descriptor, to close when done; None when
    another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    if try_lock(fd):
        return fd
    os.close(fd)
    return None


def held(path) -> bool:
    """Does another process hold ``path``'s lock? A file that cannot be opened is not ours to judge: held."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        return not try_lock(fd)
    finally:
        os.close(fd)  # drops the lock if it was taken here

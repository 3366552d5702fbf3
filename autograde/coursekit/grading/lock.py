"""One course, one grader at a time per student: the lock ``make grade`` and the grading service share.

Two ``flock`` files in the course folder (``flock`` locks die with their process, so a killed
grader never leaves the course locked):

* ``.grading.lock`` — held *shared* by each job of the grading service (several students at
  once) and *exclusively* by ``make grade`` and ``python -m coursekit.service pause``;
* ``.grading.gate`` — taken first by an exclusive holder and checked by the service before
  each new job, so a waiting ``make grade`` is not starved by a stream of submissions.

The exclusive holder writes who it is into the gate file; whoever has to wait is told.
"""
import contextlib
import fcntl
import os
import pathlib
import time

from ..language import DEFAULT, WORDS
from ..locks import try_lock

__all__ = ["LOCK_FILE", "GATE_FILE", "exclusive", "shared", "gate_holder"]

LOCK_FILE, GATE_FILE = ".grading.lock", ".grading.gate"


def _open(course, name) -> int:
    return os.open(pathlib.Path(course) / name, os.O_RDWR | os.O_CREAT, 0o600)


def gate_holder(course) -> str:
    """Who holds the course exclusively ("" when nobody does)."""
    path = pathlib.Path(course) / GATE_FILE
    if not path.exists():
        return ""
    fd = _open(course, GATE_FILE)
    try:
        if try_lock(fd, fcntl.LOCK_SH):
            return ""
        return path.read_text(encoding="utf-8", errors="replace").strip() or "another grader"
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive(course, who: str, notify=None, lang: str = DEFAULT):
    """The whole course for ``who`` (``make grade``): waits for the service's jobs in flight.

    ``notify(text)`` is called once when the lock is not free at once, with what it waits for in ``lang`` (the
    instructor's).
    """
    gate, lock = _open(course, GATE_FILE), _open(course, LOCK_FILE)
    try:
        if not try_lock(gate, fcntl.LOCK_EX):
            if notify:
                notify(WORDS.say(lang, "lock.waiting_for", holder=gate_holder(course)))
            fcntl.flock(gate, fcntl.LOCK_EX)
        os.ftruncate(gate, 0)
        os.pwrite(gate, f"{who} (pid {os.getpid()})".encode(), 0)
        if not try_lock(lock, fcntl.LOCK_EX):
            if notify:
                notify(WORDS.say(lang, "lock.waiting_for_service"))
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.ftruncate(gate, 0)
        os.close(lock)
        os.close(gate)


@contextlib.contextmanager
def shared(course, poll: float = 0.2):
    """One job of the grading service; waits while an exclusive holder has (or waits for) the course."""
    while gate_holder(course):
        time.sleep(poll)
    lock = _open(course, LOCK_FILE)
    try:
        fcntl.flock(lock, fcntl.LOCK_SH)
        yield
    finally:
        os.close(lock)

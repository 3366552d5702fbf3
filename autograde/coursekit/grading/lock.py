"""One course, one grader at a time per student: the lock ``make grade`` and the grading service share.

Two ``flock`` files in the course folder (``flock`` locks die with their process, so a killed
grader never leaves the course locked):

* ``.grading.lock`` — held *shared* by each job of the grading service (several students at
  once) and *exclusively* by ``make grade`` and ``python -m coursekit.service pause``;
* ``.grading.gate`` — taken first by an exclusive holder and checked by the service before
  each new job, so a waiting ``make grade`` is not starved by a stream of submissions.

The exclusive holder writes who it is into the gate file; whoever has to wait is told. The service itself holds
``grading-service/service.pid`` while it runs (:func:`service_running`: ``make grade`` says so when nothing is
collected yet, since the service collects).
"""
import contextlib
import fcntl
import os
import pathlib
import time

from ..language import DEFAULT, WORDS
from ..locks import held, try_lock

__all__ = ["LOCK_FILE", "GATE_FILE", "SERVICE_STATE", "exclusive", "shared", "gate_holder", "service_pid_file",
           "service_running"]

LOCK_FILE, GATE_FILE = ".grading.lock", ".grading.gate"
SERVICE_STATE = "grading-service"  # the grading service's folder in the course: its pid lock, journal, pause file


def service_pid_file(course) -> pathlib.Path:
    """The file the course's grading service holds locked while it runs (one service per course)."""
    return pathlib.Path(course) / SERVICE_STATE / "service.pid"


def service_running(course) -> bool:
    """Does a grading service run on ``course`` now (its pid file exists and its lock is held)?"""
    return service_pid_file(course).exists() and held(service_pid_file(course))


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

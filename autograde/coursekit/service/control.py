"""The instructor's handles on a running service: pause, resume, status.

Pausing writes ``<course>/grading-service/paused`` (the service takes no new job while it
exists; submissions keep arriving and are graded after ``resume``) and then waits, through the
course's grading lock, until the job in progress has ended: when ``pause`` returns, nothing is
being graded and the instructor may grade by hand (``make grade``, ``nbgrader autograde``).
"""
import pathlib

from ..grading import lock
from ..language import DEFAULT

__all__ = ["state_dir", "pause_file", "is_paused", "pause", "resume"]

STATE = lock.SERVICE_STATE


def state_dir(course) -> pathlib.Path:
    return pathlib.Path(course) / STATE


def pause_file(course) -> pathlib.Path:
    return state_dir(course) / "paused"


def is_paused(course) -> bool:
    return pause_file(course).exists()


def pause(course, who: str = "python -m coursekit.service pause", notify=print, lang: str = DEFAULT) -> None:
    """No new job from now on; returns once the job in progress has ended (``notify``: what it waits for, in
    ``lang``)."""
    path = pause_file(course)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{who}\n", encoding="utf-8")
    with lock.exclusive(course, who, notify=notify, lang=lang):
        pass  # every job that had started has ended


def resume(course) -> bool:
    """Remove the pause; False when the service was not paused."""
    try:
        pause_file(course).unlink()
    except FileNotFoundError:
        return False
    return True

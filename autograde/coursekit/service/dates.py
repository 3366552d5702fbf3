"""The due dates as the grading service uses them: each student's (their extension counted) for the feedback
hold-back (``c.GradingService.hold_after_due``), and published for the students' Labs.

Both come from the gradebook (:mod:`coursekit.due`), where ``make due``, ``make extend``, the marking page and the
Formgrader write them; the service reads it at most every :data:`FRESH_SECONDS`, so a date changed while it runs
applies within that time, and a student whose folder the hub made since gets their extension.
"""
import datetime
import time

from ..due import due_for, published
from ..gradebook import open_gradebook, sqlite_file
from . import student_status

__all__ = ["FRESH_SECONDS", "DueDates", "publish"]

FRESH_SECONDS = 30.0
_EPOCH = datetime.datetime(1970, 1, 1)


def publish(gradebook, exchange_root, course_id: str, config) -> None:
    """Every due date, and each student's own extension, where the students' servers read them."""
    if exchange_root:
        student_status.publish_dates(exchange_root, course_id, *published(gradebook, config))


class DueDates:
    """The course's due dates for one running service (``url``: its gradebook)."""

    def __init__(self, url: str, config, exchange_root, course_id: str, log, clock=time.monotonic):
        """``course_id``: the gradebook's course, as nbgrader's commands open it (a gradebook opened without one adds
        nbgrader's default course, which two processes opening it at once would both add)."""
        self.url, self.config, self.exchange_root, self.course_id = url, config, exchange_root, course_id
        self.log, self.clock = log, clock
        self._due, self._published = {}, None  # {key: (read at, seconds since the epoch or None)}; when published

    def due(self, key: tuple) -> float | None:
        """When ``key``'s (assignment, student) work is due for that student, in seconds since the epoch."""
        read_at, when = self._due.get(key, (None, None))
        if read_at is None or self.clock() - read_at > FRESH_SECONDS:
            with open_gradebook(self.url, self.course_id) as gradebook:
                found = due_for(gradebook, key[0], key[1], self.config)
            when = None if found is None else (found - _EPOCH).total_seconds()
            self._due[key] = (self.clock(), when)
        return when

    def publish(self) -> None:
        """The dates published for the students, at most every :data:`FRESH_SECONDS` (a failure logged, not raised:
        the students' Labs then show what was published before)."""
        if self._published is not None and self.clock() - self._published < FRESH_SECONDS:
            return
        self._published = self.clock()
        database = sqlite_file(self.url)
        if database is not None and not database.exists():  # nothing released yet: nothing to publish, nothing made
            return
        try:
            with open_gradebook(self.url, self.course_id) as gradebook:
                publish(gradebook, self.exchange_root, self.course_id, self.config)
        except Exception as error:  # noqa: BLE001 -- the gradebook or the exchange: logged, tried again later
            self.log.write(f"could not publish the due dates for the students: {type(error).__name__}: {error}")

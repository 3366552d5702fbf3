"""What a class grading run shows: one progress line per graded student and a closing summary.

Pure bookkeeping (no nbgrader, no processes), so it is unit-tested with a fake clock. Everything
``make grade`` says is in the course's language (``c.CourseKit.language``, Chinese unless the
config says otherwise): the course's catalogue, ``grading.*``.
What a student had a hand in (their id, a reason quoting their notebook's error, a note) is printed with
its control characters escaped (:mod:`coursekit.printable`).
"""
import dataclasses
import time

from ..language import DEFAULT, WORDS, marked
from ..printable import printable
from ..settings import FLOOR_TIMEOUTS, MULTIPLE

__all__ = ["StudentResult", "Progress", "format_duration"]

@dataclasses.dataclass
class StudentResult:
    """How grading one student went, as a worker reports it."""
    student: str
    ok: bool
    reason: str = ""      # why it failed (the gradebook's comment, or nbgrader's error); "" when ok
    seconds: float = 0.0  # wall time in the worker
    worker: int = 0
    timings: dict = dataclasses.field(default_factory=dict)  # "kernel", "cells" (the notebook says), "*_cpu" (.worker)
    notes: list = dataclasses.field(default_factory=list)    # graded, but worth the instructor's eye (one line each)
    over_budget: bool = False  # stopped at one student's time (Progress.budget), not graded


def format_duration(seconds: float) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"``; unknown (None) -> ``"?"``."""
    if seconds is None:
        return "?"
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts the results of ``total`` students; ETA from the wall time per student so far; says it in ``lang``."""

    INTERRUPTED = "interrupted"  # what stopped a run early: this, or a fault of the machine (coursekit.faults)

    def __init__(self, total: int, clock=time.monotonic, lang: str = DEFAULT):
        self.total, self.clock, self.lang = total, clock, lang
        self.start = clock()
        self.results = []
        self.budget = None  # one student's time (coursekit.canary.Budget), said when someone went over it

    @property
    def failed(self):
        return [o for o in self.results if not o.ok]

    def record(self, result: StudentResult) -> str:
        """Add ``result``; the progress line to print for it."""
        self.results.append(result)
        return self.line(result)

    def eta(self):
        """Seconds until every student is graded at the pace so far; None before the first result."""
        done = len(self.results)
        if not done:
            return None
        return (self.clock() - self.start) / done * (self.total - done)

    def line(self, last: StudentResult) -> str:
        marks = (WORDS.say(self.lang, "grading.ok"), WORDS.say(self.lang, "grading.FAILED"))
        width, done = max(len(mark) for mark in marks), f"{len(self.results):>{len(str(self.total))}}"
        return WORDS.say(self.lang, "grading.line", done=done, total=self.total, mark=marks[not last.ok].ljust(width), student=printable(last.student, True),
                         seconds=last.seconds, failed=len(self.failed), eta=format_duration(self.eta()))

    def _budget_source(self) -> str:
        """Where one student's time came from (:class:`coursekit.canary.Budget`), in words."""
        budget = self.budget
        said = {"config": marked("grading.budget_config"), "canary": marked("grading.budget_canary"),
                "floor": marked("grading.budget_floor")}[budget.source]
        return WORDS.say(self.lang, said, canary=budget.canary or 0.0, times=MULTIPLE, cells=FLOOR_TIMEOUTS,
                         timeout=budget.cell_timeout)

    def summary(self, stopped: str = "") -> str:
        """The closing screen: counts, wall time, every failed student with the reason, and why it stopped early
        (``stopped``: :data:`INTERRUPTED`, or a fault of the machine or the course, said here in ``lang``)."""
        lang, elapsed = self.lang, self.clock() - self.start
        per = WORDS.say(lang, "grading.per", seconds=elapsed / len(self.results)) if self.results else ""
        head = WORDS.say(lang, "grading.Done") if not stopped else WORDS.say(lang, "grading.Interrupted") \
            if stopped == self.INTERRUPTED else WORDS.say(lang, "grading.STOPPED")
        lines = [WORDS.say(lang, "grading.summary", head=head, graded=len(self.results) - len(self.failed),
                           failed=len(self.failed), missing=self.total - len(self.results), total=self.total,
                           elapsed=format_duration(elapsed), per=per)]
        lines += [WORDS.say(lang, "grading.failed_line", student=printable(o.student, True),
                            reason=printable(o.reason, True)) for o in self.failed]
        lines += [WORDS.say(lang, "grading.note_line", student=printable(o.student, True), note=printable(note, True))
                  for o in self.results for note in o.notes]
        over = [printable(o.student, True) for o in self.results if o.over_budget]
        if over and self.budget is not None:
            lines.append(WORDS.say(lang, "grading.over_budget", students=", ".join(over), seconds=self.budget.seconds,
                                   why=self._budget_source()))
        if stopped and stopped != self.INTERRUPTED:
            lines.append(f"make grade: {stopped.said(lang)}")
            lines.append(WORDS.say(lang, "grading.kept", count=len(self.results)))
        elif self.failed or stopped:
            lines.append(WORDS.say(lang, "grading.again"))
        return "\n".join(lines)

"""What a class grading run shows: one progress line per graded student and a closing summary.

Pure bookkeeping (no nbgrader, no processes), so it is unit-tested with a fake clock.
"""
import dataclasses
import time

__all__ = ["StudentResult", "Progress", "format_duration"]


@dataclasses.dataclass
class StudentResult:
    """How grading one student went, as a worker reports it."""
    student: str
    ok: bool
    reason: str = ""      # why it failed (the gradebook's comment, or nbgrader's error); "" when ok
    seconds: float = 0.0  # wall time in the worker
    worker: int = 0
    timings: dict = dataclasses.field(default_factory=dict)  # "kernel", "cells" (plugins.kernel), "*_cpu" (.worker)
    notes: list = dataclasses.field(default_factory=list)    # graded, but worth the instructor's eye (one line each)


def format_duration(seconds: float) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"``; unknown (None) -> ``"?"``."""
    if seconds is None:
        return "?"
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts the results of ``total`` students; ETA from the wall time per student so far."""

    INTERRUPTED = "interrupted"  # what stopped a run early: this, or the one line of a fault of the machine

    def __init__(self, total: int, clock=time.monotonic):
        self.total, self.clock = total, clock
        self.start = clock()
        self.results = []

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
        mark = "ok    " if last.ok else "FAILED"
        return (f"[{len(self.results):>{len(str(self.total))}}/{self.total}] {mark} {last.student} "
                f"({last.seconds:.1f} s) · failed so far: {len(self.failed)} · ETA {format_duration(self.eta())}")

    def summary(self, stopped: str = "") -> str:
        """The closing screen: counts, wall time, every failed student with the reason, and why it stopped early
        (``stopped``: :data:`INTERRUPTED`, or the one line of a fault of the machine)."""
        elapsed = self.clock() - self.start
        graded = len(self.results) - len(self.failed)
        per = f", {elapsed / len(self.results):.2f} s per student" if self.results else ""
        head = "Done" if not stopped else ("Interrupted" if stopped == self.INTERRUPTED else "STOPPED")
        lines = [f"{head}: {graded} graded, {len(self.failed)} failed, "
                 f"{self.total - len(self.results)} not graded, of {self.total} in {format_duration(elapsed)}{per}"]
        lines += [f"  FAILED {o.student}: {o.reason}" for o in self.failed]
        lines += [f"  NOTE   {o.student}: {note}" for o in self.results for note in o.notes]
        if stopped and stopped != self.INTERRUPTED:
            lines.append(f"make grade: {stopped}")
            lines.append(f"The {len(self.results)} students graded before it keep their grades; after the repair, "
                         "`make grade` grades the others (nobody twice).")
        elif self.failed or stopped:
            lines.append("Run `make grade` again to grade the failed and the missing students only.")
        return "\n".join(lines)

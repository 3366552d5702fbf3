"""What a class grading run shows: one progress line per graded student and a closing summary.

Pure bookkeeping (no nbgrader, no processes), so it is unit-tested with a fake clock.
"""
import dataclasses
import time

__all__ = ["Outcome", "Progress", "format_duration"]


@dataclasses.dataclass
class Outcome:
    """How grading one student went, as a worker reports it."""
    student: str
    ok: bool
    reason: str = ""      # why it failed, in nbgrader's words; "" when ok
    seconds: float = 0.0  # wall time in the worker
    worker: int = 0
    timings: dict = dataclasses.field(default_factory=dict)  # "kernel", "cells" (coursekit.warm_execute)


def format_duration(seconds: float) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"``; unknown (None) -> ``"?"``."""
    if seconds is None:
        return "?"
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts outcomes of ``total`` students; ETA from the wall time per student so far."""

    def __init__(self, total: int, clock=time.monotonic):
        self.total, self.clock = total, clock
        self.start = clock()
        self.outcomes = []

    @property
    def failed(self):
        return [o for o in self.outcomes if not o.ok]

    def record(self, outcome: Outcome) -> str:
        """Add ``outcome``; the progress line to print for it."""
        self.outcomes.append(outcome)
        return self.line(outcome)

    def eta(self):
        """Seconds until every student is graded at the pace so far; None before the first result."""
        done = len(self.outcomes)
        if not done:
            return None
        return (self.clock() - self.start) / done * (self.total - done)

    def line(self, last: Outcome) -> str:
        mark = "ok    " if last.ok else "FAILED"
        return (f"[{len(self.outcomes):>{len(str(self.total))}}/{self.total}] {mark} {last.student} "
                f"({last.seconds:.1f} s) · failed so far: {len(self.failed)} · ETA {format_duration(self.eta())}")

    def summary(self, interrupted: bool = False) -> str:
        """The closing screen: counts, wall time, and every failed student with the reason."""
        elapsed = self.clock() - self.start
        graded = len(self.outcomes) - len(self.failed)
        per = f", {elapsed / len(self.outcomes):.2f} s per student" if self.outcomes else ""
        lines = [f"{'Interrupted' if interrupted else 'Done'}: {graded} graded, {len(self.failed)} failed, "
                 f"{self.total - len(self.outcomes)} not graded, of {self.total} in {format_duration(elapsed)}{per}"]
        lines += [f"  FAILED {o.student}: {o.reason}" for o in self.failed]
        if self.failed or interrupted:
            lines.append("Run `make grade` again to grade the failed and the missing students only.")
        return "\n".join(lines)

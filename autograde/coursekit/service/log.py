"""What the service tells the instructor: one line per event, student by student.

Written to ``<course>/grading-logs/service.log`` (and to standard output, which JupyterHub keeps
in its own log), e.g.::

    2026-12-01 15:30:04  ch04_attention  s1  submitted 15:30:01.37 → graded 8.75/20 in 1.9 s; feedback released (automatic feedback 2) [collect 0.1 s, grade 1.9 s, feedback 0.9 s, release 0.0 s]
    2026-12-01 15:30:09  ch04_attention  s1  submitted 15:30:08.02 → graded 12/20 in 1.8 s; feedback waits for the cooldown …
    2026-12-01 15:31:10  ch04_attention  s2  NOT GRADED (submitted 15:31:07.90): NotJSONError …; the feedback says so
"""
import datetime
import pathlib
import sys

from ..printable import printable

__all__ = ["ServiceLog", "short_time", "clock_time"]


def short_time(timestamp: str) -> str:
    """``"2026-12-01 15:30:01.123456 UTC"`` -> ``"15:30:01.12"``: the time of day as nbgrader wrote it,
    to the hundredth (a student may submit twice within a second)."""
    parts = timestamp.split()
    return parts[1][:11] if len(parts) > 1 else timestamp


def clock_time(epoch: float) -> str:
    """Seconds since the epoch as this machine's time of day, ``"15:30:01"``."""
    return datetime.datetime.fromtimestamp(epoch).strftime("%H:%M:%S")


class ServiceLog:
    def __init__(self, path, echo=True, clock=None):
        self.path, self.echo = pathlib.Path(path), echo
        self.clock = clock or datetime.datetime.now
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, text: str, key=None) -> str:
        """One line, control characters escaped (a reason quotes what a student's notebook raised; a folder name
        is the student's to choose: :mod:`coursekit.printable`)."""
        who = f"{key[0]}  {key[1]}  " if key else ""
        line = printable(f"{self.clock():%Y-%m-%d %H:%M:%S}  {who}{text}", one_line=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
        if self.echo:
            print(line, file=sys.stdout, flush=True)
        return line

"""What students have submitted: the exchange's inbound folder, read without nbgrader's CLI.

``nbgrader submit`` copies a student's folder to ``<exchange>/<course>/inbound/
<student>+<assignment>+<timestamp>+<random>``, then writes ``timestamp.txt`` and, last,
``submission_secret.txt`` (128 hex digits). A submission counts as arrived once that secret is
complete, so a folder still being copied is never collected half-way. The service only lists
this folder (the instructor may; students may not) and keeps the newest submission of each
student and assignment: nbgrader's ``collect --update`` collects that one too.
"""
import dataclasses
import datetime
import os
import pathlib

from nbgrader.utils import parse_utc

from ..upstream.nbgrader import SECRET_FILE, SECRET_LENGTH, parse_submission_name

__all__ = ["Submission", "inbound_folder", "parse_name", "newest_submissions", "is_complete"]



@dataclasses.dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    timestamp: str             # as nbgrader wrote it: "2026-12-01 15:30:01.123456 UTC"
    folder: pathlib.Path

    @property
    def key(self) -> tuple:
        return (self.assignment, self.student)

    @property
    def when(self) -> datetime.datetime:
        return parse_utc(self.timestamp)


def inbound_folder(exchange_root, course_id: str) -> pathlib.Path:
    return pathlib.Path(exchange_root) / course_id / "inbound"


def parse_name(name: str):
    """``"s1+ch04_attention+2026-12-01 15:30:01.123456 UTC+Ab3"`` -> (student, assignment, timestamp); None when not one
    (:func:`coursekit.upstream.nbgrader.parse_submission_name`: split from the right as nbgrader's collect does)."""
    return parse_submission_name(name)


def is_complete(folder: pathlib.Path) -> bool:
    """Has ``nbgrader submit`` finished writing ``folder`` (its secret is whole)?"""
    try:
        return len((folder / SECRET_FILE).read_text(encoding="ascii", errors="replace").strip()) >= SECRET_LENGTH
    except OSError:
        return False


def newest_submissions(inbound: pathlib.Path, assignments, complete: set = None) -> dict:
    """``{(assignment, student): Submission}``: each student's newest complete submission of ``assignments``.

    ``complete``: names of folders already found complete (a poll reads each secret once, not every time).
    """
    try:
        entries = list(os.scandir(inbound))
    except FileNotFoundError:
        return {}
    wanted, complete = set(assignments), set() if complete is None else complete
    found = []
    for entry in entries:
        parsed = parse_name(entry.name)
        if parsed is not None and parsed[1] in wanted:
            found.append(Submission(*parsed, pathlib.Path(entry.path)))
    newest = {}
    for submission in sorted(found, key=lambda s: s.when, reverse=True):
        if submission.key in newest:
            continue
        if submission.folder.name in complete or is_complete(submission.folder):
            complete.add(submission.folder.name)
            newest[submission.key] = submission
    return newest

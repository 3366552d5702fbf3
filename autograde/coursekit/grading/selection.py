"""Which students a class grading run grades: the submitted ones, in this shard, not graded yet.

A shard ``i/n`` (``0 <= i < n``) holds the students whose id hashes to ``i`` modulo ``n``: the
split depends on the id alone, so n machines (or the n pods of a Kubernetes Indexed Job) that
see the same ``submitted/`` folder split the class without talking to each other, and a student
stays in the same shard when others submit late.

"Graded" means what nbgrader itself would skip: the autograded notebook exists and is not older
than the submission, AND the gradebook holds the student's submission (a fresh or shared
gradebook may not, although ``autograded/`` does).
"""
import hashlib
import pathlib
import re

from nbgrader.utils import parse_utc

__all__ = ["Shard", "parse_shard", "submitted_students", "graded_students", "to_grade"]

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class Shard:
    """Shard ``index`` of ``count`` (0-based, as Kubernetes' JOB_COMPLETION_INDEX)."""

    def __init__(self, index: int, count: int):
        if not (count >= 1 and 0 <= index < count):
            raise ValueError(f"SHARD must be i/n with 0 <= i < n, got {index}/{count}")
        self.index, self.count = index, count

    def holds(self, student: str) -> bool:
        digest = hashlib.sha256(student.encode("utf-8")).digest()  # stable across runs and machines
        return int.from_bytes(digest[:8], "big") % self.count == self.index

    def __str__(self):
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"1/4"`` -> Shard(1, 4); ``""`` -> the whole class (0/1)."""
    if not text or not text.strip():
        return Shard(0, 1)
    match = _SHARD.match(text)
    if not match:
        raise ValueError(f"SHARD must look like i/n (e.g. SHARD=0/2 for the first of two machines), got {text!r}")
    return Shard(int(match.group(1)), int(match.group(2)))


def submitted_students(course: pathlib.Path, assignment: str) -> list:
    """Students with a ``submitted/<student>/<assignment>/`` folder, sorted."""
    root = pathlib.Path(course) / "submitted"
    return sorted(p.parent.name for p in root.glob(f"*/{assignment}") if p.is_dir()) if root.is_dir() else []


def to_grade(students, is_graded, shard: Shard, force: bool = False) -> list:
    """The students of ``shard`` that ``is_graded(student)`` says are missing (all of them if ``force``)."""
    return [s for s in students if shard.holds(s) and (force or not is_graded(s))]


def graded_students(course: pathlib.Path, assignment: str, students, in_gradebook: set) -> set:
    """Those of ``students`` whose grading nbgrader would skip (see the module docstring)."""
    return {s for s in students if s in in_gradebook and _autograded_is_current(pathlib.Path(course), assignment, s)}


def _autograded_is_current(course: pathlib.Path, assignment: str, student: str) -> bool:
    submitted = course / "submitted" / student / assignment
    autograded = course / "autograded" / student / assignment
    notebooks = [p.name for p in submitted.glob("*.ipynb")]
    if not notebooks or not all((autograded / name).is_file() for name in notebooks):
        return False
    new, old = _timestamp(submitted), _timestamp(autograded)
    return new is None or old is None or new <= old  # a newer resubmission is graded again, as nbgrader does


def _timestamp(folder: pathlib.Path):
    """nbgrader's ``timestamp.txt`` of ``folder`` as a datetime; None when absent or empty."""
    path = folder / "timestamp.txt"
    text = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
    return parse_utc(text) if text else None

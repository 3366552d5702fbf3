"""Answers a marker split out of their group, kept until they are judged on their own (and after).

A judged split survives a reload by itself (its judgement differs from its group's, see
:func:`.grouping.split_by_judgement`); an unjudged one needs remembering. The list lives in
``<course>/marking-state/<assignment>.json`` (git-ignored): ``{"split": {grade_id: [students]}}``.
Writers take an exclusive ``flock`` and replace the file atomically, so two markers' splits
both land and a reader never sees half a file.
"""
import contextlib
import fcntl
import json
import os
import pathlib
import tempfile

__all__ = ["STATE_FOLDER", "state_file", "read_splits", "add_split"]

STATE_FOLDER = "marking-state"


def state_file(course, assignment: str) -> pathlib.Path:
    return pathlib.Path(course) / STATE_FOLDER / f"{assignment}.json"


def read_splits(course, assignment: str) -> dict:
    """{grade_id: set of students split out}; empty when nothing was split."""
    path = state_file(course, assignment)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as error:
        raise ValueError(f"{path} is not the marking page's JSON ({error}); delete it to forget the splits") from None
    return {q: set(students) for q, students in data.get("split", {}).items()}


@contextlib.contextmanager
def _locked(path: pathlib.Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def add_split(course, assignment: str, grade_id: str, student: str) -> dict:
    """Remember that ``student``'s answer to ``grade_id`` stands alone; the splits after the change."""
    path = state_file(course, assignment)
    with _locked(path):
        splits = read_splits(course, assignment)
        splits.setdefault(grade_id, set()).add(student)
        data = {"split": {q: sorted(s) for q, s in sorted(splits.items())}}
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".splits-", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False, indent=1)
        os.replace(temp, path)
    return splits

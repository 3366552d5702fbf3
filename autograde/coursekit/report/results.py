"""The grader's records, read back from autograded notebooks (:mod:`attnkit.record`).

While grading, every autograded test cell publishes one :class:`attnkit.record.CellRecord`.
Points do not come from here — the gradebook is authoritative; a record's ``score`` is only
cross-checked against it (:mod:`.tables`).
"""
import json
import pathlib

from attnkit.record import records_in

__all__ = ["read_notebook_results"]


def read_notebook_results(path) -> dict:
    """``{grade_id: CellRecord}`` of one autograded notebook file; plain ``json`` (no validation) for speed."""
    path = pathlib.Path(path)
    with path.open(encoding="utf-8") as fh:
        return records_in(json.load(fh), where=str(path))

"""What an autograded notebook says beyond its scores: the grader's records, the test cells a student changed, and
those whose kernel showed something else than the grader.

While grading, every autograded test cell gets the grader's :class:`coursekit.record.CellRecord` as
its output, and notes whether the student's kernel showed the same (:mod:`coursekit.plugins.grader_process`
writes :data:`CELL_KEY`); nbgrader's sanitizing step notes in the notebook's metadata which test cells differed
from the release (:mod:`coursekit.plugins.released_cells` writes :data:`NOTEBOOK_KEY`). The readers, and the keys
they read, are here; the writers import them. Points do not come from here — the gradebook is authoritative; a
record's ``score`` is only cross-checked against it (:mod:`coursekit.report.tables`).
"""
import json
import pathlib
from dataclasses import dataclass

from .record import records_in

__all__ = ["CELL_KEY", "NOTEBOOK_KEY", "GradedNotebook", "read_graded_notebook", "changed_cells", "tampered_cells"]

CELL_KEY = "coursekit"   # a test cell's metadata: {"grader": {"kernel_agreed": bool}}, written by grading alone
NOTEBOOK_KEY = "attnkit"  # the autograded notebook's metadata: {"changed_cells": [grade ids]}


def changed_cells(nb) -> list:
    """Grade ids of the cells a student changed, as an autograded notebook records them."""
    return list(nb.get("metadata", {}).get(NOTEBOOK_KEY, {}).get("changed_cells", []))


def tampered_cells(nb) -> list:
    """Grade ids of the test cells whose kernel showed something else than the grader's verdict (what
    :meth:`coursekit.plugins.grader_process.Verdict.outputs` notes); ``nb`` as plain JSON or nbformat."""
    return [cell["metadata"]["nbgrader"].get("grade_id", "") for cell in nb.get("cells", [])
            if cell.get("metadata", {}).get(CELL_KEY, {}).get("grader", {}).get("kernel_agreed") is False
            and "nbgrader" in cell["metadata"]]


@dataclass(frozen=True)
class GradedNotebook:
    records: dict          # {grade_id: CellRecord}
    changed_cells: tuple   # grade ids of test cells the student changed (the released cell was graded)
    tampered_cells: tuple = ()  # grade ids of test cells whose kernel showed another result than the grader's


def read_graded_notebook(path) -> GradedNotebook:
    """One autograded notebook file, read with plain ``json`` (no validation) for speed."""
    path = pathlib.Path(path)
    with path.open(encoding="utf-8") as fh:
        nb = json.load(fh)
    return GradedNotebook(records_in(nb, where=str(path)), tuple(changed_cells(nb)), tuple(tampered_cells(nb)))

"""What an autograded notebook says beyond its scores: the grader's records, the test cells a student changed, and
those whose kernel showed something else than the grader.

While grading, every autograded test cell gets the grader's :class:`coursekit.record.CellRecord` as
its output, and notes whether the student's kernel showed the same (:mod:`coursekit.kernel.grader_process`
writes :data:`CELL_KEY`); nbgrader's sanitizing step notes in the notebook's metadata which test cells differed
from the release (:mod:`coursekit.plugins.released_cells` writes :data:`NOTEBOOK_KEY`), and the grading kernel
where its time went (:mod:`coursekit.kernel.client` writes :data:`TIMINGS_KEY` there), and which written answers
changed since they were marked (:mod:`coursekit.plugins.saved_grades` writes :data:`REMARK_KEY`). The readers, and
the keys they read, are here; the writers import them. Points do not come from here — the gradebook is authoritative; a
record's ``score`` is only cross-checked against it (:mod:`coursekit.report.tables`).
"""
import json
import pathlib
from dataclasses import dataclass, field

from .record import records_in
from .student_files import read_notebook

__all__ = ["ANSWERS_BEFORE", "CELL_KEY", "NOTEBOOK_KEY", "REMARK_KEY", "TIMINGS_KEY", "GradedNotebook",
           "answers_in", "read_graded_notebook", "changed_cells", "kernel_seconds", "marks_to_redo", "tampered_cells"]

CELL_KEY = "coursekit"   # a test cell's metadata: {"grader": {"kernel_agreed": bool}}, written by grading alone
NOTEBOOK_KEY = "attnkit"  # the autograded notebook's metadata: {"changed_cells": [grade ids], TIMINGS_KEY: {…}}
TIMINGS_KEY = "kernel_seconds"  # {"kernel": start until ready, "cells": after, "kernel_cpu": the kernel's CPU}
REMARK_KEY = "marks_cleared"  # NOTEBOOK_KEY's list of the written answers whose earlier mark no longer applies
ANSWERS_BEFORE = "answers_before"  # a notebook's nbgrader resources: answers_in() its autograded copy before regrading


def answers_in(path) -> dict:
    """{grade_id: source} of every nbgrader cell of the autograded notebook at ``path`` (what an instructor saw when
    they marked it), read as a student's file (:func:`coursekit.student_files.read_notebook`: no link followed, no
    pipe waited on, capped); {} when there is none, or it cannot be read."""
    try:
        cells = read_notebook(path)["cells"]
        return {cell["metadata"]["nbgrader"]["grade_id"]: "".join(cell.get("source", ""))
                for cell in cells if "grade_id" in cell.get("metadata", {}).get("nbgrader", {})}
    except (OSError, ValueError, TypeError, AttributeError, KeyError):  # UnreadableFile is a ValueError
        return {}


def marks_to_redo(nb) -> list:
    """Grade ids of the written answers whose earlier mark was cleared when this notebook was graded (the answer
    changed since it was marked)."""
    return list(nb.get("metadata", {}).get(NOTEBOOK_KEY, {}).get(REMARK_KEY, []))


def changed_cells(nb) -> list:
    """Grade ids of the cells a student changed, as an autograded notebook records them."""
    return list(nb.get("metadata", {}).get(NOTEBOOK_KEY, {}).get("changed_cells", []))


def kernel_seconds(nb) -> dict:
    """Where the kernel's time went, as grading noted it (:meth:`coursekit.kernel.client.RunnerClient.note_timings`);
    {} if it did not."""
    seconds = nb.get("metadata", {}).get(NOTEBOOK_KEY, {}).get(TIMINGS_KEY, {})
    return {key: float(value) for key, value in seconds.items()} if isinstance(seconds, dict) else {}


def tampered_cells(nb) -> list:
    """Grade ids of the test cells whose kernel showed something else than the grader's verdict (what
    :meth:`coursekit.kernel.grader_process.Verdict.outputs` notes); ``nb`` as plain JSON or nbformat."""
    return [cell["metadata"]["nbgrader"].get("grade_id", "") for cell in nb.get("cells", [])
            if cell.get("metadata", {}).get(CELL_KEY, {}).get("grader", {}).get("kernel_agreed") is False
            and "nbgrader" in cell["metadata"]]


@dataclass(frozen=True)
class GradedNotebook:
    records: dict          # {grade_id: CellRecord}
    changed_cells: tuple   # grade ids of test cells the student changed (the released cell was graded)
    tampered_cells: tuple = ()  # grade ids of test cells whose kernel showed another result than the grader's
    kernel_seconds: dict = field(default_factory=dict)  # where its kernel's time went (:func:`kernel_seconds`)
    marks_to_redo: tuple = ()  # written answers changed since they were marked (:func:`marks_to_redo`)


def read_graded_notebook(path) -> GradedNotebook:
    """One autograded notebook file, read with plain ``json`` (no validation) for speed."""
    path = pathlib.Path(path)
    with path.open(encoding="utf-8") as fh:
        nb = json.load(fh)
    return GradedNotebook(records_in(nb, where=str(path)), tuple(changed_cells(nb)), tuple(tampered_cells(nb)),
                          kernel_seconds(nb), tuple(marks_to_redo(nb)))

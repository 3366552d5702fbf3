"""What an autograded notebook says beyond its scores: the grader's records, the test cells a student changed, and
those whose kernel showed something else than the grader.

While grading, every autograded test cell gets the grader's :class:`coursekit.record.CellRecord` as
its output, and notes whether the student's kernel showed the same (:mod:`coursekit.plugins.grader_process`);
nbgrader's sanitizing step notes in the notebook's metadata which test cells differed from the
release (:mod:`coursekit.plugins.released_cells`). Points do not come from here — the gradebook is
authoritative; a record's ``score`` is only cross-checked against it (:mod:`.tables`).
"""
import json
import pathlib
from dataclasses import dataclass

from .record import records_in

from .plugins.grader_process import tampered_cells
from .plugins.released_cells import changed_cells

__all__ = ["GradedNotebook", "read_graded_notebook"]


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

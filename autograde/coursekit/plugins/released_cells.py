"""A changed test cell is a warning about that student, not 36 false alarms about every student (nbgrader#1961).

nbgrader's ``OverwriteCells`` compares each submitted locked cell with the master's checksum. The
master's test cells hold hidden regions the release never had, so every honest submission
"changed" all four test cells. :class:`OverwriteCellsFromRelease` compares a submitted cell with
the cell as it was *released* (the master's source with its hidden region cleared): only a cell
the student really edited is reported — by name, in the log, and as data in the autograded
notebook's metadata (``attnkit.changed_cells``), which ``make grade`` and the class report list.
nbgrader still puts the master's source back into every locked cell, as before.

nbgrader looks each nbgrader cell up in the gradebook with queries of its own (the source cell, then
the graded cell; ours asked for the source cell a second time): about 50 ORM queries per student,
a quarter of a ``make grade`` worker's CPU. :class:`~coursekit.upstream.nbgrader.CellsAtOnce` answers
those look-ups from one query per kind of cell, with nbgrader's own results and errors.
"""
from nbformat import NotebookNode
from nbgrader.preprocessors import OverwriteCells

from ..autograded import NOTEBOOK_KEY
from ..upstream.nbgrader import CellsAtOnce, remove_hidden_tests

__all__ = ["CellsAtOnce", "OverwriteCellsFromRelease", "with_release_check"]


def _as_released(source_cell) -> str:
    """The source a student was given for this cell: hidden regions cleared, as generate_assignment does."""
    cell = NotebookNode(cell_type=source_cell.cell_type, source=source_cell.source, metadata={})
    remove_hidden_tests(cell)
    return cell.source


def _same(a: str, b: str) -> bool:
    return [line.rstrip() for line in a.strip().splitlines()] == [line.rstrip() for line in b.strip().splitlines()]


class OverwriteCellsFromRelease(OverwriteCells):
    """nbgrader's OverwriteCells, with the checksum warning kept for cells that differ from the release."""

    @property
    def gradebook(self):
        return self._gradebook

    @gradebook.setter
    def gradebook(self, gradebook):  # nbgrader's preprocess opens it once it knows the notebook
        self._gradebook = CellsAtOnce(gradebook, self.notebook_id, self.assignment_id)

    def preprocess(self, nb, resources):
        self._changed = []
        nb, resources = super().preprocess(nb, resources)
        if self._changed:
            nb.metadata.setdefault(NOTEBOOK_KEY, {})["changed_cells"] = list(self._changed)
        return nb, resources

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        self._released = None
        if grade_id is not None:
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except Exception:  # nbgrader's own handling below says why
                source = None
            if source is not None:
                self._released = _same(cell.source, _as_released(source))
        return super().preprocess_cell(cell, resources, cell_index)

    def report_change(self, name, attr, old, new):
        if attr == "checksum":
            if self._released:
                return  # the hidden region, not the student: nothing to report
            self._changed.append(name)
            self.log.warning("Test cell %s was changed by the student (it differs from the release); "
                             "the released cell is graded instead", name)
            return
        super().report_change(name, attr, old, new)


def with_release_check(steps: list) -> list:
    """``steps`` (a converter's preprocessor classes) with OverwriteCells replaced by OverwriteCellsFromRelease."""
    return [OverwriteCellsFromRelease if step is OverwriteCells else step for step in steps]

"""``nbgrader export`` with one column per graded cell next to the totals: the name instructors type is this module's.

    cd autograde && nbgrader export --exporter=coursekit.export.PerCellExportPlugin [--to grades.csv]

The first columns are those of nbgrader's own CSV export (assignment … max_score); then one
column per graded cell (``test1_scores`` … ``q_think4_split``) holding the gradebook's score
for that cell (manual if given, else auto). The totals are the course's one grade (:func:`coursekit.grades.grades_of`),
the same numbers nbgrader's own export writes. A student without a submission gets 0 totals and
empty cell columns, as nbgrader's export does. ``--assignment``/``--student`` filter as usual.
"""
import csv

from nbgrader.api import Gradebook
from nbgrader.plugins import ExportPlugin

from .grades import class_grades

__all__ = ["PerCellExportPlugin", "TOTAL_COLUMNS"]

TOTAL_COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
                 "raw_score", "late_submission_penalty", "score", "max_score"]


def _text(value) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def _totals(assignment, student, grade) -> dict:
    """nbgrader's columns of one student's row: their one grade (:func:`coursekit.grades.grades_of`), or 0 without a
    submission, as nbgrader's own export writes them."""
    row = {"assignment": assignment.name, "duedate": assignment.duedate, "student_id": student.id,
           "last_name": student.last_name, "first_name": student.first_name, "email": student.email,
           "max_score": assignment.max_score}
    if grade is None:
        return {**row, "timestamp": "", "raw_score": 0.0, "late_submission_penalty": 0.0, "score": 0.0}
    return {**row, "timestamp": grade.timestamp, "raw_score": grade.raw, "late_submission_penalty": grade.penalty,
            "score": grade.score}


class PerCellExportPlugin(ExportPlugin):
    """nbgrader's CSV export plus one score column per graded cell (default file ``grades_per_cell.csv``)."""

    def _rows(self, gradebook: Gradebook):
        for assignment in gradebook.assignments:
            if self.assignment and assignment.name not in map(str, self.assignment):
                continue
            grades = class_grades(gradebook, assignment.name, config=self.config)
            for student in gradebook.students:
                if self.student and student.id not in map(str, self.student):
                    continue
                cells = {name: g.score for name, g in grades.grades.get(student.id, {}).items()}
                yield [c.name for c in grades.cells], {**_totals(assignment, student, grades.finals.get(student.id)),
                                                       **cells}

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "grades_per_cell.csv"
        self.log.info("Exporting grades with one column per graded cell to %s", dest)
        rows, columns = [], []
        for cells, row in self._rows(gradebook):
            columns += [c for c in cells if c not in columns]
            rows.append(row)
        with open(dest, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(TOTAL_COLUMNS + columns)
            writer.writerows([_text(row.get(key)) for key in TOTAL_COLUMNS + columns] for row in rows)

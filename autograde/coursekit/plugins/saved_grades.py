"""The autograder's scores saved in one gradebook transaction per notebook, not one per cell.

nbgrader's ``SaveAutoGrades`` looks each graded cell's row up with its own six-table join and
commits after every cell: for this chapter about 20 lookups and 20 commits per student, a fifth of
what grading a submission costs outside its kernel (profiled with the worker, cProfile).
:class:`SaveAutoGradesAtOnce` reads the submission's grade and comment rows in one query, applies
nbgrader's rules to each cell, and commits once. The rules are nbgrader 0.9's, unchanged:

* a grade cell: ``auto_score`` is what the cell scored (:func:`nbgrader.utils.determine_grade`);
  it needs manual grading when an instructor already gave it a manual score, or when it has no
  automatic one (a written answer);
* a solution or task cell: the auto comment is "No response." when the cell is as released
  (same checksum), else none. A task cell never gets it.

(the rules themselves: :func:`coursekit.upstream.nbgrader.auto_score`, :func:`~coursekit.upstream.nbgrader.auto_comment`)

One rule is the course's own. nbgrader keeps a written answer's manual score when the student resubmits, whatever
they wrote since, and only flags it for review. When the grading path knows the answers of the copy it is
replacing (``make grade`` and the grading service put them in the resources, :data:`coursekit.autograded.ANSWERS_BEFORE`),
a written answer marked before is decided here: the same text keeps its mark, now final (nothing to review); another
text loses the mark and its comment, and waits for the instructor again, noted in the notebook
(:data:`coursekit.autograded.REMARK_KEY`) for ``make grade``'s output and the log. Without them (nbgrader's own
``autograde``), nbgrader's rule holds.

``tests/unit/test_plugins_saved_grades.py`` checks that a gradebook written this way equals one
written by nbgrader's ``SaveAutoGrades``, row by row.
"""
from nbgrader import utils
from nbgrader.api import Comment, Grade, Gradebook
from nbgrader.preprocessors import SaveAutoGrades
from sqlalchemy.orm import joinedload

from ..autograded import ANSWERS_BEFORE, NOTEBOOK_KEY, REMARK_KEY
from ..upstream.nbgrader import NO_RESPONSE_COMMENT, auto_comment, auto_score

__all__ = ["SaveAutoGradesAtOnce", "with_grades_saved_at_once"]

NO_RESPONSE = NO_RESPONSE_COMMENT  # nbgrader's auto comment on an answer left as released


class SaveAutoGradesAtOnce(SaveAutoGrades):
    """nbgrader's SaveAutoGrades, with the rows read in one query and written in one commit."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        self.notebook_id, self.assignment_id = info["notebook"], info["assignment"]
        self.student_id, self.db_url = info["student"], info["db_url"]
        self._before, self._cleared = info.get(ANSWERS_BEFORE), []
        with Gradebook(self.db_url) as gradebook:
            self.gradebook = gradebook
            submitted = gradebook.find_submission_notebook(self.notebook_id, self.assignment_id, self.student_id)
            self._grades, self._comments = (
                {row.cell.name: row for row in gradebook.db.query(table).options(joinedload(table.cell))
                 .filter(table.notebook_id == submitted.id)}
                for table in (Grade, Comment))  # each with its cell, in one query
            nb, resources = super(SaveAutoGrades, self).preprocess(nb, resources)  # every cell, as nbgrader's does
            gradebook.db.commit()
        if self._cleared:
            nb.metadata.setdefault(NOTEBOOK_KEY, {})[REMARK_KEY] = self._cleared
        return nb, resources

    def _add_score(self, cell, resources) -> None:
        grade = self._row(self._grades, cell, self.gradebook.find_grade)
        auto_score(grade, cell, self.log)
        if self._before is not None and grade.manual_score is not None and utils.is_solution(cell):
            self._judge_earlier_mark(grade, cell)  # a written answer (nbgrader: a graded solution cell)

    def _judge_earlier_mark(self, grade, cell) -> None:
        """A written answer marked before this grading: the mark stands for the same text, else it is cleared."""
        name = cell.metadata["nbgrader"]["grade_id"]
        if self._before.get(name) == cell.source:
            grade.needs_manual_grade = False  # the text the instructor marked: nothing to review
            return
        comment = self._comments.get(name)
        self.log.warning("%s's %s changed since it was marked: the earlier mark (%s) and its comment cleared, to "
                         "mark again", self.student_id, name, grade.manual_score)
        grade.manual_score = None
        grade.needs_manual_grade = grade.auto_score is None  # left as released now: nbgrader's 0, nothing to mark
        if comment is not None:
            comment.manual_comment = None
        self._cleared.append(name)

    def _add_comment(self, cell, resources) -> None:
        auto_comment(self._row(self._comments, cell, self.gradebook.find_comment), cell)

    def _row(self, rows: dict, cell, find):
        """The preloaded row of ``cell``; a cell missing from the submission's rows is looked up as nbgrader does
        (which raises nbgrader's MissingEntry, naming the cell)."""
        name = cell.metadata["nbgrader"]["grade_id"]
        if name in rows:
            return rows[name]
        return find(name, self.notebook_id, self.assignment_id, self.student_id)


def with_grades_saved_at_once(steps: list) -> list:
    """``steps`` (a converter's preprocessor classes) with SaveAutoGrades replaced by SaveAutoGradesAtOnce."""
    return [SaveAutoGradesAtOnce if step is SaveAutoGrades else step for step in steps]

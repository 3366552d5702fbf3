"""Before nbgrader counts a submission late: the due date and the student's extension as the course has them.

nbgrader's ``AssignLatePenalties`` (every autograde) counts lateness from the submission's own assignment row and
its ``extension`` column (``SubmittedAssignment.total_seconds_late``). The course keeps one due date per piece of
work, the master's, and each student's extension in a table of its own (:mod:`coursekit.due`): :class:`ApplyDueDates`
copies both onto nbgrader's columns just before, so nbgrader's hook, its ``export`` and the course count alike.
"""
from nbgrader.api import Gradebook
from nbgrader.preprocessors import AssignLatePenalties, NbGraderPreprocessor

from ..due import sync

__all__ = ["ApplyDueDates", "with_due_dates"]


class ApplyDueDates(NbGraderPreprocessor):
    """The submission's due date (its master's) and extension written where nbgrader's late penalty reads them."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            sync(gradebook, info["assignment"], info["student"], self.config)
            gradebook.db.commit()
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        return cell, resources


def with_due_dates(steps: list) -> list:
    """``steps`` (autograde's preprocessor classes) with :class:`ApplyDueDates` just before ``AssignLatePenalties``."""
    at = steps.index(AssignLatePenalties)
    return [*steps[:at], ApplyDueDates, *steps[at:]]

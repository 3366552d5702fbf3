"""nbgrader extensions of the course: what nbgrader_config.py plugs into nbgrader's converters.

* :class:`ClearHiddenTestsInFeedback` — hidden regions stripped again before feedback (#917),
  and with them the grader's machine-readable records (for the class report, not for students);
* :class:`RejectDuplicateIds` — a notebook with a copied nbgrader cell is refused, not guessed (#1083);
* :class:`ZeroOnFailureExporter` — a notebook that cannot be graded scores 0 with the reason.
"""
from nbconvert.exporters import NotebookExporter
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from traitlets import List

from grader.outcome import MIME

__all__ = ["ClearHiddenTestsInFeedback", "RejectDuplicateIds", "ZeroOnFailureExporter"]


class ClearHiddenTestsInFeedback(ClearHiddenTests):
    """Strip hidden regions from autograder test cells only.

    Their source was restored from the master by ``OverwriteCells``; a student's own
    cell that happens to contain the delimiter text is left alone instead of aborting
    that student's feedback.
    """

    display_data_priority = List().tag(config=True)  # set by the HTML exporter; unused here

    def preprocess_cell(self, cell, resources, cell_index):
        if utils.is_grade(cell) and not utils.is_solution(cell):
            self._remove_hidden_test_region(cell)
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if MIME not in o.get("data", {})]
        return cell, resources


class RejectDuplicateIds(NbGraderPreprocessor):
    """Refuse a notebook in which one nbgrader cell appears more than once.

    A copied (or split) cell keeps its nbgrader metadata. nbgrader's DeduplicateIds keeps
    the last copy and empties the others' metadata, which later crashes that student with
    a KeyError or, without add_missing_cells, aborts the whole run with a misleading
    "old metadata" error (jupyter/nbgrader#1083). Which copy holds the answer cannot be
    guessed, so the notebook is refused with the duplicated ids as the reason.
    """

    def preprocess(self, nb, resources):
        ids = [cell.metadata["nbgrader"].get("grade_id") for cell in nb.cells if "nbgrader" in cell.metadata]
        repeated = sorted({grade_id for grade_id in ids if grade_id and ids.count(grade_id) > 1})
        if repeated:
            raise ValueError(f"nbgrader cells appear more than once (copied or split with their metadata): "
                             f"{', '.join(repeated)}; delete the extra copies in the submitted notebook")
        return nb, resources


class ZeroOnFailureExporter(NotebookExporter):
    """Autograde's exporter: a notebook that cannot be graded scores 0, with the reason.

    Invalid JSON, a kernel killed by student code (``os._exit``), duplicated cells ...
    nbgrader logs the error, removes that student's autograded copy and goes on with the
    next student; before that, every grade of the notebook is set to 0 and the reason is
    written into its comments in the gradebook (read them with nbgrader.api; formgrader shows the 0).
    """

    def from_filename(self, filename, resources=None, **kw):
        try:
            return super().from_filename(filename, resources=resources, **kw)
        except Exception as exc:
            try:
                record_zero(resources["nbgrader"], f"{type(exc).__name__}: {str(exc).strip()[:300]}", self.log)
            except Exception:  # the original error matters more than a failed bookkeeping step
                self.log.exception("could not record the failed notebook in the gradebook")
            raise


def record_zero(info: dict, error: str, log) -> str:
    """Set every grade of ``info``'s submitted notebook to 0 and write the reason into its comments."""
    reason = (f"Not graded automatically, scored 0: {error}. After fixing the notebook run "
              f"`nbgrader autograde {info['assignment']} --student {info['student']} --force`.")
    log.error("%s: %s", info["student"], reason)
    with Gradebook(info["db_url"]) as gradebook:
        notebook = gradebook.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
        for grade in notebook.grades:
            grade.auto_score, grade.needs_manual_grade = 0.0, False
        for comment in notebook.comments:
            comment.auto_comment = reason
        gradebook.db.commit()
    return reason

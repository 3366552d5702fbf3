"""nbgrader course configuration for the Chapter 4 (self-attention) course.

Run every ``nbgrader`` command from this folder (``cd autograde``). Everything the
course writes stays under this folder unless you point the exchange elsewhere:

* ``ATTN_COURSE_ID``  course id (default ``attention-ch04``)
* ``ATTN_EXCHANGE``   exchange root (default ``autograde/exchange``)
* ``ATTN_TIMEOUT``    seconds one cell may run while validating/autograding (default 60)

Command-line flags (e.g. ``--Exchange.root=/srv/exchange``) still override these.
"""
import os

from nbconvert.exporters import NotebookExporter
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.converters import Autograde
from nbgrader.preprocessors import ClearHiddenTests, DeduplicateIds, GetGrades, NbGraderPreprocessor
from traitlets import List

HERE = os.path.dirname(os.path.abspath(__file__))

c = get_config()  # noqa: F821 -- injected by traitlets when nbgrader loads this file

c.CourseDirectory.root = HERE
c.CourseDirectory.course_id = os.environ.get("ATTN_COURSE_ID", "attention-ch04")
c.Exchange.root = os.environ.get("ATTN_EXCHANGE", os.path.join(HERE, "exchange"))

# A student's infinite loop is interrupted after this long; the cell scores 0 and the
# remaining cells still run (nbgrader's Execute interrupts on timeout by default).
c.Execute.timeout = int(os.environ.get("ATTN_TIMEOUT", "60"))

# Release stubs: the C lab's input checks stay outside the solution region, so an
# untouched function still returns 0 / returns quietly, and verify shows the lab's
# baseline (11 失败 / 11 通过) instead of a NotImplementedError traceback.
c.ClearSolutions.code_stub = {"python": "# 在这里写你的实现\npass"}
c.ClearSolutions.text_stub = "在这里写你的回答。"

# A student who deletes a test cell gets it back at autograding time.
c.OverwriteCells.add_missing_cells = True


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
        return cell, resources


# nbgrader puts hidden tests back into the autograded notebook and, by design, shows
# them in the feedback HTML (jupyter/nbgrader#917). Stripping the hidden regions again
# before export keeps them instructor-only; the cells' printed [PASS]/[FAIL] lines stay.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTestsInFeedback, CSSHTMLHeaderPreprocessor]


# ---------- submissions that cannot be graded: 0 with a reason, the class goes on ----------


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
                self._record_zero(resources["nbgrader"], f"{type(exc).__name__}: {str(exc).strip()[:300]}")
            except Exception:  # the original error matters more than a failed bookkeeping step
                self.log.exception("could not record the failed notebook in the gradebook")
            raise

    def _record_zero(self, info, error):
        reason = (f"Not graded automatically, scored 0: {error}. After fixing the notebook run "
                  f"`nbgrader autograde {info['assignment']} --student {info['student']} --force`.")
        self.log.error("%s: %s", info["student"], reason)
        with Gradebook(info["db_url"]) as gradebook:
            notebook = gradebook.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            for grade in notebook.grades:
                grade.auto_score, grade.needs_manual_grade = 0.0, False
            for comment in notebook.comments:
                comment.auto_comment = reason
            gradebook.db.commit()


c.Autograde.sanitize_preprocessors = [
    RejectDuplicateIds if step is DeduplicateIds else step
    for step in Autograde.class_traits()["sanitize_preprocessors"].default()
]
c.Autograde.exporter_class = ZeroOnFailureExporter

"""nbgrader course configuration for the Chapter 4 (self-attention) course.

Run every ``nbgrader`` command from this folder (``cd autograde``). Everything the
course writes stays under this folder unless you point the exchange elsewhere:

* ``ATTN_COURSE_ID``  course id (default ``attention-ch04``)
* ``ATTN_EXCHANGE``   exchange root (default ``autograde/exchange``)
* ``ATTN_TIMEOUT``    seconds one cell may run while validating/autograding (default 60)

Command-line flags (e.g. ``--Exchange.root=/srv/exchange``) still override these.
"""
import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests, GetGrades
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

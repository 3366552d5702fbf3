"""What feedback leaves out: hidden-test regions (again) and the grader's records.

nbgrader puts hidden tests back into the autograded notebook and, by design, shows them in the
feedback HTML (jupyter/nbgrader#917). :class:`ClearHiddenTestsInFeedback` strips them again
before ``generate_feedback`` exports, together with the grader's machine-readable records (for
the class report, not for students); the cells' printed ``[PASS]/[FAIL]`` lines stay.

The grader's source needs no scrubbing here: it lives in the grader process only
(:mod:`coursekit.sandbox.grader_host`), which the student's kernel can neither see nor read, so no
output of the notebook can hold it, in any encoding (tests/integration/test_redteam.py). Graded
without the sandbox (``ATTN_SANDBOX=off``), the kernel runs with the grader's rights and nothing is
kept from it: autograde/README.md, "Limits".
"""
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import List

from ..record import MIME

from ..upstream.nbgrader import remove_hidden_tests

__all__ = ["ClearHiddenTestsInFeedback"]


class ClearHiddenTestsInFeedback(ClearHiddenTests):
    """Strip hidden regions from autograder test cells and the grader's records from every cell.

    Their source was restored from the master by ``OverwriteCells``; a student's own cell that
    happens to contain the delimiter text is left alone instead of aborting that student's feedback.
    """

    display_data_priority = List().tag(config=True)  # set by the HTML exporter; unused here

    def preprocess_cell(self, cell, resources, cell_index):
        if utils.is_grade(cell) and not utils.is_solution(cell):
            remove_hidden_tests(cell, self)
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if MIME not in o.get("data", {})]
        return cell, resources

"""nbgrader course configuration for the Chapter 4 (self-attention) course.

Run every ``nbgrader`` command from this folder (``cd autograde``). Everything the
course writes stays under this folder unless you point the exchange elsewhere:

* ``ATTN_COURSE_ID``  course id (default ``attention-ch04``)
* ``ATTN_EXCHANGE``   exchange root (default ``autograde/exchange``)
* ``ATTN_TIMEOUT``    seconds one cell may run while validating/autograding (default 60)

The extensions themselves live in ``coursekit/extensions.py``; this file holds settings only.
Command-line flags (e.g. ``--Exchange.root=/srv/exchange``) still override these.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # the course's own package, autograde/coursekit/ (never shadowed by a submission)

from nbconvert.preprocessors import CoalesceStreamsPreprocessor, CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.converters import Autograde  # noqa: E402
from nbgrader.preprocessors import DeduplicateIds, GetGrades  # noqa: E402

from coursekit.extensions import ClearHiddenTestsInFeedback, RejectDuplicateIds, ZeroOnFailureExporter  # noqa: E402
from coursekit.output_cap import cap_validator_outputs, with_capped_execute  # noqa: E402

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

# The kernel-side grader (autograde/grader/) is loaded by path from the hidden region of each
# test cell; kernels that validate/autograde inherit this variable from nbgrader's process.
os.environ["ATTN_GRADER"] = os.path.join(HERE, "grader", "__init__.py")

# nbgrader puts hidden tests back into the autograded notebook and, by design, shows
# them in the feedback HTML (jupyter/nbgrader#917). Stripping the hidden regions again
# before export keeps them instructor-only; the cells' printed [PASS]/[FAIL] lines stay.
# Each line verify prints arrives as its own stream output: merged, a cell shows one block.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTestsInFeedback, CoalesceStreamsPreprocessor,
                                    CSSHTMLHeaderPreprocessor]
c.CoalesceStreamsPreprocessor.enabled = True  # nbconvert's preprocessors start disabled


# Submissions that cannot be graded: 0 with a reason, the class goes on.
c.Autograde.sanitize_preprocessors = [
    RejectDuplicateIds if step is DeduplicateIds else step
    for step in Autograde.class_traits()["sanitize_preprocessors"].default()
]
c.Autograde.exporter_class = ZeroOnFailureExporter

# What grading keeps of a cell's outputs (autograde and validate; the live chapter is unaffected):
# beyond these bytes an output is cut where it overflowed, with a Chinese note saying how much was
# left out. Scores never change: graded cells' results and errors are always kept (issue 16).
c.CappedExecute.cell_output_limit = 300_000
c.CappedExecute.notebook_output_limit = 1_200_000
c.Autograde.autograde_preprocessors = with_capped_execute(Autograde.class_traits()["autograde_preprocessors"].default())
cap_validator_outputs()  # nbgrader 0.9's Validator.preprocessors is not configurable
# nbgrader's own LimitOutput (1000 lines per cell, after the run) would cut again, in English, and could
# drop a late stderr line that decides a test cell's score: the cap above is the only truncation.
c.LimitOutput.max_lines = -1

"""The course's nbgrader plugins: what ``nbgrader_config.py`` plugs into nbgrader's converters.

One module each:

* :mod:`.kernel` — the grading kernel (``c.Execute.kernel_manager_class``): told where the grader is;
* :mod:`.output_cap` — what grading keeps of a cell's output (``CappedExecute`` for nbgrader's Execute);
* :mod:`.released_cells` — only a test cell the student changed is reported (#1961);
* :mod:`.saved_grades` — a notebook's scores saved in one gradebook transaction, not one per cell;
* :mod:`.duplicates` — a notebook with a copied nbgrader cell is refused, not guessed (#1083);
* :mod:`.failures` — a notebook that cannot be graded scores 0 with the reason;
* :mod:`.feedback` — hidden regions and the grader's records stripped from feedback (#917);
* :mod:`.feedback_page` — the feedback page in the chapter's words (:mod:`.cell_names`), unmarked answers
  pending (:mod:`.pending`); :mod:`.release_feedback` — ``release_feedback`` says how many are still pending;
* :mod:`.export` — ``nbgrader export`` with one column per graded cell;
* :mod:`.metadata_check` — nbgrader's check of each cell's metadata, its schema checked once;
* :mod:`.shared_engine` — one SQLAlchemy engine per gradebook URL in a process, not one per ``Gradebook``.

Importing this package makes ``nbgrader validate`` run ``CappedExecute`` as well
(:func:`.output_cap.cap_validator_outputs`: nbgrader 0.9's ``Validator.preprocessors`` is not a
configurable trait, so its class default is swapped) and name the written questions still
unanswered in one Chinese entry (:func:`.validation.name_unanswered_questions` wraps
``Validator.validate``). Two more save nbgrader's own work per notebook: each cell's nbgrader metadata is
checked against a schema checked once (:func:`.metadata_check.check_schemas_once`), and every
``Gradebook`` of a URL shares one engine, so its compiled SQL (:func:`.shared_engine.share_engines`).
All four are idempotent and affect only the process that imports the course's plugins — nbgrader's,
when it loads ``nbgrader_config.py``.
"""
from .duplicates import RejectDuplicateIds, with_rejected_duplicates
from .failures import ZeroOnFailureExporter
from .feedback import ClearHiddenTestsInFeedback
from .feedback_page import CourseFeedbackExporter, GetGradesForFeedback
from .kernel import GradingKernelManager
from .metadata_check import check_schemas_once
from .output_cap import CappedExecute, cap_validator_outputs, with_capped_execute
from .release_feedback import ReleaseFeedbackTellingPending
from .released_cells import OverwriteCellsFromRelease, with_release_check
from .saved_grades import SaveAutoGradesAtOnce, with_grades_saved_at_once
from .shared_engine import share_engines
from .validation import name_unanswered_questions

__all__ = ["ClearHiddenTestsInFeedback", "CappedExecute", "CourseFeedbackExporter", "GetGradesForFeedback",
           "GradingKernelManager", "OverwriteCellsFromRelease", "RejectDuplicateIds", "ReleaseFeedbackTellingPending",
           "SaveAutoGradesAtOnce", "ZeroOnFailureExporter", "check_schemas_once", "name_unanswered_questions",
           "share_engines", "with_capped_execute", "with_grades_saved_at_once", "with_rejected_duplicates",
           "with_release_check"]

cap_validator_outputs()
name_unanswered_questions()
check_schemas_once()
share_engines()

"""The course's nbgrader plugins: what ``nbgrader_config.py`` names for nbgrader's converters.

One module each:

* :mod:`.kernel` — the grading kernel (``c.Execute.kernel_manager_class``): a forked, sandboxed cell
  runner, and beside it the grader process; :mod:`.kernel_client` — nbclient's view of the runner;
  :mod:`.grader_process` — the grader process seen from here, and nbclient's hooks that grade a test
  cell before it runs (``c.Execute.on_cell_execute``, ``on_notebook_start``);
  :mod:`.output_cap` — what grading keeps of a cell's output; :mod:`.figure_cache` — the chapter's
  figures drawn once, outside the sandbox;
* :mod:`.released_cells` — only a test cell the student changed is reported (#1961);
* :mod:`.saved_grades` — a notebook's scores saved in one gradebook transaction, not one per cell;
* :mod:`.duplicates` — a notebook with a copied nbgrader cell is refused, not guessed (#1083);
* :mod:`.failures` — a notebook that cannot be graded scores 0 with the reason;
* :mod:`.feedback` — hidden regions and the grader's records stripped from feedback (#917);
* :mod:`.feedback_page` — the feedback page in the chapter's words (:mod:`.cell_names`), unmarked answers
  pending (:mod:`.pending`); :mod:`.release_feedback` — ``release_feedback`` says how many are still pending;
* :mod:`.validation` — Validate names the unanswered written questions;
* :mod:`.edition_stubs` — each edition's release stubs in its own language (``generate_assignment``);
* :mod:`.export` — ``nbgrader export`` with one column per graded cell;
* :mod:`.metadata_check` — nbgrader's check of each cell's metadata, its schema checked once;
* :mod:`.shared_engine` — one SQLAlchemy engine per gradebook URL in a process, not one per ``Gradebook``.

Importing this package changes nothing in nbgrader: the config only names these classes. The
three functions that change nbgrader's own behaviour (:func:`.validation.name_unanswered_questions`,
:func:`.metadata_check.check_schemas_once`, :func:`.shared_engine.share_engines`) are called by the
commands that want them (the grading workers, the students' server extension).
"""
from .duplicates import RejectDuplicateIds, with_rejected_duplicates
from .edition_stubs import EditionStubs, with_edition_stubs
from .failures import ZeroOnFailureExporter
from .feedback import ClearHiddenTestsInFeedback
from .feedback_page import CourseFeedbackExporter, GetGradesForFeedback
from .grader_process import grade_test_cell, notebook_language
from .kernel import GradingKernelManager
from .metadata_check import check_schemas_once
from .release_feedback import ReleaseFeedbackTellingPending
from .released_cells import OverwriteCellsFromRelease, with_release_check
from .saved_grades import SaveAutoGradesAtOnce, with_grades_saved_at_once
from .shared_engine import share_engines
from .validation import name_unanswered_questions

__all__ = ["ClearHiddenTestsInFeedback", "CourseFeedbackExporter", "EditionStubs", "GetGradesForFeedback",
           "GradingKernelManager", "OverwriteCellsFromRelease", "RejectDuplicateIds", "ReleaseFeedbackTellingPending",
           "SaveAutoGradesAtOnce", "ZeroOnFailureExporter", "check_schemas_once", "name_unanswered_questions",
           "grade_test_cell", "notebook_language", "share_engines", "with_grades_saved_at_once", "with_rejected_duplicates",
           "with_edition_stubs", "with_release_check"]


"""The course's nbgrader plugins: what ``nbgrader_config.py`` names for nbgrader's converters.

One module each:

* :mod:`.kernel` — the grading kernel (``c.Execute.kernel_manager_class``): a forked, sandboxed cell
  runner, and beside it the grader process; :mod:`.kernel_client` — nbclient's view of the runner;
  :mod:`.grader_process` — the grader process seen from here, and nbclient's hooks that grade a test
  cell before it runs (``c.Execute.on_cell_execute``, ``on_notebook_start``);
  :mod:`.output_cap` — what grading keeps of a cell's output;
* :mod:`.stubs` — what a release puts where a solution was, per assignment; :mod:`.private_metadata` — what
  it must not carry of the master's metadata;
* :mod:`.released_cells` — only a test cell the student changed is reported (#1961);
* :mod:`.saved_grades` — a notebook's scores saved in one gradebook transaction, not one per cell;
* :mod:`.duplicates` — a notebook with a copied nbgrader cell is refused, not guessed (#1083);
* :mod:`.failures` — a notebook that cannot be graded scores 0 with the reason;
* :mod:`.feedback` — hidden regions and the grader's records stripped from feedback (#917);
* :mod:`.feedback_page` — the feedback page in the course's words and the notebook's language, each cell by
  its name, unmarked answers pending (:mod:`.pending`); :mod:`.release_feedback` — ``release_feedback`` says how many are still pending;
* :mod:`.validation` — Validate names the unanswered written questions and each failing cell, in the
  notebook's language;
* :mod:`.students` — the students' server extension: their Validate as the course's, its kernel template
  started ahead, and :mod:`.feedback_watch` — their Lab told when feedback is out; :mod:`.open_assignment` — where
  an LMS launch lands them: the assignment fetched and open;
* :mod:`.export` — ``nbgrader export`` with one column per graded cell;
* :mod:`.exchange` — ``nbgrader collect`` and ``list --inbound`` with each inbound folder through
  :mod:`coursekit.inbound` (no link followed, no pipe opened, sizes capped, owners checked);
* :mod:`.students` — the students' server extension: their Validate as the course's, their feedback watched.

What these plug-ins copy of nbgrader's, nbconvert's, nbclient's, ipykernel's and jupyter_client's insides
lives in :mod:`coursekit.upstream`, one module per package. Importing this package changes nothing in
nbgrader: the config only names these classes. The three functions that change nbgrader's own behaviour
(:func:`.validation.name_unanswered_questions`; :func:`~coursekit.upstream.nbgrader.check_schemas_once` and
:func:`~coursekit.upstream.nbgrader.share_engines`: the metadata schema checked once, one SQLAlchemy engine per
gradebook URL) are called by the commands that want them (the grading workers, the students' server extension).
"""
from ..upstream.nbgrader import check_schemas_once, share_engines
from .duplicates import RejectDuplicateIds, with_rejected_duplicates
from .exchange import CheckedCollect, CheckedList
from .failures import ZeroOnFailureExporter
from .feedback import ClearHiddenTestsInFeedback
from .feedback_page import CourseFeedbackExporter, GetGradesForFeedback
from .grader_process import grade_test_cell, notebook_language
from .kernel import GradingKernelManager
from .release_feedback import ReleaseFeedbackTellingPending
from .private_metadata import ClearPrivateMetadata, with_private_metadata_cleared
from .released_cells import OverwriteCellsFromRelease, with_release_check
from .saved_grades import SaveAutoGradesAtOnce, with_grades_saved_at_once
from .stubs import AssignmentStubs, with_assignment_stubs
from .validation import name_unanswered_questions

__all__ = ["AssignmentStubs", "CheckedCollect", "CheckedList", "ClearHiddenTestsInFeedback", "ClearPrivateMetadata", "CourseFeedbackExporter",
           "GetGradesForFeedback", "GradingKernelManager", "OverwriteCellsFromRelease", "RejectDuplicateIds",
           "ReleaseFeedbackTellingPending", "SaveAutoGradesAtOnce", "ZeroOnFailureExporter", "check_schemas_once",
           "name_unanswered_questions", "grade_test_cell", "notebook_language", "share_engines",
           "with_grades_saved_at_once", "with_rejected_duplicates", "with_assignment_stubs",
           "with_private_metadata_cleared", "with_release_check"]

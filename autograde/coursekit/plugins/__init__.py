"""The course's nbgrader plugins: what ``nbgrader_config.py`` names for nbgrader's converters and apps.

One module each:

* :mod:`.private_metadata` — what a release must not carry of the master's metadata (its stubs:
  :mod:`coursekit.stubs`);
* :mod:`.released_cells` — only a test cell the student changed is reported (#1961);
* :mod:`.saved_grades` — a notebook's scores saved in one gradebook transaction, not one per cell;
* :mod:`.due_dates` — the due date and the student's extension given to nbgrader's late penalty (its rule:
  :mod:`coursekit.late`);
* :mod:`.duplicates` — a notebook with a copied nbgrader cell is refused, not guessed (#1083);
* :mod:`.failures` — a notebook that cannot be graded scores 0 with the reason;
* :mod:`.feedback` — hidden regions and the grader's records stripped from feedback (#917);
* :mod:`.feedback_page` — the feedback page in the course's words and the notebook's language, each cell by
  its name, unmarked answers pending (:mod:`.pending`); :mod:`.release_feedback` — ``release_feedback`` says how
  many are still pending; :mod:`.safe_html` — the formgrader's and the feedback page's rendering of a student's
  notebook sanitised (:mod:`coursekit.sanitise`'s allow-list), through nbconvert's settings;
* :mod:`.validation` — Validate names the unanswered written questions and each failing cell, in the
  notebook's language;
* :mod:`.students` — the students' server extension: their Validate as the course's, its kernel template
  started ahead, and :mod:`.feedback_watch` — their Lab told when feedback is out; :mod:`.open_assignment` — where
  an LMS launch lands them: the assignment fetched and open; :mod:`.lab_locale` — JupyterLab's own words in their
  language (its language pack, from their edition or their launch); :mod:`.regrade_requests` — a regrade request
  filed from a feedback page, or refused at once in their language.

The grading kernel the config also names (``c.Execute``) is :mod:`coursekit.kernel`; the exchange's collect and
list, :mod:`coursekit.exchange`; the per-cell export, :mod:`coursekit.export`. What these plug-ins copy of
nbgrader's and nbconvert's insides lives in :mod:`coursekit.upstream`, one module per package. Importing this
package changes nothing in nbgrader: the config only names these classes. The one function that changes
nbgrader's own behaviour (:func:`.validation.name_unanswered_questions`) is called by the program that shows
its result (the students' server extension).
"""
from .due_dates import ApplyDueDates, with_due_dates
from .duplicates import RejectDuplicateIds, with_rejected_duplicates
from .failures import ZeroOnFailureExporter
from .feedback import ClearHiddenTestsInFeedback
from .feedback_page import CourseFeedbackExporter, GetGradesForFeedback
from .private_metadata import ClearPrivateMetadata, with_private_metadata_cleared
from .release_feedback import ReleaseFeedbackTellingPending
from .released_cells import OverwriteCellsFromRelease, with_release_check
from .safe_html import sanitised
from .saved_grades import SaveAutoGradesAtOnce, with_grades_saved_at_once
from .validation import name_unanswered_questions

__all__ = ["ApplyDueDates", "ClearHiddenTestsInFeedback", "ClearPrivateMetadata", "CourseFeedbackExporter", "GetGradesForFeedback",
           "OverwriteCellsFromRelease", "RejectDuplicateIds", "ReleaseFeedbackTellingPending", "SaveAutoGradesAtOnce",
           "ZeroOnFailureExporter", "name_unanswered_questions", "sanitised", "with_due_dates",
           "with_grades_saved_at_once", "with_private_metadata_cleared", "with_rejected_duplicates", "with_release_check"]

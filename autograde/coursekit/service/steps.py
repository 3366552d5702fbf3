"""nbgrader's own steps for ONE student, on the application a grading worker already built.

``collect --update --student`` (on nbgrader's folder exchange always the course's
:class:`coursekit.exchange.CheckedCollect`, whatever the config names: nothing leaves ``inbound/`` but
through :mod:`coursekit.inbound`), then autograde (:func:`coursekit.grading.worker.grade_student`,
the course's one grading path: sandboxed kernels forked from the pre-imported template), then
``generate_feedback`` and ``release_feedback`` for that student only — nbgrader's exchange and
converter classes, configured by the course's ``nbgrader_config.py`` exactly as its CLI is.

Feedback is generated into a staging folder and moved into ``feedback/<student>/<assignment>/``
file by file with ``os.replace``, the page last: a service killed half-way leaves the previous
feedback or the new one, never a half-written page (nbgrader's release copies it to the exchange
through a temporary file and a rename, too).
"""
import os
import pathlib
import shutil

from nbgrader.auth import Authenticator
from nbgrader.converters import GenerateFeedback, NbGraderException
from nbgrader.exchange import ExchangeError, ExchangeFactory
from nbgrader.exchange.default import Exchange as FolderExchange

from ..assignments import assignment_of
from ..cell_names import assignment_title
from ..gradebook import open_gradebook
from ..grades import grade_of
from ..inbound import Refused
from ..exchange import CheckedCollect
from .inbox import SECRET_FILE
from .journal import write_atomically
from .notice import notice_page

__all__ = ["StepFailed", "collect", "submitted_timestamp", "score", "generate_feedback", "write_notice",
           "release_feedback"]

STAGING = ".feedback-staging"  # beside feedback/ in the course folder


class StepFailed(RuntimeError):
    """An nbgrader step failed for reasons of the course, not of the student's notebook."""


def _exchange(app):
    return ExchangeFactory(parent=app), Authenticator(parent=app)


def _folder(app, step: str, student: str) -> pathlib.Path:
    coursedir = app.coursedir
    return pathlib.Path(coursedir.format_path(step, student, coursedir.assignment_id))


def collect(app, student: str, folder: str = "") -> str:
    """``nbgrader collect --update --student <student>``: the newest acceptable submission; its timestamp (when it
    arrived: :func:`coursekit.inbound.collect` writes it). :class:`~coursekit.inbound.Refused` when the inbound
    ``folder`` (the one the inbox listed) was refused as it was collected: it changed since it was listed."""
    app.coursedir.student_id = student
    factory, authenticator = _exchange(app)
    step = _collect_class(factory)(coursedir=app.coursedir, authenticator=authenticator, parent=app)
    step.update = True
    try:
        step.start()
    except ExchangeError as error:
        raise StepFailed(f"nbgrader collect failed for {student}: {error}") from None
    listed = [r for r in getattr(step, "refused", ()) if r.student == student and folder and r.folder == folder]
    refused = getattr(step, "copy_refused", {}).get(student) or next(iter(listed), None)
    if refused is not None:
        raise Refused(refused)
    return submitted_timestamp(app, student)


def _collect_class(factory):
    """The course's collect class; on nbgrader's folder exchange, :class:`CheckedCollect` whatever the config names."""
    configured = factory.collect
    folders = issubclass(configured, FolderExchange) and not issubclass(configured, CheckedCollect)
    return CheckedCollect if folders else configured


def submitted_timestamp(app, student: str) -> str:
    """The timestamp of ``submitted/<student>/<assignment>/`` ("" when there is none)."""
    path = _folder(app, app.coursedir.submitted_directory, student) / "timestamp.txt"
    return path.read_text(encoding="utf-8").strip() if path.exists() else ""


def score(app, student: str) -> tuple:
    """(grade, max score) of the student's submission: the one grade (:func:`coursekit.grades.grade_of`, the late
    penalty taken off); (0, 0) when nbgrader failed before it wrote the submission's rows."""
    with open_gradebook(app.coursedir.db_url, app.coursedir.course_id) as gradebook:
        grade = grade_of(gradebook, app.coursedir.assignment_id, student, app.config)
        return (grade.score, grade.max_score) if grade is not None else (0.0, 0.0)


def _move_in(staged: pathlib.Path, dest: pathlib.Path) -> None:
    """Every file of ``staged`` into ``dest`` with one rename each, the pages (``.html``) last."""
    dest.mkdir(parents=True, exist_ok=True)
    files = sorted((p for p in staged.rglob("*") if p.is_file()), key=lambda p: (p.suffix == ".html", str(p)))
    for path in files:
        target = dest / path.relative_to(staged)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)


def generate_feedback(app, student: str) -> None:
    """``nbgrader generate_feedback --student <student> --force``, moved into place atomically."""
    coursedir, original = app.coursedir, app.coursedir.feedback_directory
    staged = _folder(app, STAGING, student)
    shutil.rmtree(staged, ignore_errors=True)
    coursedir.student_id, coursedir.feedback_directory = student, STAGING
    try:
        converter = GenerateFeedback(coursedir=coursedir, parent=app)
        converter.force = True
        converter.start()
    except NbGraderException as error:
        raise StepFailed(f"nbgrader generate_feedback failed for {student}: {error}") from None
    finally:
        coursedir.feedback_directory = original
    _move_in(staged, _folder(app, original, student))
    shutil.rmtree(staged, ignore_errors=True)


def write_notice(app, student: str, reason: str) -> None:
    """The "not graded" page (:mod:`.notice`) as the student's feedback, for each submitted notebook, in the
    assignment's language (the notebook itself may be what could not be read)."""
    submitted = _folder(app, app.coursedir.submitted_directory, student)
    dest = _folder(app, app.coursedir.feedback_directory, student)
    timestamp = submitted_timestamp(app, student)
    names = sorted(p.stem for p in submitted.glob("*.ipynb")) or [app.coursedir.assignment_id]
    lang = assignment_of(app.coursedir.assignment_id, app.config).language
    write_atomically(dest / "timestamp.txt", timestamp)
    if (submitted / SECRET_FILE).exists():
        write_atomically(dest / SECRET_FILE, (submitted / SECRET_FILE).read_text(encoding="utf-8"))
    title = assignment_title(app.coursedir.root, app.coursedir.assignment_id, lang, app.config)  # the notebook's
    for name in names:
        write_atomically(dest / f"{name}.html", notice_page(title, timestamp, reason, lang))


def release_feedback(app, student: str) -> None:
    """``nbgrader release_feedback --student <student>``: the student's Fetch Feedback finds it."""
    app.coursedir.student_id = student
    factory, authenticator = _exchange(app)
    step = factory.ReleaseFeedback(coursedir=app.coursedir, authenticator=authenticator, parent=app)
    try:
        step.start()
    except ExchangeError as error:
        raise StepFailed(f"nbgrader release_feedback failed for {student}: {error}") from None

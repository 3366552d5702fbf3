"""Which gradebook a course command opens — one rule for every command — and how it survives several writers.

:func:`resolve_gradebook` decides, in this order: the URL the command was given (``--db-url``,
``DB_URL=`` for make), else the ``DB_URL`` environment variable, else ``CourseDirectory.db_url``
in the course's ``nbgrader_config.py``, else nbgrader's default ``sqlite:///<course>/gradebook.db``.
``make grade`` (and its workers), ``make report``, the marking page and the hub's grading all call it,
and the course's ``nbgrader_config.py`` sets ``CourseDirectory.db_url`` from ``DB_URL`` the same way
(:func:`url_from_environment`), so nbgrader's own commands and the formgrader read and write the same database.

sqlite lets one writer in at a time; a second one waits only sqlite3's default 5 s and then
fails with an ``OperationalError`` that nbgrader reports as "run `nbgrader db upgrade`" (and it
deletes that student's autograded folder). The resolved sqlite URL carries a longer busy timeout:
SQLAlchemy's pysqlite dialect passes ``?timeout=`` to ``sqlite3.connect``. A PostgreSQL gradebook
(``postgresql://user@host/db``) lets several graders or machines share one gradebook; it is
reached through psycopg 3 (the ``course`` extra installs it).
"""
import contextlib
import importlib.util
import os
import pathlib
import sys

from nbgrader.api import Assignment, Gradebook, MissingEntry, Student, SubmittedAssignment, SubmittedNotebook
from sqlalchemy.engine import make_url

from .settings import course_settings

__all__ = ["BUSY_SECONDS", "resolve_gradebook", "url_from_environment", "open_gradebook", "describe", "sqlite_file",
           "NOT_GRADED_COMMENT", "not_graded_reason", "zero_submission", "alembic_env", "alembic_on_path", "submitted",
           "one_moment"]

BUSY_SECONDS = 120  # a commit takes milliseconds; waiting this long means something is stuck
NOT_GRADED_COMMENT = "Not graded automatically"  # how every "0 with the reason" comment starts: the report finds them


def not_graded_reason(error: str, assignment: str, student: str) -> str:
    """The comment of a submission that scored 0 because it could not be graded: ``error``, and how to regrade."""
    return (f"{NOT_GRADED_COMMENT}, scored 0: {error}. After fixing the notebook run "
            f"`nbgrader autograde {assignment} --student {student} --force`.")


def resolve_gradebook(course, explicit: str | None = None, busy_seconds: float = BUSY_SECONDS) -> str:
    """The SQLAlchemy URL of ``course``'s gradebook (see the module docstring for the order).

    A sqlite URL gets ``timeout=busy_seconds`` unless it names one; ``postgresql://`` is read
    with psycopg 3 (SQLAlchemy's bare scheme means psycopg2, which the course does not install).
    """
    course = pathlib.Path(course).resolve()
    named = explicit or os.environ.get("DB_URL") or course_settings(course).db_url
    return _normalised(named or f"sqlite:///{course / 'gradebook.db'}", busy_seconds)


def url_from_environment(busy_seconds: float = BUSY_SECONDS) -> str:
    """``DB_URL`` as every command reads it ("" when unset): what the course's ``nbgrader_config.py`` sets as
    ``CourseDirectory.db_url``, so that nbgrader's own commands and the formgrader follow the same rule."""
    named = os.environ.get("DB_URL", "").strip()
    return _normalised(named, busy_seconds) if named else ""


def _normalised(named: str, busy_seconds: float) -> str:
    url = make_url(named)
    if url.drivername == "sqlite" and "timeout" not in url.query:
        url = url.update_query_dict({"timeout": str(busy_seconds)})
    if url.drivername in ("postgresql", "postgres") and _psycopg3_only():
        url = url.set(drivername="postgresql+psycopg")
    return url.render_as_string(hide_password=False)


def _psycopg3_only() -> bool:
    return importlib.util.find_spec("psycopg") is not None and importlib.util.find_spec("psycopg2") is None


def sqlite_file(url: str) -> pathlib.Path | None:
    """The file of a sqlite gradebook URL; None for any other database."""
    parsed = make_url(url)
    return pathlib.Path(parsed.database) if parsed.drivername.startswith("sqlite") and parsed.database else None


def open_gradebook(url: str, course_id: str | None = None) -> Gradebook:
    """nbgrader's Gradebook on ``url`` (tables created if new; nbgrader runs ``alembic`` for that)."""
    alembic_on_path()
    return Gradebook(url, course_id) if course_id else Gradebook(url)


@contextlib.contextmanager
def one_moment(gradebook: Gradebook):
    """Every read of the open ``gradebook`` inside sees it as of one moment (a read-only transaction, rolled back):
    a score read in several queries is never half before and half after a commit, as when the marking page saves a
    mark between the query of the scores and the query of the answers still pending. sqlite's driver (pysqlite)
    begins a transaction only before a write, so each query would see its own moment: here it is begun by hand,
    IMMEDIATE (sqlite's one writer lock, held for the few milliseconds of the read: a writer waits, as for any other,
    rather than both waiting for the other when something read creates its table); PostgreSQL reads in one snapshot
    (REPEATABLE READ)."""
    db = gradebook.db
    db.commit()  # whatever nbgrader's own calls began: the moment starts here
    dialect = db.get_bind().dialect.name
    connection = db.connection(execution_options={"isolation_level": "REPEATABLE READ"}) \
        if dialect == "postgresql" else db.connection()
    if dialect == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    try:
        yield gradebook
    finally:
        db.rollback()


def zero_submission(url: str, assignment: str, student: str, reason: str, notebook: str | None = None) -> None:
    """Every grade of ``student``'s submission of ``assignment`` (of its ``notebook`` only, when named) set to 0 and
    ``reason`` written into its comments: where the formgrader, nbgrader's API and the class report read why."""
    with open_gradebook(url) as gradebook:
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:  # stopped before nbgrader wrote its rows
            submission = gradebook.add_submission(assignment, student)
        for graded in submission.notebooks:
            if notebook is None or graded.name == notebook:
                for grade in graded.grades:
                    grade.auto_score, grade.needs_manual_grade = 0.0, False
                for comment in graded.comments:
                    comment.auto_comment = reason
        gradebook.db.commit()


def describe(url: str) -> str:
    """``url`` for a progress line: no password, no driver options."""
    return make_url(url).set(query={}).render_as_string(hide_password=True)


def alembic_env(env=None) -> dict:
    """A copy of ``env`` (default: this process's) with this interpreter's scripts first on PATH.

    nbgrader's Gradebook runs ``alembic`` as a subprocess when it opens a new database; a course
    command started by a venv's interpreter that is not on PATH would not find it.
    """
    env = dict(os.environ if env is None else env)
    scripts, path = os.path.dirname(sys.executable), env.get("PATH", "")
    if path.split(os.pathsep)[0] != scripts:
        env["PATH"] = os.pathsep.join([scripts, path]) if path else scripts
    return env


def alembic_on_path() -> None:
    """:func:`alembic_env` for this process (gradebooks opened here, nbgrader workers started from here)."""
    os.environ["PATH"] = alembic_env()["PATH"]


def submitted(query, assignment: str):
    """``query``, which has reached a submitted notebook (``SubmittedNotebook``), joined on to its submission, its
    student and the assignment, and kept to ``assignment``: the walk every reader of a class's rows takes."""
    return (query.join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
            .join(Student, SubmittedAssignment.student_id == Student.id)
            .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
            .filter(Assignment.name == assignment))

"""Which gradebook a class grading run writes to, and how it survives several writers at once.

nbgrader's default gradebook is ``sqlite:///<course>/gradebook.db``. sqlite lets one writer in
at a time; a second one waits only sqlite3's default 5 s and then fails with an
``OperationalError`` that nbgrader reports as "run `nbgrader db upgrade`" (and it deletes
that student's autograded folder). :func:`gradebook_url` gives the same file a longer busy
timeout: SQLAlchemy's pysqlite dialect passes the URL's ``?timeout=`` to ``sqlite3.connect``,
so every ``Gradebook`` nbgrader opens waits instead of failing.

A PostgreSQL gradebook (``postgresql://user@host/db``, nbgrader's ``CourseDirectory.db_url``)
lets several graders or machines share one gradebook; it is reached through psycopg 3.
"""
import importlib.util
import pathlib

from nbgrader.api import Gradebook
from sqlalchemy.engine import make_url

__all__ = ["BUSY_SECONDS", "gradebook_url", "open_gradebook", "describe"]

BUSY_SECONDS = 120  # a commit takes milliseconds; waiting this long means something is stuck


def gradebook_url(course: pathlib.Path, db_url: str = "", busy_seconds: float = BUSY_SECONDS) -> str:
    """The SQLAlchemy URL to grade into: ``db_url`` if given, else the course's own sqlite file.

    A sqlite URL gets ``timeout=busy_seconds`` unless it names one; ``postgresql://`` is read
    with psycopg 3 (SQLAlchemy's bare scheme means psycopg2, which the course does not install).
    """
    url = make_url(db_url or f"sqlite:///{pathlib.Path(course).resolve() / 'gradebook.db'}")
    if url.drivername == "sqlite" and "timeout" not in url.query:
        url = url.update_query_dict({"timeout": str(busy_seconds)})
    if url.drivername in ("postgresql", "postgres") and _psycopg3_only():
        url = url.set(drivername="postgresql+psycopg")
    return url.render_as_string(hide_password=False)


def _psycopg3_only() -> bool:
    return importlib.util.find_spec("psycopg") is not None and importlib.util.find_spec("psycopg2") is None


def open_gradebook(url: str, course_id: str) -> Gradebook:
    """nbgrader's Gradebook on ``url`` (tables created if new). Opened once before the workers start,
    so they never race to create the tables of a new database."""
    return Gradebook(url, course_id)


def describe(url: str) -> str:
    """``url`` for the progress header: no password, no driver options."""
    return make_url(url).set(query={}).render_as_string(hide_password=True)

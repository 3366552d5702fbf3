"""Does coursekit.gradebook_db make concurrent gradebook writers wait instead of failing?"""
import os
import pathlib
import sqlite3
import sys
import threading
import time

import pytest
import sqlalchemy
from nbgrader.api import Gradebook, InvalidEntry

from coursekit.gradebook_db import describe, gradebook_url


@pytest.fixture(autouse=True)
def venv_scripts_on_path(monkeypatch):
    """nbgrader runs `alembic` when it creates a gradebook: the venv's scripts must be on PATH."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ["PATH"]]))


def test_is_the_default_the_course_sqlite_file_with_a_busy_timeout(tmp_path):
    """No DB_URL: the course's gradebook.db (absolute), with sqlite's busy timeout raised?"""
    url = gradebook_url(tmp_path)
    assert url == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}?timeout=120"
    assert gradebook_url(tmp_path, "sqlite:////x/g.db?timeout=7") == "sqlite:////x/g.db?timeout=7"


def test_is_postgresql_reached_with_psycopg3_and_shown_without_password(tmp_path):
    """postgresql:// uses psycopg 3 (the installed driver); the header hides the password?"""
    pytest.importorskip("psycopg")
    url = gradebook_url(tmp_path, "postgresql://grader:secret@db.example:5432/gradebook")
    assert url.startswith("postgresql+psycopg://grader:secret@")
    assert "secret" not in describe(url) and "db.example:5432/gradebook" in describe(url)


def test_does_the_url_timeout_reach_sqlite3_connect(tmp_path, monkeypatch):
    """SQLAlchemy passes ``?timeout=`` of the URL to sqlite3.connect (not silently dropped)?"""
    seen = {}
    real_connect = sqlite3.dbapi2.connect

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(sqlite3.dbapi2, "connect", spy)  # the module SQLAlchemy's pysqlite dialect calls
    engine = sqlalchemy.create_engine(gradebook_url(tmp_path, busy_seconds=42))
    with engine.connect():
        pass
    engine.dispose()
    assert seen.get("timeout") == 42.0


def _hold_write_lock(path, seconds, ready):
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")  # what another grader's commit holds, here for `seconds`
    ready.set()
    time.sleep(seconds)
    connection.execute("COMMIT")
    connection.close()


@pytest.mark.parametrize("busy_seconds, waits", [(10, True), (0.2, False)])
def test_does_a_second_writer_wait_for_the_lock(tmp_path, busy_seconds, waits):
    """While another process holds the write lock for 1.5 s, a gradebook write waits (long timeout) or
    fails with sqlite's "database is locked" (short timeout, what nbgrader then calls a schema problem)?"""
    url = gradebook_url(tmp_path, busy_seconds=busy_seconds)
    Gradebook(url).close()  # tables created before the race
    ready = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(tmp_path / "gradebook.db", 1.5, ready))
    holder.start()
    ready.wait()
    try:
        with Gradebook(url) as gradebook:
            if waits:
                gradebook.add_student("waited")
                assert [s.id for s in gradebook.students] == ["waited"]
            else:
                with pytest.raises((sqlalchemy.exc.OperationalError, InvalidEntry), match="database is locked"):
                    gradebook.add_student("gave_up")
    finally:
        holder.join()

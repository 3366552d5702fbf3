"""Does coursekit.gradebook pick the gradebook by one rule, and make concurrent writers wait instead of failing?"""
import sqlite3
import threading
import time

import pytest
import sqlalchemy
from nbgrader.api import Gradebook, InvalidEntry

from coursekit.gradebook import alembic_env, describe, resolve_gradebook, sqlite_file
from support.synthetic_class import empty_gradebook


@pytest.fixture(autouse=True)
def no_db_url(monkeypatch):
    monkeypatch.delenv("DB_URL", raising=False)


def test_is_the_default_the_course_sqlite_file_with_a_busy_timeout(tmp_path):
    """No DB_URL, no config: the course's gradebook.db (absolute), with sqlite's busy timeout raised?"""
    url = resolve_gradebook(tmp_path)
    assert url == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}?timeout=120"
    assert sqlite_file(url) == tmp_path.resolve() / "gradebook.db"
    assert resolve_gradebook(tmp_path, "sqlite:////x/g.db?timeout=7") == "sqlite:////x/g.db?timeout=7"


def test_is_the_order_explicit_then_db_url_then_the_course_config_then_sqlite(tmp_path, monkeypatch):
    """Explicit URL, then DB_URL, then CourseDirectory.db_url in nbgrader_config.py, then the course's sqlite?"""
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.db_url = 'sqlite:////cfg.db'\n")
    assert resolve_gradebook(tmp_path) == "sqlite:////cfg.db?timeout=120"
    monkeypatch.setenv("DB_URL", "postgresql://127.0.0.1/env")
    assert resolve_gradebook(tmp_path).split("://")[1] == "127.0.0.1/env"
    assert resolve_gradebook(tmp_path, "sqlite:////explicit.db?timeout=5") == "sqlite:////explicit.db?timeout=5"
    assert sqlite_file(resolve_gradebook(tmp_path)) is None


def test_does_a_changed_config_count_at_once(tmp_path):
    """An instructor edits the config between two commands: the second sees the new gradebook?"""
    config = tmp_path / "nbgrader_config.py"
    config.write_text("c = get_config()\nc.CourseDirectory.db_url = 'sqlite:////one.db'\n")
    assert resolve_gradebook(tmp_path).startswith("sqlite:////one.db")
    config.write_text("c = get_config()\nc.CourseDirectory.db_url = 'sqlite:////two.db'  # edited\n")
    assert resolve_gradebook(tmp_path).startswith("sqlite:////two.db")


def test_does_alembic_env_put_this_interpreters_scripts_first_once(tmp_path):
    """The venv's scripts (nbgrader runs alembic) go first on PATH, and only once?"""
    import os
    import sys
    scripts = os.path.dirname(sys.executable)
    env = alembic_env({"PATH": "/usr/bin"})
    assert env["PATH"] == f"{scripts}{os.pathsep}/usr/bin" and alembic_env(env)["PATH"] == env["PATH"]


def test_is_postgresql_reached_with_psycopg3_and_shown_without_password(tmp_path):
    """postgresql:// uses psycopg 3 (the installed driver); the header hides the password?"""
    pytest.importorskip("psycopg")
    url = resolve_gradebook(tmp_path, "postgresql://grader:secret@db.example:5432/gradebook")
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
    engine = sqlalchemy.create_engine(resolve_gradebook(tmp_path, busy_seconds=42))
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
    """While another connection holds the write lock for 0.8 s, a gradebook write waits (long timeout) or
    fails with sqlite's "database is locked" (short timeout, what nbgrader then calls a schema problem)?"""
    url = resolve_gradebook(tmp_path, busy_seconds=busy_seconds)
    empty_gradebook(tmp_path / "gradebook.db")  # tables created before the race
    ready = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(tmp_path / "gradebook.db", 0.8, ready))
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

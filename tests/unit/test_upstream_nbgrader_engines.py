"""Do nbgrader's Gradebooks of one URL share one engine in a process (coursekit/upstream/nbgrader.py, share_engines),
a forked child and another URL get their own, and does a closed-and-reopened gradebook still read and
write as nbgrader's own would?"""
import os

import pytest
import sqlalchemy
from nbgrader import api
from nbgrader.api import Gradebook

from coursekit.upstream import nbgrader as shared_engine
from support.synthetic_class import empty_gradebook



@pytest.fixture(autouse=True, scope="module")
def _applied():
    """What the grading workers do before they build nbgrader's app."""
    shared_engine.share_engines()


def test_do_gradebooks_of_one_url_share_an_engine_and_others_not(tmp_path):
    first, other = empty_gradebook(tmp_path / "a.db"), empty_gradebook(tmp_path / "b.db")
    with Gradebook(first) as one, Gradebook(first) as two, Gradebook(other) as three:
        assert one.engine is two.engine
        assert three.engine is not one.engine


def test_does_a_reopened_gradebook_see_what_the_last_one_wrote(tmp_path):
    """Written, closed (the engine disposed of), opened again through the same engine: all there,
    and a second writer's rows too."""
    url = empty_gradebook(tmp_path / "gradebook.db")
    with Gradebook(url) as gradebook:
        gradebook.add_student("s1", first_name="一")
        engine = gradebook.engine
    with Gradebook(url) as gradebook:
        assert gradebook.engine is engine
        gradebook.add_student("s2")
    with Gradebook(url) as gradebook:
        assert sorted(s.id for s in gradebook.students) == ["s1", "s2"]
        assert gradebook.find_student("s1").first_name == "一"


def test_does_a_forked_child_make_its_own_engine(tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    parent = shared_engine.create_engine(url, future=True)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a new engine, not the parent's pool
        os.close(read)
        os.write(write, b"own" if shared_engine.create_engine(url, future=True) is not parent else b"shared")
        os._exit(0)
    os.close(write)
    answer = os.read(read, 16)
    os.waitpid(pid, 0)
    assert answer == b"own"
    assert shared_engine.create_engine(url, future=True) is parent


def test_is_it_idempotent():
    shared_engine.share_engines()
    shared_engine.share_engines()
    assert api.create_engine is shared_engine.create_engine and api.sessionmaker is shared_engine.sessionmaker


def test_does_each_gradebook_get_its_own_session_from_one_factory(tmp_path):
    """One Session class per engine (no new subclass per Gradebook), yet sessions of their own, each
    seeing what the other committed?"""
    url = empty_gradebook(tmp_path / "gradebook.db")
    with Gradebook(url) as one, Gradebook(url) as two:
        assert type(one.db()) is type(two.db()) and one.db() is not two.db()
        one.add_student("s1")
        assert [s.id for s in two.students] == ["s1"]
    with Gradebook(empty_gradebook(tmp_path / "other.db")) as other:
        assert type(other.db()) is not type(one.db())


def _statements(engine) -> list:
    seen = []
    sqlalchemy.event.listen(engine, "before_cursor_execute",
                            lambda conn, cursor, statement, *rest: seen.append(statement))
    return seen


def test_are_existing_tables_listed_in_one_query_instead_of_one_per_table(tmp_path):
    """nbgrader makes sure of every table in each Gradebook(): when all are there, no query per table?"""
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as first:
        seen = _statements(first.engine)
    with Gradebook(url) as again:
        again.add_student("s1")
    assert not [s for s in seen if "PRAGMA" in s], seen  # SQLAlchemy's has_table, once per table
    assert len([s for s in seen if "sqlite_master" in s]) == 2  # nbgrader's "does it exist" and the list
    assert any("INSERT INTO student" in s for s in seen)


def test_is_a_gradebook_made_again_checked_again(tmp_path):
    """Deleted and made afresh (a new file): its tables are created, as nbgrader's own Gradebook would."""
    path = tmp_path / "gradebook.db"
    url = f"sqlite:///{path}"
    with Gradebook(url) as gradebook:
        gradebook.add_student("s1")
    path.unlink()
    with Gradebook(url) as gradebook:
        gradebook.add_student("s2")
        assert [s.id for s in gradebook.students] == ["s2"]

"""Does coursekit.grades read the gradebook's points, and find the gradebook the way the course does?"""
import pytest

from coursekit.grades import CellGrade, db_url, read_class
from synthetic_class import ASSIGNMENT, small_class


@pytest.fixture(scope="module")
def grades(tmp_path_factory):
    return read_class(small_class(tmp_path_factory.mktemp("class")), ASSIGNMENT)


def test_students_and_cells(grades):
    """Are all gradebook students listed, and the autograded test cells told apart from manual answers?"""
    assert grades.students == ["alice", "bob", "carol", "dave", "erin", "frank", "hank"]
    assert [(c.name, c.max_score, c.autograded) for c in grades.cells] == [
        ("test1_scores", 4.0, True), ("test2_mask", 3.0, True), ("test3_softmax", 3.0, True),
        ("test4_end_to_end", 2.0, True), ("q_lab1_no_scale", 1.0, False), ("q_think1_scale", 1.0, False)]
    assert grades.max_total == 14.0


def test_auto_and_manual_scores(grades):
    """Is each cell's auto, manual and effective score the gradebook's, and the total their sum?"""
    assert grades.grades["alice"]["q_lab1_no_scale"] == CellGrade(None, 1.0, 1.0)
    assert grades.grades["carol"]["test2_mask"] == CellGrade(2.25, None, 2.25)
    assert grades.total("alice") == 13.0
    assert "frank" not in grades.grades and grades.total("frank") == 0.0


def test_not_graded_reason(grades):
    """Is record_zero's comment found as the reason a student was not graded?"""
    assert list(grades.not_graded) == ["dave"]
    assert grades.not_graded["dave"].startswith("Not graded automatically, scored 0: JSONDecodeError")


def test_a_missing_assignment_is_named(tmp_path):
    """Does asking for an assignment the gradebook lacks fail naming it?"""
    url = small_class(tmp_path)
    with pytest.raises(Exception, match="ch05"):
        read_class(url, "ch05")


def test_db_url_order(tmp_path, monkeypatch):
    """Explicit URL, then DB_URL, then CourseDirectory.db_url in nbgrader_config.py, then the course's sqlite,
    each opened as `make grade` opens it (sqlite waits for a busy writer)?"""
    monkeypatch.delenv("DB_URL", raising=False)
    assert db_url(tmp_path) == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}?timeout=120"
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.db_url = 'sqlite:////cfg.db'\n")
    assert db_url(tmp_path) == "sqlite:////cfg.db?timeout=120"
    monkeypatch.setenv("DB_URL", "postgresql://127.0.0.1/env")
    assert db_url(tmp_path).endswith("://127.0.0.1/env") and db_url(tmp_path).startswith("postgresql")
    assert db_url(tmp_path, "sqlite:////explicit.db?timeout=5") == "sqlite:////explicit.db?timeout=5"

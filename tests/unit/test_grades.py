"""Does coursekit.grades read the gradebook's points (cells, auto and manual scores, not-graded reasons)?"""
import pytest

from coursekit.grades import CellGrade, read_class
from support.synthetic_class import ASSIGNMENT, small_class


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


def test_a_submission_of_another_edition_counts_without_a_timestamp(tmp_path):
    """A student who submitted only another edition, which nbgrader recorded with no timestamp (collected from a
    folder without timestamp.txt), is found there; an edition nobody submitted names nobody?"""
    from nbgrader.api import Gradebook

    url = small_class(tmp_path)
    with Gradebook(url) as gradebook:
        for edition in ("other_edition", "unsubmitted_edition"):
            gradebook.add_assignment(edition)
        gradebook.add_submission("other_edition", "frank")
    grades = read_class(url, ASSIGNMENT, [ASSIGNMENT, "other_edition", "unsubmitted_edition"])
    assert grades.elsewhere == {"frank": ["other_edition"]}

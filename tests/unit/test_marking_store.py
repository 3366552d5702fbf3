"""Are judgements written where nbgrader keeps them (Grade.manual_score, Comment.manual_comment), one transaction each?"""
import functools
import shutil

import pytest
from nbgrader.api import Gradebook

from coursekit.marking.store import marked_counts, question_states, state_token, write_judgement
from support.written_answers import ASSIGNMENT, STUB, write_written_class

Q = "q_think1_scale"


@functools.lru_cache(maxsize=None)
def _template(folder):
    return write_written_class(folder, 12)


@pytest.fixture
def small(tmp_path_factory, tmp_path):
    """A 12-student written class, built once per session and copied for each test."""
    template = _template(tmp_path_factory.getbasetemp() / "written-12")
    shutil.copytree(template.course, tmp_path / "course")
    url = f"sqlite:///{tmp_path / 'course' / 'gradebook.db'}"
    gradebook = Gradebook(url)
    yield template, url, gradebook
    gradebook.close()


def test_does_a_group_judgement_land_in_nbgrader_for_every_member(small):
    written, url, gradebook = small
    group = written.students[:3]
    saved = write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q, {s: (0.5, "**评语**：好") for s in group}, {})
    assert set(saved.states) == set(group) and not saved.replaced
    for student in group:
        assert gradebook.find_grade(Q, ASSIGNMENT, ASSIGNMENT, student).manual_score == 0.5
        assert gradebook.find_grade(Q, ASSIGNMENT, ASSIGNMENT, student).needs_manual_grade is False
        assert gradebook.find_comment(Q, ASSIGNMENT, ASSIGNMENT, student).comment == "**评语**：好"
    assert marked_counts(gradebook.engine, ASSIGNMENT)[Q] == (3, 12)


def test_does_removing_a_score_flag_the_answer_for_manual_grading_again(small):
    written, url, gradebook = small
    student = next(s for s in written.students if written.answers[Q][s] != STUB)
    write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q, {student: (1.0, None)}, {})
    write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q, {student: (None, None)}, {})
    gradebook.db.expire_all()
    grade = gradebook.find_grade(Q, ASSIGNMENT, ASSIGNMENT, student)
    assert grade.manual_score is None and grade.needs_manual_grade is True


def test_is_an_overwrite_of_another_markers_judgement_reported_not_silent(small):
    """Marker B judges an answer after marker A changed it since B's page loaded: B is told what it replaced?"""
    written, url, gradebook = small
    student = written.students[0]
    seen_by_b = question_states(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q)[student].token
    write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q, {student: (1.0, "A")}, {student: seen_by_b})
    saved = write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q, {student: (0.0, "B")}, {student: seen_by_b})
    assert saved.replaced[student].score == 1.0 and saved.replaced[student].comment == "A"
    assert saved.states[student].token == state_token(0.0, "B")


def test_is_a_student_without_a_submission_named_not_invented(small):
    written, url, gradebook = small
    saved = write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q, {"nobody": (1.0, None)}, {})
    assert saved.missing == ["nobody"] and not saved.states

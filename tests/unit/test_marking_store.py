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
    left_blank = {s for s in written.students if written.answers[Q][s] == STUB} - set(group)  # nbgrader's own 0: done
    saved = write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q, {s: (0.5, "**评语**：好") for s in group}, {})
    assert set(saved.states) == set(group) and not saved.replaced
    for student in group:
        assert gradebook.find_grade(Q, ASSIGNMENT, ASSIGNMENT, student).manual_score == 0.5
        assert gradebook.find_grade(Q, ASSIGNMENT, ASSIGNMENT, student).needs_manual_grade is False
        assert gradebook.find_comment(Q, ASSIGNMENT, ASSIGNMENT, student).comment == "**评语**：好"
    assert marked_counts(gradebook.engine, ASSIGNMENT)[Q] == (3 + len(left_blank), 12)


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


def test_do_the_marking_page_and_the_report_agree_about_blank_answers_before_and_after_confirming(small):
    """#59 item 5: answers left as released are 0 on the feedback page; the marking page counts them done (not work
    left) and the report as not answered. A marker confirming every blank answer "not answered" (the page's x) changes
    neither count: the report still says who left the question blank, and the work left is the same everywhere."""
    from coursekit.grades import read_class
    from coursekit.marking.comment import Judgement, compose
    from coursekit.report.written import written_stats

    written, url, gradebook = small

    def counts():
        stat = next(s for s in written_stats(read_class(url, ASSIGNMENT)) if s.question == Q)
        done, total = marked_counts(gradebook.engine, ASSIGNMENT)[Q]
        return stat.unanswered, stat.to_mark, total - done

    blank = [s for s in written.students if written.answers[Q][s].strip() == STUB.strip()]
    before = counts()
    assert before[0] == sum(written.answers[Q][s] == STUB for s in written.students) > 0
    assert before[1] == before[2]  # the report's "to mark" is the marking page's work left
    write_judgement(gradebook.engine, ASSIGNMENT, ASSIGNMENT, Q,
                    {s: (0.0, compose(Judgement(unanswered=True), [], 0.0, 1.0)) for s in blank}, {})
    after = counts()
    assert after == (len(blank), before[1] - (len(blank) - before[0]), before[2] - (len(blank) - before[0]))
    assert after[1] == after[2]

"""Does the marking page list an assignment's regrade requests open first, and does a TA's decision record who and
when, change no mark by itself, and send the student's answer, feedback and LMS score after it?

coursekit.marking.requests on a synthetic class of 12 (support.written_answers) whose course config opens requests;
the students' requests are dropped in the course's exchange as their servers drop them. The feedback step is
replaced by a recorder (nbgrader's generate/release feedback themselves: tests/integration/test_hub.py).
"""
import shutil
import threading

import pytest
from sqlalchemy.orm import Session

from coursekit import regrade_book as book
from coursekit import regrades
from coursekit.lms import outbox
from coursekit.marking import requests as marking_requests
from coursekit.marking.course import MarkingCourse
from coursekit.marking.store import write_judgement
from coursekit.settings import course_settings
from support.written_answers import ASSIGNMENT, write_written_class

ANSWER, TEST = "q_think1_scale", "test1_scores"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return write_written_class(tmp_path_factory.mktemp("requests") / "course", 12)


class Feedback:
    """Stands in for nbgrader's generate/release feedback: records each call, and when it came."""

    def __init__(self):
        self.calls, self.done = [], threading.Event()

    def __call__(self, folder, assignment, students):
        self.calls.append((assignment, list(students)))
        self.done.set()


@pytest.fixture
def course(template, tmp_path, monkeypatch):
    monkeypatch.delenv("ATTN_EXCHANGE", raising=False)
    monkeypatch.delenv("DB_URL", raising=False)
    folder = shutil.copytree(template.course, tmp_path / "course")
    with open(folder / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f'\nc.CourseKit.regrade_deadlines = {{"{ASSIGNMENT}": "2099-01-01 00:00:00+00:00"}}\n')
    (folder / outbox.FOLDER).mkdir()  # connected to an LMS
    marking = MarkingCourse(folder)
    settings = course_settings(folder)
    book.take_in_course(folder, marking.engine)  # publishes the deadlines: the drop folder exists from here on
    yield marking, settings
    marking.close()


def _file(settings, student, question, reason="我觉得判错了。") -> regrades.Request:
    request = regrades.Request(regrades.new_id(), settings.course_id, student, ASSIGNMENT,
                               "2027-01-05 10:00:00.000000 UTC", question, reason, "zh", 0.0)
    regrades.drop(settings.exchange, settings.course_id, request)
    return request


def _listed(marking) -> list:
    book.take_in_course(marking.folder, marking.engine)
    names = marking.names(ASSIGNMENT)
    return marking_requests.board_requests(marking, ASSIGNMENT, names, {q.grade_id for q in marking.questions(ASSIGNMENT)})


def _score(marking, student, question):
    with Session(marking.engine) as db:
        return book.cell_score(db, ASSIGNMENT, student, question)


def test_are_the_requests_listed_open_first_with_names_reasons_and_scores(course):
    marking, settings = course
    first = _file(settings, "s001", ANSWER, "第二点 <我写到了> & 方差")
    _file(settings, "s002", TEST)
    listed = _listed(marking)
    by_student = {r["student"]: r for r in listed}
    assert {(r["student"], r["kind"], r["state"]) for r in listed} == {("s001", "answer", "open"),
                                                                      ("s002", "test", "open")}
    answer, test = by_student["s001"], by_student["s002"]
    assert answer["name"] == "思考题 1" and answer["reason"] == "第二点 <我写到了> & 方差"  # as text: the page escapes it
    assert test["name"].startswith("TEST 1") and test["score_then"] == test["score_now"]
    marking_requests.decide(marking, ASSIGNMENT, {"ids": [first.id], "comment": "维持。"}, "ta", {}, Feedback())
    assert [r["state"] for r in _listed(marking)] == ["open", "kept"]  # open ones first


def test_does_a_decision_follow_the_tas_new_mark_and_send_the_answer_feedback_and_lms(course):
    marking, settings = course
    request = _file(settings, "s003", ANSWER)
    _listed(marking)
    before = _score(marking, "s003", ANSWER)
    feedback = Feedback()
    write_judgement(marking.engine, ASSIGNMENT, ASSIGNMENT, ANSWER, {"s003": (1.0, None)}, {})  # the TA re-marks
    (decided,) = marking_requests.decide(marking, ASSIGNMENT, {"ids": [request.id], "comment": " 确实写到了 "},
                                         "ta-anna", {}, feedback)
    assert (decided.state, decided.score_then, decided.score_after) == (book.CHANGED, before, 1.0)
    assert decided.decided_by == "ta-anna" and decided.decided_at is not None and decided.comment == "确实写到了"
    status = regrades.read_status(settings.exchange, settings.course_id, request.id)
    assert (status["state"], status["comment"], status["score_after"]) == ("changed", "确实写到了", 1.0)
    assert feedback.done.wait(10) and feedback.calls == [(ASSIGNMENT, ["s003"])]
    assert [(m.assignment, m.student) for m in outbox.markers(marking.folder)] == [(ASSIGNMENT, "s003")]


def test_does_a_decision_without_a_new_mark_change_nothing_but_its_record(course):
    marking, settings = course
    request = _file(settings, "s004", TEST)
    _listed(marking)
    before = {q: _score(marking, "s004", q) for q in (ANSWER, TEST)}
    (decided,) = marking_requests.decide(marking, ASSIGNMENT, {"ids": [request.id], "comment": "隐藏检查没有通过。"},
                                         "ta", {}, Feedback())
    assert decided.state == book.KEPT and {q: _score(marking, "s004", q) for q in (ANSWER, TEST)} == before


def test_does_a_test_cells_decision_give_its_score_and_only_a_test_cells(course):
    marking, settings = course
    test, answer = _file(settings, "s005", TEST), _file(settings, "s005", ANSWER)
    _listed(marking)
    questions = {q.grade_id: q for q in marking.questions(ASSIGNMENT)}
    given = 3.5 if _score(marking, "s005", TEST) != 3.5 else 2.5
    (decided,) = marking_requests.decide(marking, ASSIGNMENT, {"ids": [test.id], "comment": "改分", "score": given},
                                         "ta", questions, Feedback())
    assert decided.state == book.CHANGED and _score(marking, "s005", TEST) == decided.score_after == given
    for body, says in (({"ids": [answer.id], "comment": "", "score": 1}, "re-marked on the page"),
                       ({"ids": [test.id, answer.id], "comment": "", "score": 9}, "re-marked on the page"),
                       ({"ids": ["x"], "comment": "x" * 3000}, "at most 2000"),
                       ({"ids": [], "comment": ""}, "a decision is"),
                       ({"ids": [answer.id], "comment": "", "score": "1"}, "a number or null")):
        with pytest.raises(marking_requests.DecisionError, match=says):
            marking_requests.decide(marking, ASSIGNMENT, body, "ta", questions, Feedback())
    assert [r.open for r in book.requests(marking.engine, ASSIGNMENT) if r.id == answer.id] == [True]

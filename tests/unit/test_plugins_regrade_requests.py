"""Does a student's own server offer the regrade dialog for their newest feedback, file a request into the exchange,
and refuse a bad one at once, in the submission's language (coursekit.plugins.regrade_requests)?

A student's nbgrader cache and the exchange on disk, as in test_plugins_feedback_watch.py; the server's handler is
a thin wrapper over :class:`Regrades` (the hub walk, tests/integration/test_hub.py, files one through it).
"""
import json

import pytest
from traitlets.config import Config

from coursekit import regrades
from coursekit.plugins import feedback_watch as fw
from coursekit.plugins.regrade_requests import Regrades
from coursekit.service import student_status as ss

A, COURSE_ID, STUDENT = "ch04_attention", "c1", "s1"
CELLS = [  # a written answer under its heading, a test cell under a task's
    {"cell_type": "markdown", "source": "### 思考题 1（1 分）", "metadata": {}},
    {"cell_type": "markdown", "source": "答案", "metadata": {"nbgrader": {"grade": True, "solution": True,
                                                                         "grade_id": "q_think1_scale", "points": 1}}},
    {"cell_type": "markdown", "source": "### 任务 2：实现 student_attention_scores", "metadata": {}},
    {"cell_type": "code", "source": "_score = 1", "metadata": {"nbgrader": {"grade": True, "solution": False,
                                                                           "grade_id": "test1_scores", "points": 4}}},
]


class Student:
    def __init__(self, tmp_path, deadline="2099-01-01 00:00:00+00:00"):
        self.cache, self.exchange = tmp_path / "cache", tmp_path / "exchange"
        self.watch = fw.FeedbackWatch(self.exchange, self.cache, COURSE_ID, tmp_path / "home")
        config = Config()
        config.CourseKit.regrade_deadlines = {A: deadline} if deadline else {}
        regrades.publish_deadlines(self.exchange, COURSE_ID, config, [A])
        self.regrades, self.n = Regrades(self.watch), 0

    def submit(self, language="zh") -> str:
        """A submission in the cache, as nbgrader's Submit keeps it, and its feedback released, its status published
        as the course publishes it: under when it arrived (coursekit.inbound), a moment after the student's own
        timestamp, which names the page. The path of its feedback page."""
        self.n += 1
        stamp = f"2027-01-0{self.n} 10:00:00.000000 UTC"
        folder = self.cache / COURSE_ID / f"{STUDENT}+{A}+{stamp}"
        folder.mkdir(parents=True)
        metadata = {"edition": {"language": language}} if language != "zh" else {}
        (folder / f"{A}.ipynb").write_text(json.dumps({"cells": CELLS, "metadata": metadata}), encoding="utf-8")
        (folder / "submission_secret.txt").write_text(f"{self.n:02x}" * 64)
        arrived = stamp.replace("10:00:00.000000", "10:00:01.500000")
        ss.publish(self.exchange, COURSE_ID, f"{self.n:02x}" * 64, ss.released(A, arrived, score=4.0, max_score=5.0))
        self.watch.look()
        return f"{A}/feedback/{stamp}/{A}.html"

    def dropped(self) -> list:
        return sorted((self.exchange / COURSE_ID / regrades.FOLDER).glob("*.json"))


def test_does_the_dialog_list_the_submissions_cells_by_name_with_the_deadline_and_its_words(tmp_path):
    student = Student(tmp_path)
    form = student.regrades.form(student.submit())
    assert form["open"] and form["closed"] == "" and form["most"] == regrades.REASON_MOST
    assert form["questions"] == [{"id": "q_think1_scale", "name": "思考题 1"},
                                 {"id": "test1_scores", "name": "任务 2：实现 student_attention_scores"}]
    assert form["words"]["button"] == "申请复查" and "2099-01-01 00:00" in form["words"]["until"]
    english = Student(tmp_path / "en")
    assert english.regrades.form(english.submit("en"))["words"]["button"] == "Request a regrade"


def test_is_a_request_filed_into_the_exchange_and_listed_with_the_courses_answer(tmp_path):
    student = Student(tmp_path)
    page = student.submit()
    request, said = student.regrades.file(page, "q_think1_scale", "方差那一点我写到了。")
    (path,) = student.dropped()
    assert json.loads(path.read_text(encoding="utf-8"))["reason"] == "方差那一点我写到了。"
    assert "思考题 1" in said and path.name == f"{STUDENT}+{A}+{request.id}.json"
    assert [r["state"] for r in student.regrades.form(page)["requests"]] == ["open"]
    regrades.publish_status(student.exchange, COURSE_ID, request.id,
                            {"state": "changed", "comment": "确实写到了", "score_then": 0.5, "score_after": 1.0})
    (listed,) = student.regrades.form(page)["requests"]
    assert (listed["state"], listed["comment"], listed["score_after"]) == ("changed", "确实写到了", 1.0)


@pytest.mark.parametrize("question, reason, kind", [
    ("q_think1_scale", "x" * 100_000, "too_long"),
    ("q_think1_scale", "<iframe src=//evil>", "markup"),
    ("q_think1_scale", "\x1b[2J\x1b[H cleared", "control"),
    ("q_forged", "a reason", "question"),
    (["q_think1_scale"], "a reason", "question"),
    ("q_think1_scale", None, "empty"),
])
def test_is_a_bad_request_refused_at_once_and_nothing_written(tmp_path, question, reason, kind):
    student = Student(tmp_path)
    page = student.submit()
    with pytest.raises(regrades.Refusal) as refused:
        student.regrades.file(page, question, reason)
    assert refused.value.kind == kind and student.dropped() == [] and student.regrades.form(page)["requests"] == []


def test_is_a_second_open_request_an_old_submission_or_a_closed_assignment_refused(tmp_path):
    """The course publishes each feedback's status under the submission's arrival, not the student's own time (the
    cache's and the page's; Student.submit): the newest is still the newest."""
    student = Student(tmp_path)
    old = student.submit()
    page = student.submit()
    with pytest.raises(regrades.Refusal, match="not_newest"):
        student.regrades.file(old, "q_think1_scale", "reason")
    assert student.regrades.form(old)["open"] is False
    student.regrades.file(page, "q_think1_scale", "reason")
    with pytest.raises(regrades.Refusal, match="already"):
        student.regrades.file(page, "q_think1_scale", "again")
    student.regrades.file(page, "test1_scores", "another cell is fine")
    closed = Student(tmp_path / "closed", deadline=None)
    form = closed.regrades.form(closed.submit())
    assert form["open"] is False and form["closed"] == regrades.Refusal("closed").message("zh")
    late = Student(tmp_path / "late", deadline="2000-01-01 00:00:00+00:00")
    with pytest.raises(regrades.Refusal, match="late"):
        late.regrades.file(late.submit(), "q_think1_scale", "reason")


def test_is_a_page_of_no_submission_of_theirs_refused(tmp_path):
    student = Student(tmp_path)
    student.submit()
    for page in ("../../etc/passwd", f"{A}/feedback/2026-01-01 00:00:00.000000 UTC/{A}.html", ""):
        with pytest.raises(regrades.Refusal, match="malformed"):
            student.regrades.form(page)

"""Is a regrade request refused clearly when it should be, taken in from the exchange only when it passes again, and
kept in the gradebook with the TA's decision, who and when, without changing a mark by itself?

coursekit.regrades (what may be filed; the exchange's drop folder) and coursekit.regrade_book (the gradebook's
table) on a synthetic class of 12 (support.written_answers), as the student's server and the marking page call them.
"""
import datetime
import os
import shutil

import pytest
from traitlets.config import Config

from coursekit import regrade_book as book
from coursekit import regrades
from coursekit.inbound import Limits
from coursekit.marking.store import write_judgement
from support.written_answers import ASSIGNMENT, write_written_class

UTC = datetime.timezone.utc
NOW = datetime.datetime(2027, 1, 10, 12, 0, tzinfo=UTC)
OPEN_UNTIL = datetime.datetime(2027, 1, 22, 23, 59, tzinfo=UTC)
QUESTIONS = ("q_think1_scale", "test1_scores")
ESC = "\x1b"

REFUSED_REASONS = [  # (the reason, the refusal's kind)
    ("x" * 100_000, "too_long"),
    ("", "empty"),
    ("   \n  ", "empty"),
    ("<script>alert(1)</script>我写对了", "markup"),
    ('<img src=x onerror="fetch(1)">', "markup"),
    ("点我 &lt;b&gt;", "markup"),
    (f"{ESC}[31m红色{ESC}[0m 判错了", "control"),
    ("正常的话\u202e反过来", "control"),
    ("bell\x07", "control"),
]


def _request(question="q_think1_scale", reason="第二个要点我写到了：方差约为 head_dim。", **changes) -> regrades.Request:
    fields = dict(id=regrades.new_id(), course_id="c", student="s001", assignment=ASSIGNMENT,
                  submission="2027-01-05 10:00:00.000000 UTC", question=question, reason=reason, language="zh",
                  filed=0.0)
    return regrades.Request(**{**fields, **changes})


@pytest.mark.parametrize("reason, kind", REFUSED_REASONS, ids=[k + str(i) for i, (_, k) in enumerate(REFUSED_REASONS)])
def test_is_a_bad_reason_refused_with_a_sentence_in_each_language(reason, kind):
    with pytest.raises(regrades.Refusal) as refused:
        regrades.check(_request(reason=reason), QUESTIONS, OPEN_UNTIL, NOW)
    assert refused.value.kind == kind
    assert "没有提交" in refused.value.message("zh") and "Not sent" in refused.value.message("en")


def test_is_a_plain_reason_in_any_script_filed_as_written_less_its_outer_blanks():
    reason = "  我觉得第 2 点写到了（a < b 时也成立），see line 3:\n\t“exp(0) = 1”  "
    assert regrades.check(_request(reason=reason), QUESTIONS, OPEN_UNTIL, NOW).reason == reason.strip()


@pytest.mark.parametrize("changes, deadline, kind", [
    ({"question": "q_forged"}, OPEN_UNTIL, "question"),
    ({"question": "../../gradebook"}, OPEN_UNTIL, "question"),
    ({}, None, "closed"),
    ({}, NOW - datetime.timedelta(seconds=1), "late"),
    ({"id": "not-hex"}, OPEN_UNTIL, "malformed"),
    ({"student": "s001+s002"}, OPEN_UNTIL, "malformed"),
])
def test_is_a_forged_question_a_closed_or_late_assignment_refused(changes, deadline, kind):
    with pytest.raises(regrades.Refusal) as refused:
        regrades.check(_request(**changes), QUESTIONS, deadline, NOW)
    assert refused.value.kind == kind and refused.value.message("en")


def test_does_a_deadline_come_from_the_config_an_editions_from_its_master():
    config = Config()
    config.CourseKit.assignments = {"a": {}, "a_en": {"edition_of": "a", "language": "en"}}
    config.CourseKit.regrade_deadlines = {"a": "2027-01-22 23:59:00+08:00"}
    assert regrades.deadline_of(config, "a_en") == regrades.deadline_of(config, "a") == \
        datetime.datetime(2027, 1, 22, 15, 59, tzinfo=UTC)
    assert regrades.deadline_of(config, "b") is None


# ---- the exchange and the gradebook ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return write_written_class(tmp_path_factory.mktemp("regrades") / "course", 12)


@pytest.fixture
def course(template, tmp_path):
    folder = shutil.copytree(template.course, tmp_path / "course")
    url = f"sqlite:///{folder / 'gradebook.db'}"
    from sqlalchemy import create_engine
    engine = create_engine(url)
    exchange = tmp_path / "exchange"
    config = Config()
    config.CourseKit.regrade_deadlines = {ASSIGNMENT: "2099-01-01 00:00:00+00:00"}
    regrades.publish_deadlines(exchange, "c", config, [ASSIGNMENT])
    yield folder, engine, exchange, config
    engine.dispose()


def _scores(engine, student):
    with engine.connect() as connection:
        from sqlalchemy.orm import Session
        with Session(connection) as db:
            return {q: book.cell_score(db, ASSIGNMENT, student, q) for q in QUESTIONS}


def test_is_a_request_dropped_by_a_student_taken_into_the_gradebook_and_its_file_removed(course):
    folder, engine, exchange, config = course
    before = _scores(engine, "s001")
    dropped = regrades.drop(exchange, "c", _request())
    assert oct(os.stat(exchange / "c" / regrades.FOLDER).st_mode & 0o7777) == "0o1733"
    stored, refused = book.take_in(engine, exchange, "c", config, Limits())
    assert refused == [] and [r.question for r in stored] == ["q_think1_scale"] and not dropped.exists()
    (record,) = book.requests(engine, ASSIGNMENT)
    assert record.open and record.score_then == before["q_think1_scale"] and record.notebook == ASSIGNMENT
    assert _scores(engine, "s001") == before  # a request changes no mark
    assert book.take_in(engine, exchange, "c", config, Limits()) == ([], [])


@pytest.mark.parametrize("make, kind", [
    (lambda ex: regrades.drop(ex, "c", _request(question="q_forged")), "question"),
    (lambda ex: regrades.drop(ex, "c", _request(reason="x" * 3000)), "too_long"),
    (lambda ex: regrades.drop(ex, "c", _request(reason="<b>hi</b>")), "markup"),
    (lambda ex: regrades.drop(ex, "c", _request(reason=f"{ESC}]0;title{ESC}\\")), "control"),
    (lambda ex: regrades.drop(ex, "c", _request(student="s999")), "question"),   # no submission of theirs
    (lambda ex: (ex / "c" / regrades.FOLDER / f"s001+{ASSIGNMENT}+{'a' * 32}.json").write_bytes(b"{" * 100_000),
     "malformed"),
    (lambda ex: (ex / "c" / regrades.FOLDER / f"s001+{ASSIGNMENT}+{'b' * 32}.json").symlink_to("/etc/passwd"),
     "malformed"),
    (lambda ex: (ex / "c" / regrades.FOLDER / f"s002+{ASSIGNMENT}+{'c' * 32}.json").write_text(
        __import__("json").dumps(_request(id="c" * 32).to_dict())), "malformed"),  # named for s002, s001's inside
])
def test_is_a_request_written_by_hand_refused_removed_and_nothing_else_changed(course, make, kind):
    folder, engine, exchange, config = course
    before = {s: _scores(engine, s) for s in ("s001", "s002")}
    make(exchange)
    stored, refused = book.take_in(engine, exchange, "c", config, Limits())
    assert stored == [] and [r.kind for _, r in refused] == [kind]
    assert book.requests(engine, ASSIGNMENT) == [] and os.listdir(exchange / "c" / regrades.FOLDER) == []
    assert {s: _scores(engine, s) for s in ("s001", "s002")} == before



def test_is_the_table_made_again_when_the_gradebook_lost_it_under_a_running_process(course):
    folder, engine, exchange, config = course
    assert book.requests(engine, ASSIGNMENT) == []
    with engine.begin() as connection:  # the gradebook replaced by one without the table (a restore, a reset)
        book.TABLE.drop(connection)
    regrades.drop(exchange, "c", _request())
    stored, refused = book.take_in(engine, exchange, "c", config, Limits())
    assert refused == [] and [r.student for r in book.requests(engine, ASSIGNMENT)] == ["s001"]

def test_is_a_request_after_the_deadline_or_a_second_open_one_refused_at_intake(course):
    folder, engine, exchange, config = course
    regrades.drop(exchange, "c", _request())
    regrades.drop(exchange, "c", _request())  # the same question again, while the first is open
    stored, refused = book.take_in(engine, exchange, "c", config, Limits())
    assert len(stored) == 1 and [r.kind for _, r in refused] == ["already"]
    config.CourseKit.regrade_deadlines = {ASSIGNMENT: "2000-01-01 00:00:00+00:00"}
    regrades.drop(exchange, "c", _request(question="test1_scores"))
    assert [r.kind for _, r in book.take_in(engine, exchange, "c", config, Limits())[1]] == ["late"]


def test_is_a_decision_kept_or_changed_by_the_mark_with_who_and_when_and_counted(course):
    folder, engine, exchange, config = course
    for question in QUESTIONS:
        regrades.drop(exchange, "c", _request(question=question))
    regrades.drop(exchange, "c", _request(student="s002"))
    book.take_in(engine, exchange, "c", config, Limits())
    answer, test = (next(r for r in book.requests(engine, ASSIGNMENT) if (r.student, r.question) == ("s001", q))
                    for q in QUESTIONS)
    write_judgement(engine, ASSIGNMENT, ASSIGNMENT, "q_think1_scale", {"s001": (1.0, None)}, {})  # the TA re-marks
    at = datetime.datetime(2027, 1, 11, 9, 30, tzinfo=UTC)
    (changed,) = book.decide(engine, [answer.id], "第二点确实写到了。", "ta-anna", at)
    (kept,) = book.decide(engine, [test.id], "TEST 1 的隐藏检查确实没有通过。", "ta-anna", at)
    assert (changed.state, changed.score_after, changed.decided_by) == (book.CHANGED, 1.0, "ta-anna")
    assert (kept.state, kept.score_after, kept.decided_at) == (book.KEPT, test.score_then, at.replace(tzinfo=None))
    assert book.decide(engine, [answer.id], "again", "ta-bob") == []  # decided once
    listed = book.requests(engine, ASSIGNMENT)
    assert listed[0].open and listed[0].student == "s002"  # open requests first
    assert book.counts(engine, ASSIGNMENT) == {
        "q_think1_scale": {"filed": 2, "open": 1, "changed": 1, "kept": 0},
        "test1_scores": {"filed": 1, "open": 0, "changed": 0, "kept": 1}}


def test_does_the_student_read_only_their_requests_answer_by_its_id(course):
    folder, engine, exchange, config = course
    request = _request()
    regrades.publish_status(exchange, "c", request.id, {"state": "kept", "comment": "ok"})
    assert regrades.read_status(exchange, "c", request.id) == {"state": "kept", "comment": "ok"}
    assert regrades.read_status(exchange, "c", regrades.new_id()) is None
    assert regrades.read_status(exchange, "c", "../../x") is None
    assert oct(os.stat(exchange / "c" / regrades.STATUS_FOLDER).st_mode & 0o777) == "0o711"
    assert regrades.read_deadlines(exchange, "c") == {ASSIGNMENT: datetime.datetime(2099, 1, 1, tzinfo=UTC)}

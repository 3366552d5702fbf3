"""Does the student's server see their submissions' feedback status change, and only theirs
(coursekit.plugins.feedback_watch)?

A student's nbgrader cache and the exchange on disk, as nbgrader's Submit and the course's publishers
leave them; :meth:`FeedbackWatch.look` is what the server does every half second. The event it emits
is checked against its schema with Jupyter's own event logger. tests/integration/test_hub.py
watches the same in a student's server on the hub, in Chromium.
"""
import asyncio
import json
import os

import pytest
from jupyter_events import EventLogger

from coursekit.plugins import lab_locale
from coursekit.plugins import feedback_watch as fw
from coursekit.service import student_status as ss
from coursekit.service.policy import ATTEMPTS, COOLDOWN

A, COURSE_ID, STUDENT = "ch04_attention", "c1", "s1"


class Student:
    """s1's cache (what Submit keeps) and the exchange (what the service publishes)."""

    def __init__(self, tmp_path):
        self.cache, self.exchange, self.n = tmp_path / "cache", tmp_path / "exchange", 0
        self.home = tmp_path / "home"
        self.watch = fw.FeedbackWatch(self.exchange, self.cache, COURSE_ID, self.home, STUDENT,
                                      lab_settings=self.home / ".jupyter-lab-settings")

    def submit(self, assignment=A, language=None, secret_written=True) -> tuple:
        """A submission in the cache (its notebook of ``language``'s edition); (timestamp, secret)."""
        self.n += 1
        stamp, secret = f"2026-12-01 10:00:{self.n:02d}.000000 UTC", f"{self.n:02x}" * 64
        folder = self.cache / COURSE_ID / f"{STUDENT}+{assignment}+{stamp}"
        folder.mkdir(parents=True)
        metadata = {"edition": {"language": language}} if language else {}
        (folder / f"{assignment}.ipynb").write_text(json.dumps({"cells": [], "metadata": metadata}))
        (folder / "submission_secret.txt").write_text(secret if secret_written else secret[:40])
        return stamp, secret

    def publish(self, secret, status):
        ss.publish(self.exchange, COURSE_ID, secret, status)


def _states(found) -> list:
    return [(status["timestamp"], status["state"], status.get("reason", "")) for status in found]


def test_is_a_new_submission_news_once_then_each_status_once(tmp_path):
    """Submit: "submitted" once; nothing new: nothing; the service holds it: told once; released, then
    released again after marking (a new file, the same size): told each time."""
    me = Student(tmp_path)
    assert me.watch.look() == []
    stamp, secret = me.submit()
    assert _states(me.watch.look()) == [(stamp, ss.SUBMITTED, "")]
    assert me.watch.look() == []
    me.publish(secret, ss.held(A, stamp, ss.PAUSED, now=1.0))
    assert _states(me.watch.look()) == [(stamp, ss.WAITING, ss.PAUSED)]
    me.publish(secret, ss.released(A, stamp, score=12.0, max_score=20.0, pending=8, now=2.0))
    (found,) = me.watch.look()
    assert (found["state"], found["score"], found["max_score"], found["pending"]) == (ss.RELEASED, 12.0, 20.0, 8)
    me.publish(secret, ss.released(A, stamp, score=14.0, max_score=20.0, pending=0, now=3.0))
    assert [(s["score"], s["published"]) for s in me.watch.look()] == [(14.0, 3.0)]
    assert me.watch.look() == []


def test_is_a_status_the_course_published_under_the_arrival_named_by_the_students_own_time(tmp_path):
    """The course publishes a submission's status under when it arrived (coursekit.inbound), a moment after the
    student's own timestamp: the Lab still hears of it by the student's (their feedback folder's, their list's row)."""
    me = Student(tmp_path)
    stamp, secret = me.submit()
    me.watch.look()
    arrived = stamp.replace(":01.000000", ":02.250000")
    me.publish(secret, ss.released(A, arrived, score=12.0, max_score=20.0, pending=8, now=2.0))
    assert _states(me.watch.look()) == [(stamp, ss.RELEASED, "")]
    assert _states(me.watch.newest()) == [(stamp, ss.RELEASED, "")]


def test_is_a_submission_whose_secret_is_still_being_written_not_one_yet(tmp_path):
    """Submit writes the secret last: a short one is not a submission yet (its status could not be named)."""
    me = Student(tmp_path)
    stamp, secret = me.submit(secret_written=False)
    assert me.watch.look() == []
    (me.cache / COURSE_ID / f"{STUDENT}+{A}+{stamp}" / "submission_secret.txt").write_text(secret)
    assert _states(me.watch.look()) == [(stamp, ss.SUBMITTED, "")]


def test_is_another_students_status_never_seen(tmp_path):
    """Statuses published under secrets not in this student's cache are not this student's news."""
    me = Student(tmp_path)
    stamp, _ = me.submit()
    me.watch.look()
    me.publish("ff" * 64, ss.released(A, stamp, score=20.0, max_score=20.0, now=1.0))
    assert me.watch.look() == []


def test_does_the_lab_get_the_newest_submission_per_assignment_with_course_and_language(tmp_path):
    """newest(): per assignment its newest submission (by nbgrader's timestamp), the course id, the edition's
    language (English when the notebook says so, Chinese when it says nothing or something unknown)."""
    me = Student(tmp_path)
    me.submit(language="en")
    newer, _ = me.submit(language="en")
    other, _ = me.submit(assignment="ch05", language="fr")
    me.watch.look()
    found = {s["assignment"]: (s["timestamp"], s["course_id"], s["language"]) for s in me.watch.newest()}
    assert found == {A: (newer, COURSE_ID, "en"), "ch05": (other, COURSE_ID, "zh")}


def test_is_the_students_language_the_edition_they_fetched_last(tmp_path):
    """The Assignment List's language: before any fetch none (their Lab asks their browser), or the one their LMS
    launch named (a folder that is no released assignment does not count), then the edition of the released
    assignment whose fetched folder changed last?"""
    me = Student(tmp_path)
    assert me.watch.language() == ""  # no exchange yet
    for assignment in ("ch04_attention", "ch04_attention_en"):
        (me.exchange / COURSE_ID / "outbound" / assignment).mkdir(parents=True)
    (me.home / "notes").mkdir(parents=True)
    assert me.watch.language() == ""
    lab_locale.follow("en", me.watch.lab_settings)  # an LMS launch in English landed
    assert me.watch.language() == "en"
    lab_locale.follow("zh", me.watch.lab_settings)
    english = me.home / "ch04_attention_en"
    english.mkdir()
    (english / "ch04_attention_en.ipynb").write_text(json.dumps({"cells": [], "metadata": {"edition": {"language": "en"}}}))
    assert me.watch.language() == "en"
    chinese = me.home / "ch04_attention"
    chinese.mkdir()
    (chinese / "ch04_attention.ipynb").write_text(json.dumps({"cells": [], "metadata": {}}))
    os.utime(chinese, (english.stat().st_mtime + 1,) * 2)
    assert me.watch.language() == "zh"


def test_is_grading_said_only_for_what_the_service_announced_it_grades(tmp_path):
    """No announcement (no service): not automatic; the service announces the assignment: automatic, read
    again when the announcement changes (switched off again: not automatic)."""
    me = Student(tmp_path)
    me.submit()
    me.watch.look()
    assert [s["automatic"] for s in me.watch.newest()] == [False]
    ss.announce(me.exchange, COURSE_ID, [A, "ch05"])
    assert [s["automatic"] for s in me.watch.newest()] == [True]
    ss.announce(me.exchange, COURSE_ID, ["ch05"])
    assert [s["automatic"] for s in me.watch.newest()] == [False]


@pytest.mark.parametrize("status", [
    ss.FeedbackStatus(A, "t", ss.SUBMITTED),
    ss.held(A, "t", COOLDOWN, until=60.5, now=1.0),
    ss.held(A, "t", ATTEMPTS, limit=3, now=1.0),
    ss.released(A, "t", graded=False, now=1.0),
    ss.released(A, "t", score=12.5, max_score=20.0, pending=8, now=1.0),
])
def test_does_every_status_pass_the_events_schema_unchanged(status):
    """What the server emits is valid for the schema it registers, and the Lab receives it field for field."""
    events, got = EventLogger(), []
    events.register_event_schema(fw.SCHEMA)
    sent = {**status.to_dict(), "course_id": COURSE_ID, "language": "zh", "automatic": True}

    async def listen(logger, schema_id, data):  # jupyter_events calls listeners by these keywords
        got.append((schema_id, data))

    async def emit():
        events.add_listener(schema_id=fw.SCHEMA_ID, listener=listen)
        events.emit(schema_id=fw.SCHEMA_ID, data=sent)
        await asyncio.sleep(0.05)

    asyncio.run(emit())
    assert got == [(fw.SCHEMA_ID, sent)]


def test_does_the_student_see_the_due_dates_and_their_own_extension_only(tmp_path):
    """The dates the course published: every assignment's due date, and this student's extension, never another's
    (theirs lives in a folder of their own, closed to others); a withdrawn one is gone; nothing published: none."""
    me = Student(tmp_path)
    assert me.watch.dates() == {}
    due = {A: "2027-01-15T15:59:00+00:00", "ch04_attention_en": "2027-01-15T15:59:00+00:00"}
    ss.publish_dates(me.exchange, COURSE_ID, due, {STUDENT: {A: "2027-01-17T15:59:00+00:00"},
                                                   "s2": {A: "2027-01-30T15:59:00+00:00"}})
    assert me.watch.dates() == {A: {"due": due[A], "until": "2027-01-17T15:59:00+00:00"},
                                "ch04_attention_en": {"due": due[A], "until": None}}
    theirs = ss.student_folder(me.exchange, COURSE_ID, "s2")
    assert os.stat(theirs).st_mode & 0o777 == 0o700  # no hub made it for s2: the instructor's alone
    ss.publish_dates(me.exchange, COURSE_ID, due, {STUDENT: {}})
    assert me.watch.dates()[A]["until"] is None


@pytest.mark.parametrize("student", ["", "..", "a/b"])
def test_is_a_student_id_that_names_no_folder_of_theirs_refused(tmp_path, student):
    with pytest.raises(ValueError, match="not a student id"):
        ss.student_folder(tmp_path, COURSE_ID, student)


def test_is_what_the_lab_told_the_student_kept_by_their_server_for_every_log_in(tmp_path):
    """The Lab sends back each notice it showed: the student's server keeps it in their Jupyter data folder, so a Lab
    opened later (another browser, another log-in) is told it was shown and says nothing again (#59 item 8); a newer
    key replaces the older; what is not a short text is refused, nothing kept of it?"""
    told_file = tmp_path / "data" / fw.TOLD_FILE
    watch = fw.FeedbackWatch(tmp_path / "exchange", tmp_path / "cache", COURSE_ID, tmp_path / "home", "s1", told_file=told_file)
    assert watch.told() == {}
    watch.remember({A: "2026-12-01 10:00:01.000000 UTC|released||1"})
    watch.remember({"other": "x|submitted||0"})
    watch.remember({A: "2026-12-01 10:00:02.000000 UTC|released||5"})
    later = fw.FeedbackWatch(tmp_path / "exchange", tmp_path / "cache", COURSE_ID, tmp_path / "home", "s1", told_file=told_file)
    assert later.told() == {A: "2026-12-01 10:00:02.000000 UTC|released||5", "other": "x|submitted||0"}
    for bad in ({A: 3}, [A], {A: "x" * 201}):
        with pytest.raises(ValueError, match="told must map assignments to keys"):
            later.remember(bad)
    assert later.told() == watch.told()

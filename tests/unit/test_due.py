"""Is a piece of work's due date one (the master's, both editions'), and is an extension recorded with who, when and
why, refused with a clear reason when it makes no sense, and given to nbgrader's own columns?"""
import datetime

import pytest
from nbgrader.api import Gradebook

from coursekit import due
from support.late_class import DAY, DUE, EDITION, MASTER, config, course, submit


@pytest.mark.parametrize("text, timezone, expected", [
    ("2027-01-15 23:59", "Asia/Shanghai", datetime.datetime(2027, 1, 15, 15, 59)),
    ("2027-01-15T23:59:00+08:00", "UTC", datetime.datetime(2027, 1, 15, 15, 59)),
    ("2027-01-15 15:59Z", "Asia/Shanghai", datetime.datetime(2027, 1, 15, 15, 59)),
    ("2027-01-15", "UTC", datetime.datetime(2027, 1, 15, 23, 59, 59)),  # a day: until its end
])
def test_a_date_is_read_in_the_courses_zone_unless_it_names_one(text, timezone, expected):
    assert due.parse_when(text, timezone) == expected


@pytest.mark.parametrize("text", ["next friday", "2027-13-01", "15/01/2027", ""])
def test_a_date_that_does_not_parse_is_refused_naming_what_was_expected(text):
    with pytest.raises(due.BadExtension) as refused:
        due.parse_when(text, "Asia/Shanghai")
    assert str(refused.value) == (f"UNTIL={text!r} is not a date: write it as 2027-01-20 23:59 (in Asia/Shanghai) or "
                                  "with its zone, 2027-01-20 23:59+08:00")


@pytest.fixture
def gradebook(tmp_path):
    url = course(tmp_path / "gradebook.db")
    submit(url, "alice", DUE + DAY, assignment=EDITION)
    with Gradebook(url) as gradebook:
        yield gradebook


def _rows(gradebook):
    return due.extensions_of(gradebook, MASTER, config(), history=True)


@pytest.mark.parametrize("student, until, message", [
    ("mallory", DUE + DAY, "STUDENT='mallory' is not a student of this course's gradebook (it has 3: alice, bob, carol)"),
    ("alice", DUE - DAY, "UNTIL=2027-01-14 15:59 (UTC+00:00) is not after ch04_attention's due date, "
                         "2027-01-15 15:59 (UTC+00:00): an extension gives more time"),
    ("alice", DUE, "UNTIL=2027-01-15 15:59 (UTC+00:00) is not after"),
])
def test_a_senseless_extension_is_refused_and_changes_nothing(gradebook, student, until, message):
    """An unknown student, an end before (or at) the due date: refused, saying why, nothing written?"""
    with pytest.raises(due.BadExtension) as refused:
        due.grant(gradebook, MASTER, student, until, "", "teacher", config())
    assert str(refused.value).startswith(message)
    assert _rows(gradebook) == {}
    assert gradebook.find_submission(EDITION, "alice").extension is None


def test_work_without_a_due_date_takes_no_extension(tmp_path):
    url = course(tmp_path / "gradebook.db", due=None)
    with Gradebook(url) as gradebook, pytest.raises(due.BadExtension, match="has no due date"):
        due.grant(gradebook, MASTER, "alice", DUE, "", "teacher", config())


def test_an_unknown_assignment_is_refused(gradebook):
    with pytest.raises(due.BadExtension, match="ASSIGNMENT='ch09' is not in the gradebook"):
        due.grant(gradebook, "ch09", "alice", DUE + DAY, "", "teacher", config())


def test_an_extension_is_kept_with_who_when_and_why_and_reaches_both_editions(gradebook):
    """Granted on the master, is it the extension of the edition alice submitted, in nbgrader's own column too; a
    second grant replaces it and the first stays in the history; withdrawn, none is left?"""
    at = datetime.datetime(2027, 1, 10, 9, 0)
    first = due.grant(gradebook, MASTER, "alice", DUE + DAY, "ill", "teacher", config(), now=at)
    assert first == due.Extension(MASTER, "alice", DUE + DAY, "ill", "teacher", at)
    assert due.extension_of(gradebook, EDITION, "alice", config()) == first
    assert gradebook.find_submission(EDITION, "alice").extension == DAY
    assert gradebook.find_assignment(EDITION).duedate == DUE  # the master's date, on the edition nbgrader reads
    second = due.grant(gradebook, EDITION, "alice", DUE + 3 * DAY, "still ill", "ta", config(), now=at + DAY)
    assert due.extensions_of(gradebook, MASTER, config()) == {"alice": second}
    assert [e.reason for e in _rows(gradebook)["alice"]] == ["ill", "still ill"]
    due.grant(gradebook, MASTER, "alice", None, "recovered", "teacher", config())
    assert due.extension_of(gradebook, MASTER, "alice", config()) is None
    assert gradebook.find_submission(EDITION, "alice").extension is None
    assert len(_rows(gradebook)["alice"]) == 3


def test_a_due_date_is_set_on_both_editions_and_recounts_extensions(gradebook):
    """make due's rule: the date on the master and the edition; an extension keeps its end, nbgrader's column its
    distance from the new date?"""
    due.grant(gradebook, MASTER, "alice", DUE + 3 * DAY, "", "teacher", config())
    assert due.set_due_date(gradebook, EDITION, DUE + DAY, config()) == [MASTER, EDITION]
    assert [gradebook.find_assignment(name).duedate for name in (MASTER, EDITION)] == [DUE + DAY] * 2
    assert gradebook.find_submission(EDITION, "alice").extension == 2 * DAY

"""Does the course's late policy (coursekit.late) take off what its table says, through nbgrader's own hook, and keep
the gradebook's penalty right when scores, extensions and other work change afterwards?"""
import datetime

import pytest
from nbgrader.api import Gradebook
from traitlets import TraitError

from coursekit import due, late
from coursekit.grades import grade_of
from coursekit.settings import CourseConfigError
from support.late_class import DAY, DUE, EDITION, MASTER, autograde_penalty, config, course, submit

HOUR = 3600


@pytest.mark.parametrize("policy, seconds, score, expected", [
    ({}, 3 * HOUR, 12.0, None),                                                            # nbgrader's default
    ({"penalty_method": "zero"}, 1, 12.0, 12.0),                                           # a second late is late
    ({"penalty_method": "zero"}, 0, 12.0, None),
    ({"penalty_method": "subtract", "points_per_day": 2.0}, 25 * HOUR, 12.0, 4.0),         # two days begun
    ({"penalty_method": "percent", "percent_per_day": 10.0}, 3 * 24 * HOUR, 12.0, 3.6),
    ({"penalty_method": "percent", "percent_per_day": 30.0, "max_percent": 50.0}, 5 * 24 * HOUR, 12.0, 6.0),
])
def test_each_method_takes_off_what_the_table_says(policy, seconds, score, expected):
    """Does each penalty_method give, for a notebook scoring 12 handed in so late, the points its row says?"""
    found = late.LatePolicy(config=config(**policy)).penalty(score, seconds)
    assert found == pytest.approx(expected) if expected is not None else found is None


@pytest.mark.parametrize("key, value, message", [
    ("percent_per_day", -10.0, "c.LatePolicy.percent_per_day must be between 0 and 100 (a percentage), got -10.0"),
    ("max_percent", 150.0, "c.LatePolicy.max_percent must be between 0 and 100 (a percentage), got 150.0"),
    ("points_per_day", -1.0, "c.LatePolicy.points_per_day must be 0 or more, got -1.0"),
    ("late_days", -2, "c.LatePolicy.late_days must be 0 or more, got -2"),
])
def test_a_wrong_setting_is_refused_by_its_name(key, value, message):
    """Is a negative percentage (or a percentage over 100, negative points or days) refused naming the setting?"""
    with pytest.raises(TraitError) as refused:
        late.LatePolicy(config=config(**{key: value}))
    assert str(refused.value) == message


def test_an_unknown_method_is_refused():
    with pytest.raises(TraitError, match="penalty_method"):
        late.LatePolicy(config=config(penalty_method="half"))


def test_nbgraders_own_zero_line_still_works(tmp_path):
    """An instructor who writes nbgrader's own line, c.LateSubmissionPlugin.penalty_method = "zero", gets it?"""
    c = config()
    c.LateSubmissionPlugin.penalty_method = "zero"
    assert late.LatePolicy(config=c).penalty_method == "zero"


def test_nbgraders_hook_writes_the_penalty_and_the_grade_takes_it_off(tmp_path):
    """Through nbgrader's AssignLatePenalties, is a day-late submission given the policy's penalty, on time none,
    and is the one grade nbgrader's export rule (score - penalty, never below 0)?"""
    url, c = course(tmp_path / "gradebook.db"), config(penalty_method="percent", percent_per_day=25.0)
    submit(url, "alice", DUE - DAY)
    submit(url, "bob", DUE + datetime.timedelta(hours=30))
    for student in ("alice", "bob"):
        autograde_penalty(url, student, c)
    with Gradebook(url) as gradebook:
        alice, bob = (grade_of(gradebook, MASTER, s, c) for s in ("alice", "bob"))
        assert (alice.raw, alice.penalty, alice.score) == (7.0, 0.0, 7.0)
        assert (bob.raw, bob.penalty, bob.score) == (7.0, 3.5, 3.5)  # two days begun: 50 %
        assert bob.score == gradebook.find_submission(MASTER, "bob").score - 3.5


def test_a_mark_given_after_the_penalty_is_penalised_too(tmp_path):
    """"zero": a late submission's written answer marked after autograding: settle() takes the new score off too
    (nbgrader alone would leave the mark standing)?"""
    url, c = course(tmp_path / "gradebook.db"), config(penalty_method="zero")
    submit(url, "bob", DUE + DAY)
    autograde_penalty(url, "bob", c)
    with Gradebook(url) as gradebook:
        gradebook.find_grade("q_think1_scale", MASTER, MASTER, "bob").manual_score = 1.0
        gradebook.db.commit()
        assert grade_of(gradebook, MASTER, "bob", c).score == 1.0  # stale: the penalty is the old score
        late.settle(gradebook, "bob", c)
        assert grade_of(gradebook, MASTER, "bob", c).score == 0.0


def test_an_extension_makes_a_late_submission_on_time_without_regrading(tmp_path):
    """A late submission, then an extension past its arrival: its penalty goes, its scores stay; withdrawn, it
    comes back?"""
    url, c = course(tmp_path / "gradebook.db"), config(penalty_method="zero")
    submit(url, "bob", DUE + DAY)
    autograde_penalty(url, "bob", c)
    with Gradebook(url) as gradebook:
        due.grant(gradebook, MASTER, "bob", DUE + 2 * DAY, "ill", "teacher", c)
        late.settle(gradebook, "bob", c)
        grade = grade_of(gradebook, MASTER, "bob", c)
        assert (grade.raw, grade.penalty, grade.extension.until) == (7.0, 0.0, DUE + 2 * DAY)
        assert gradebook.find_submission(MASTER, "bob").total_seconds_late == 0  # nbgrader counts it too
        due.grant(gradebook, MASTER, "bob", None, "withdrawn", "teacher", c)
        late.settle(gradebook, "bob", c)
        assert grade_of(gradebook, MASTER, "bob", c).score == 0.0


def test_late_days_are_spent_in_the_order_of_the_due_dates(tmp_path):
    """Three late days for the term: two spent on the earlier work (1.5 days late), the later work (2 days late)
    gets one free and is penalised for the other; the editions of one master count as one piece of work?"""
    url = course(tmp_path / "gradebook.db", assignments=(MASTER, EDITION, "ch05"))
    c = config(penalty_method="subtract", points_per_day=1.0, late_days=3)
    c.CourseKit.assignments = {**c.CourseKit.assignments, "ch05": {}}
    with Gradebook(url) as gradebook:
        gradebook.find_assignment("ch05").duedate = DUE + 10 * DAY
        gradebook.db.commit()
    submit(url, "carol", DUE + DAY * 1.5, assignment=EDITION)
    submit(url, "carol", DUE + 12 * DAY, assignment="ch05")
    with Gradebook(url) as gradebook:
        late.settle(gradebook, "carol", c)
        spent = late.late_days_of(gradebook, "carol", 3, c)
        assert spent == {MASTER: late.LateDays(2, 2, 1), "ch05": late.LateDays(2, 1, 0)}
        assert grade_of(gradebook, EDITION, "carol", c).penalty == 0.0
        assert grade_of(gradebook, "ch05", "carol", c).penalty == 1.0
    autograde_penalty(url, "carol", c, "ch05")  # nbgrader's hook agrees
    with Gradebook(url) as gradebook:
        assert grade_of(gradebook, "ch05", "carol", c).penalty == 1.0


@pytest.mark.parametrize("line, said", [
    ("c.LatePolicy.percent_per_day = -10.0",
     "c.LatePolicy.percent_per_day must be between 0 and 100 (a percentage), got -10.0"),
    ("c.LatePolicy.percent = 10", "c.LatePolicy: unknown setting percent; known: "),
    ("c.LatePolicy.late_days = 'three'", "c.LatePolicy.late_days expected an int, not the str 'three'"),
])
def test_a_wrong_policy_in_the_course_file_is_refused_once_naming_file_and_key(tmp_path, line, said):
    """What every command asks as it starts (make grade, the service, make due/extend): the file and the key."""
    config = tmp_path / "nbgrader_config.py"
    config.write_text(f"c = get_config()\n{line}\n")
    with pytest.raises(CourseConfigError) as refused:
        late.late_policy(tmp_path)
    assert str(refused.value).startswith(f"{config}: {said}")

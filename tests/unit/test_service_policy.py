"""When does the grading service release feedback (coursekit.service.policy)? One table of cases."""
import pytest

from coursekit.service.policy import (
    ATTEMPTS,
    COOLDOWN,
    DEADLINE,
    RELEASE,
    Policy,
    decide,
    load_policy,
)
from coursekit.settings import CourseConfigError

A = "ch04_attention"
DEADLINE_AT = 10_000.0

# (case, policy, releases so far, now, expected reason, expected until)
CASES = [
    ("no rule: always", Policy((A,)), [0, 1, 2], 3, RELEASE, None),
    ("first feedback never waits for a cooldown", Policy((A,), cooldown=60), [], 5, RELEASE, None),
    ("within the cooldown of the last one", Policy((A,), cooldown=60), [100, 1000], 1030, COOLDOWN, 1060),
    ("cooldown over", Policy((A,), cooldown=60), [100, 1000], 1060, RELEASE, None),
    ("attempts left", Policy((A,), max_attempts=3), [1, 2], 3, RELEASE, None),
    ("attempts used up, even long after", Policy((A,), max_attempts=2), [1, 2], 1e6, ATTEMPTS, None),
    ("attempts beat the cooldown", Policy((A,), cooldown=60, max_attempts=1), [100], 120, ATTEMPTS, None),
]
# (case, policy, now, the student's due date, expected reason)
DUE_CASES = [
    ("before the due date", Policy((A,), hold_after_due=True), DEADLINE_AT, DEADLINE_AT, RELEASE),
    ("after the due date", Policy((A,), hold_after_due=True), DEADLINE_AT + 1, DEADLINE_AT, DEADLINE),
    ("after it, not held by default", Policy((A,)), DEADLINE_AT + 1, DEADLINE_AT, RELEASE),
    ("no due date", Policy((A,), hold_after_due=True), DEADLINE_AT, None, RELEASE),
]


@pytest.mark.parametrize("case, policy, releases, now, reason, until", CASES, ids=[c[0] for c in CASES])
def test_decide(case, policy, releases, now, reason, until):
    """Does each rule hold back (or let through) exactly the feedback it should?"""
    decision = decide(policy, A, releases, now)
    assert (decision.reason, decision.until) == (reason, until)
    assert decision.release == (reason == RELEASE)


@pytest.mark.parametrize("case, policy, now, due, reason", DUE_CASES, ids=[c[0] for c in DUE_CASES])
def test_the_due_date_holds_feedback_back_only_when_asked(case, policy, now, due, reason):
    """With hold_after_due, feedback after the student's due date (their extension counted) waits; else it goes."""
    assert decide(policy, A, [], now, due).reason == reason


def test_settings_read_from_the_course_config(tmp_path):
    """Does the course's nbgrader_config.py set the policy, and do missing settings keep the defaults?"""
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.GradingService.assignments = ['ch04_attention']\nc.GradingService.cooldown = 30\n"
        "c.GradingService.hold_after_due = True\n"
        "c.GradingService.retry_seconds = [1, 8]\nc.CourseKit.student_seconds = 42\n")
    policy = load_policy(tmp_path)
    assert policy == Policy(("ch04_attention",), cooldown=30.0, hold_after_due=True,
                            retry_seconds=(1.0, 8.0), job_timeout=42.0)  # make grade's budget, the same setting
    assert policy.grades("ch04_attention") and not policy.grades("other")
    # unset: three of nbgrader's 30 s cell timeouts, no release measured (coursekit.canary.student_budget)
    assert load_policy(tmp_path / "missing") == Policy(job_timeout=90.0)


@pytest.mark.parametrize("section, message", [
    ({"cooldwon": 5}, "c.GradingService: unknown setting cooldwon; known: "),
    ({"cooldown": -1}, "c.GradingService.cooldown must be >= 0 seconds, got -1"),
    ({"max_attempts": -2}, "c.GradingService.max_attempts must be >= 0 (0: no limit), got -2"),
    ({"workers": 0}, "c.GradingService.workers must be >= 1, got 0"),
    ({"deadlines": {"a": "2027-01-15"}}, "c.GradingService: deadlines is now the assignment's due date"),
    ({"hold_after_due": "yes"}, "c.GradingService.hold_after_due expected a boolean, not the str 'yes'"),
    ({"retry_seconds": 5}, "c.GradingService.retry_seconds expected a tuple, not the int 5"),
    ({"retry_seconds": (10, 5)}, "c.GradingService.retry_seconds must be 0 < first <= longest, got (10.0, 5.0)"),
    ({"job_timeout": 60}, "c.GradingService: job_timeout is now c.CourseKit.student_seconds"),
])
def test_bad_settings_are_named(tmp_path, section, message):
    """Does a wrong setting stop the service with one message naming the file, the setting and the value?"""
    lines = "".join(f"c.GradingService.{key} = {value!r}\n" for key, value in section.items())
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\n{lines}")
    with pytest.raises(CourseConfigError) as error:
        load_policy(tmp_path)
    assert str(error.value).startswith(f"{tmp_path / 'nbgrader_config.py'}: {message}"), str(error.value)


@pytest.mark.parametrize("value", [0, -5])
def test_is_a_student_budget_that_is_no_time_named(tmp_path, value):
    """c.CourseKit.student_seconds that is not a positive number stops every command that reads it, naming the file?"""
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseKit.student_seconds = {value!r}\n")
    with pytest.raises(ValueError, match=r"nbgrader_config.py: c.CourseKit.student_seconds must be a number of "
                                         r"seconds above 0, got"):
        load_policy(tmp_path)

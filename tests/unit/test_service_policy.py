"""When does the grading service release feedback (coursekit.service.policy)? One table of cases."""
import pytest

from coursekit.service.policy import (
    ATTEMPTS,
    COOLDOWN,
    DEADLINE,
    RELEASE,
    Policy,
    decide,
    epoch_seconds,
    load_policy,
    policy_from,
)

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
    ("before the deadline", Policy((A,), deadlines={A: DEADLINE_AT}), [], DEADLINE_AT, RELEASE, None),
    ("after the deadline", Policy((A,), deadlines={A: DEADLINE_AT}), [], DEADLINE_AT + 1, DEADLINE, None),
    ("another assignment's deadline", Policy((A, "b"), deadlines={"b": 1.0}), [], DEADLINE_AT, RELEASE, None),
]


@pytest.mark.parametrize("case, policy, releases, now, reason, until", CASES, ids=[c[0] for c in CASES])
def test_decide(case, policy, releases, now, reason, until):
    """Does each rule hold back (or let through) exactly the feedback it should?"""
    decision = decide(policy, A, releases, now)
    assert (decision.reason, decision.until) == (reason, until)
    assert decision.release == (reason == RELEASE)


def test_deadline_forms():
    """Are ISO dates with a zone, without one (UTC) and nbgrader's own timestamps the same instant?"""
    same = ["2027-01-15 23:59:00+08:00", "2027-01-15T23:59:00+0800", "2027-01-15 15:59:00", "2027-01-15 15:59:00 UTC"]
    assert len({epoch_seconds(text) for text in same}) == 1
    assert epoch_seconds("1970-01-01 00:01:00") == 60


def test_settings_read_from_the_course_config(tmp_path):
    """Does the course's nbgrader_config.py set the policy, and do missing settings keep the defaults?"""
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.GradingService.assignments = ['ch04_attention']\nc.GradingService.cooldown = 30\n"
        "c.GradingService.deadlines = {'ch04_attention': '1970-01-01 00:01:00'}\n"
        "c.GradingService.retry_seconds = [1, 8]\nc.CourseKit.student_seconds = 42\n")
    policy = load_policy(tmp_path)
    assert policy == Policy(("ch04_attention",), cooldown=30.0, deadlines={"ch04_attention": 60.0},
                            retry_seconds=(1.0, 8.0), job_timeout=42.0)  # make grade's budget, the same setting
    assert policy.grades("ch04_attention") and not policy.grades("other")
    # unset: three of nbgrader's 30 s cell timeouts, no release measured (coursekit.canary.student_budget)
    assert load_policy(tmp_path / "missing") == Policy(job_timeout=90.0)


@pytest.mark.parametrize("section, message", [
    ({"cooldwon": 5}, "c.GradingService: unknown setting cooldwon; known: "),
    ({"assignments": "ch04_attention"}, "assignments must be a list of names, got 'ch04_attention'"),
    ({"cooldown": -1}, "cooldown must be >= 0 seconds, got -1"),
    ({"max_attempts": -2}, "max_attempts must be >= 0 (0: no limit), got -2"),
    ({"workers": 0}, "workers must be >= 1, got 0"),
    ({"deadlines": {"a": "tomorrow"}}, "c.GradingService.deadlines['a'] = 'tomorrow' is not a date"),
    ({"retry_seconds": 5}, "c.GradingService.retry_seconds must be (first, longest) in seconds, got 5"),
    ({"retry_seconds": (10, 5)}, "retry_seconds must be 0 < first <= longest, got (10, 5)"),
    ({"job_timeout": 60}, "job_timeout is now c.CourseKit.student_seconds"),
])
def test_bad_settings_are_named(section, message):
    """Does a wrong setting stop the service with a message naming the setting and the value?"""
    with pytest.raises(ValueError) as error:
        policy_from(section)
    assert message in str(error.value)


@pytest.mark.parametrize("value", [0, -5, "300", True])
def test_is_a_student_budget_that_is_no_time_named(tmp_path, value):
    """c.CourseKit.student_seconds that is not a positive number stops every command that reads it, naming the file?"""
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseKit.student_seconds = {value!r}\n")
    with pytest.raises(ValueError, match=r"nbgrader_config.py: c.CourseKit.student_seconds must be a number of "
                                         r"seconds above 0, got"):
        load_policy(tmp_path)

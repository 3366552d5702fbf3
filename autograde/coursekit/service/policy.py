"""When a graded submission's feedback goes to the student: the course's policy, as settings.

Read from ``c.GradingService`` in the course's ``nbgrader_config.py`` (:func:`load_policy`):

* ``assignments`` — the assignments the service grades at all (on/off per assignment);
* ``cooldown`` — seconds between two automatic feedbacks of one student (0: none);
* ``max_attempts`` — automatic feedbacks per student and assignment (0: no limit);
* ``deadlines`` — ``{assignment: "2027-01-15 23:59:00+08:00"}``: after it, no automatic feedback;
* ``workers``, ``poll_seconds`` — how the service runs (a job's time: one student's, the same budget as
  ``make grade``'s, :func:`coursekit.canary.student_budget`, read into :attr:`Policy.job_timeout` as the service
  starts);
* ``retry_seconds`` — ``(first, longest)``: a submission a fault of the machine held back is tried again after
  ``first`` seconds, then twice as long each time, at most ``longest``.

A submission that arrives while its feedback must wait is still graded at once (the gradebook,
the formgrader and ``make report`` see it); only the feedback waits. :func:`decide` is pure, so
every rule is unit-tested with plain numbers.
"""
import dataclasses
import datetime

from nbgrader.utils import parse_utc

from ..canary import student_budget
from ..settings import config_section

__all__ = ["Policy", "Decision", "RELEASE", "COOLDOWN", "ATTEMPTS", "DEADLINE", "load_policy", "decide"]

SECTION = "GradingService"
RELEASE, COOLDOWN, ATTEMPTS, DEADLINE = "release", "cooldown", "attempts", "deadline"
_EPOCH = datetime.datetime(1970, 1, 1)


@dataclasses.dataclass(frozen=True)
class Policy:
    assignments: tuple = ()     # graded automatically; any other assignment is left to the instructor
    cooldown: float = 0.0       # seconds
    max_attempts: int = 0       # 0: no limit
    deadlines: dict = dataclasses.field(default_factory=dict)  # {assignment: seconds since the epoch, UTC}
    workers: int = 1
    poll_seconds: float = 0.5
    job_timeout: float = 30.0   # a grading job that takes longer is stopped: that student 0, with why (load_policy)
    retry_seconds: tuple = (5.0, 60.0)  # after a fault of the machine: the first wait, then doubling up to the second

    def grades(self, assignment: str) -> bool:
        return assignment in self.assignments


@dataclasses.dataclass(frozen=True)
class Decision:
    """Release the feedback now, or why not (``reason``) and until when (``until``; None: the instructor)."""
    reason: str = RELEASE
    until: float = None

    @property
    def release(self) -> bool:
        return self.reason == RELEASE

    def describe(self, policy: Policy, released: int) -> str:
        """One line for the service's log."""
        if self.reason == COOLDOWN:
            at = datetime.datetime.fromtimestamp(self.until).strftime("%H:%M:%S")
            return f"feedback waits for the cooldown of {policy.cooldown:g} s (until {at})"
        if self.reason == ATTEMPTS:
            return (f"feedback waits for the instructor: {released} of {policy.max_attempts} automatic "
                    "feedbacks used")
        if self.reason == DEADLINE:
            return "feedback waits for the instructor: the deadline has passed"
        return "feedback released"


def epoch_seconds(text: str) -> float:
    """``"2027-01-15 23:59:00+08:00"`` (ISO 8601; no zone: UTC) or nbgrader's ``"… UTC"`` -> seconds.

    ISO first: nbgrader's ``parse_utc`` reads ``"2027-01-15 23:59:00 +0800"`` as 800 *seconds* east.
    """
    try:
        when = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        when = parse_utc(text)
    if when.tzinfo is not None:
        when = (when - when.utcoffset()).replace(tzinfo=None)
    return (when - _EPOCH).total_seconds()


def decide(policy: Policy, assignment: str, releases: list, now: float) -> Decision:
    """May one student's newest feedback of ``assignment`` be released at ``now``?

    ``releases``: the times (seconds since the epoch) of that student's automatic feedbacks so far.
    """
    deadline = policy.deadlines.get(assignment)
    if deadline is not None and now > deadline:
        return Decision(DEADLINE)
    if policy.max_attempts and len(releases) >= policy.max_attempts:
        return Decision(ATTEMPTS)
    if policy.cooldown and releases and now < max(releases) + policy.cooldown:
        return Decision(COOLDOWN, max(releases) + policy.cooldown)
    return Decision(RELEASE)


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(f"c.{SECTION}: {message}")


def policy_from(section: dict, student_seconds: float = Policy.job_timeout) -> Policy:
    """A :class:`Policy` from the values of ``c.GradingService`` and one student's time (messages name the
    setting)."""
    _check("job_timeout" not in section, "job_timeout is now c.CourseKit.student_seconds: one student's time, for "
                                         "make grade and the service alike")
    known = {f.name for f in dataclasses.fields(Policy)} - {"job_timeout"}
    unknown = sorted(set(section) - known)
    _check(not unknown, f"unknown setting {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    assignments = section.get("assignments", ())
    _check(not isinstance(assignments, str), f"assignments must be a list of names, got {assignments!r}")
    deadlines = {}
    for name, text in dict(section.get("deadlines", {})).items():
        try:
            deadlines[name] = epoch_seconds(str(text))
        except (ValueError, OverflowError) as error:
            raise ValueError(f"c.{SECTION}.deadlines[{name!r}] = {text!r} is not a date: {error}") from None
    policy = Policy(tuple(assignments), float(section.get("cooldown", 0)), int(section.get("max_attempts", 0)),
                    deadlines, int(section.get("workers", 1)), float(section.get("poll_seconds", 0.5)),
                    float(student_seconds),
                    _retry(section.get("retry_seconds", Policy.retry_seconds)))
    _check(policy.cooldown >= 0, f"cooldown must be >= 0 seconds, got {policy.cooldown:g}")
    _check(policy.max_attempts >= 0, f"max_attempts must be >= 0 (0: no limit), got {policy.max_attempts}")
    _check(policy.workers >= 1, f"workers must be >= 1, got {policy.workers}")
    _check(policy.poll_seconds > 0, f"poll_seconds must be > 0, got {policy.poll_seconds:g}")
    return policy


def _retry(value) -> tuple:
    try:
        first, longest = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"c.{SECTION}.retry_seconds must be (first, longest) in seconds, got {value!r}") from None
    _check(0 < first <= longest, f"retry_seconds must be 0 < first <= longest, got {value!r}")
    return first, longest


def load_policy(course) -> Policy:
    """The grading service's policy of ``course`` (its ``nbgrader_config.py``; a job's time:
    :func:`coursekit.canary.student_budget` of the assignments it grades)."""
    section = config_section(course, SECTION)
    assignments = section.get("assignments", ())
    return policy_from(section, student_budget(course, () if isinstance(assignments, str) else assignments).seconds)

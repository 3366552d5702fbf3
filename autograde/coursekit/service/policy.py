"""When a graded submission's feedback goes to the student: the course's policy, as settings.

Read from ``c.GradingService`` in the course's ``nbgrader_config.py`` (:func:`load_policy`):

* ``assignments`` — the assignments the service grades at all (on/off per assignment);
* ``cooldown`` — seconds between two automatic feedbacks of one student (0: none);
* ``max_attempts`` — automatic feedbacks per student and assignment (0: no limit);
* ``hold_after_due`` — after a student's due date (the assignment's, :mod:`coursekit.due`, or their extension's end),
  no automatic feedback: the instructor releases it (default False: a late submission gets its feedback, with the
  late penalty in its grade);
* ``workers``, ``poll_seconds`` — how the service runs (a job's time: ``c.CourseKit.student_seconds``, the same
  budget as ``make grade``'s, read into :attr:`Policy.job_timeout`);
* ``retry_seconds`` — ``(first, longest)``: a submission a fault of the machine held back is tried again after
  ``first`` seconds, then twice as long each time, at most ``longest``.

A submission that arrives while its feedback must wait is still graded at once (the gradebook,
the formgrader and ``make report`` see it); only the feedback waits. :func:`decide` is pure, so
every rule is unit-tested with plain numbers.
"""
import dataclasses
import datetime


from ..settings import STUDENT_SECONDS, config_section, course_settings

__all__ = ["Policy", "Decision", "RELEASE", "COOLDOWN", "ATTEMPTS", "DEADLINE", "load_policy", "decide"]

SECTION = "GradingService"
RELEASE, COOLDOWN, ATTEMPTS, DEADLINE = "release", "cooldown", "attempts", "deadline"


@dataclasses.dataclass(frozen=True)
class Policy:
    assignments: tuple = ()     # graded automatically; any other assignment is left to the instructor
    cooldown: float = 0.0       # seconds
    max_attempts: int = 0       # 0: no limit
    hold_after_due: bool = False  # no automatic feedback after the student's due date (their extension counted)
    workers: int = 1
    poll_seconds: float = 0.5
    job_timeout: float = STUDENT_SECONDS  # a grading job that takes longer is stopped: that student 0, with why
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
            return "feedback waits for the instructor: the due date has passed"
        return "feedback released"


def decide(policy: Policy, assignment: str, releases: list, now: float, due: float | None = None) -> Decision:
    """May one student's newest feedback of ``assignment`` be released at ``now``?

    ``releases``: the times (seconds since the epoch) of that student's automatic feedbacks so far; ``due``: their
    due date (the assignment's, or their extension's end; seconds since the epoch), None when there is none.
    """
    if policy.hold_after_due and due is not None and now > due:
        return Decision(DEADLINE)
    if policy.max_attempts and len(releases) >= policy.max_attempts:
        return Decision(ATTEMPTS)
    if policy.cooldown and releases and now < max(releases) + policy.cooldown:
        return Decision(COOLDOWN, max(releases) + policy.cooldown)
    return Decision(RELEASE)


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(f"c.{SECTION}: {message}")


def policy_from(section: dict, student_seconds: float = STUDENT_SECONDS) -> Policy:
    """A :class:`Policy` from the values of ``c.GradingService`` and the course's ``c.CourseKit.student_seconds``
    (messages name the setting)."""
    _check("job_timeout" not in section, "job_timeout is now c.CourseKit.student_seconds: one student's time, for "
                                         "make grade and the service alike")
    _check("deadlines" not in section, "deadlines is now the assignment's due date, one for every surface (make due "
                                       "DUE=…, or the Formgrader), with each student's extension; "
                                       "c.GradingService.hold_after_due = True holds feedback back after it")
    known = {f.name for f in dataclasses.fields(Policy)} - {"job_timeout"}
    unknown = sorted(set(section) - known)
    _check(not unknown, f"unknown setting {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    assignments = section.get("assignments", ())
    _check(not isinstance(assignments, str), f"assignments must be a list of names, got {assignments!r}")
    hold = section.get("hold_after_due", False)
    _check(isinstance(hold, bool), f"hold_after_due must be True or False, got {hold!r}")
    policy = Policy(tuple(assignments), float(section.get("cooldown", 0)), int(section.get("max_attempts", 0)),
                    hold, int(section.get("workers", 1)), float(section.get("poll_seconds", 0.5)),
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
    """The grading service's policy of ``course`` (its ``nbgrader_config.py``)."""
    return policy_from(config_section(course, SECTION), course_settings(course).student_seconds)

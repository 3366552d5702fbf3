"""When a graded submission's feedback goes to the student: the course's policy, as settings.

Read from ``c.GradingService`` in the course's ``nbgrader_config.py`` (:func:`load_policy`; its values checked once by
:class:`coursekit.settings.GradingService`, a wrong one naming the file and the key):

* ``assignments`` — the assignments the service grades at all (on/off per assignment);
* ``cooldown`` — seconds between two automatic feedbacks of one student (0: none);
* ``max_attempts`` — automatic feedbacks per student and assignment (0: no limit);
* ``hold_after_due`` — after a student's due date (the assignment's, :mod:`coursekit.due`, or their extension's end),
  no automatic feedback: the instructor releases it (default False: a late submission gets its feedback, with the
  late penalty in its grade);
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


from ..canary import student_budget
from ..settings import GradingService, checked_settings, course_settings

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


def policy_from(service: GradingService, student_seconds: float = Policy.job_timeout) -> Policy:
    """A :class:`Policy` from the course's checked ``c.GradingService`` (:class:`coursekit.settings.GradingService`)
    and one student's time."""
    return Policy(tuple(service.assignments), service.cooldown, service.max_attempts, service.hold_after_due,
                  service.workers, service.poll_seconds, float(student_seconds), tuple(service.retry_seconds))


def load_policy(course) -> Policy:
    """The grading service's policy of ``course`` (its ``nbgrader_config.py``, read once it changed; a wrong value:
    :class:`coursekit.settings.CourseConfigError`, naming the file and the key; a job's time:
    :func:`coursekit.canary.student_budget` of the assignments it grades)."""
    service = checked_settings(course, GradingService, course_settings(course).config)
    return policy_from(service, student_budget(course, service.assignments).seconds)

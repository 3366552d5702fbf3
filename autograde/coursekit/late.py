"""How many points a late submission loses: the course's late policy, through nbgrader's own hook.

nbgrader's ``AssignLatePenalties`` (in every autograde: ``make grade``, the grading service, ``nbgrader autograde``)
asks its ``plugin_class``, a ``LateSubmissionPlugin``, for each late notebook's penalty and writes it into the
gradebook, where ``nbgrader export``, nbgrader's feedback and the course's one grade (:mod:`coursekit.grades`) read it.
The course config names :class:`LatePolicy` there (``c.AssignLatePenalties.plugin_class``) and chooses its rule in
``c.LatePolicy``:

==================  =======================================================================================
``penalty_method``  what a late submission loses, for each day (or part of one) past its due date and
                    the student's extension
==================  =======================================================================================
``"none"``          nothing (nbgrader's default)
``"zero"``          everything: the score is 0 (nbgrader's own rule)
``"subtract"``      ``points_per_day`` points a day
``"percent"``       ``percent_per_day`` % of the score a day, at most ``max_percent`` %
==================  =======================================================================================

``late_days``: days a student may spend across the term without losing anything, first come first served in the
order of the due dates; the days beyond them follow ``penalty_method``. A piece of work in several editions is one:
its master's due date, the student's newest submission of any edition.

A penalty depends on the score (zero, percent) and on the other pieces of work (late days), which change after
autograding: a written answer marked, an extension granted, an earlier piece handed in again. :func:`settle` writes a
student's penalties again with the same rule; the commands that change those call it (the marking page, ``make
extend``, ``make due``, ``make grade``, the grading service), so what nbgrader's ``export`` reads stays the course's.
"""
import dataclasses
import datetime
import math

from nbgrader.api import SubmittedAssignment
from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Enum, Float, Integer, TraitError, validate

from .assignments import assignment_of
from .due import due_date, sync
from .settings import checked_settings
from .upstream.nbgrader import late_penalty

__all__ = ["LatePolicy", "METHODS", "DAY_SECONDS", "LateDays", "days_late", "late_days_of", "late_policy", "settle"]

METHODS = ("none", "zero", "subtract", "percent")
NEVER = datetime.datetime.min  # a submission nbgrader recorded no time for: older than any
DAY_SECONDS = 24 * 3600


def days_late(seconds_late: float) -> int:
    """Days or parts of a day ``seconds_late`` (a second late is a day late)."""
    return max(0, math.ceil(seconds_late / DAY_SECONDS))


@dataclasses.dataclass(frozen=True)
class LateDays:
    late: int      # days (or parts of one) past the due date and the extension
    covered: int   # of those, paid from the term's late days
    left: int      # the term's late days left after this piece of work


class LatePolicy(LateSubmissionPlugin):
    """The course's late policy (``c.LatePolicy``): nbgrader's ``none`` and ``zero``, points or a percentage a day
    late, and late days a student may spend across the term."""

    penalty_method = Enum(METHODS, default_value="none", help="What a late submission loses: 'none', 'zero' (its "
                          "score), 'subtract' (points_per_day a day), 'percent' (percent_per_day % of its score a "
                          "day, at most max_percent %). A day is 24 h or part of it past the due date and the "
                          "student's extension.").tag(config=True)
    points_per_day = Float(1.0, help="'subtract': points lost per day late.").tag(config=True)
    percent_per_day = Float(10.0, help="'percent': percentage of the score lost per day late.").tag(config=True)
    max_percent = Float(100.0, help="'percent': at most this percentage is lost.").tag(config=True)
    late_days = Integer(0, help="Days late a student may spend across the term without penalty, in the order of "
                        "the due dates; days beyond them follow penalty_method.").tag(config=True)

    @validate("points_per_day", "percent_per_day", "max_percent", "late_days")
    def _not_negative(self, proposal):
        name, value = proposal["trait"].name, proposal["value"]
        high = 100 if "percent" in name else math.inf
        if not 0 <= value <= high:
            limit = "between 0 and 100 (a percentage)" if high == 100 else "0 or more"
            raise TraitError(f"c.LatePolicy.{name} must be {limit}, got {value!r}")
        return value

    def penalty(self, score: float, seconds_late: float, covered: int = 0) -> float | None:
        """What a notebook scoring ``score`` loses, handed in ``seconds_late`` late with ``covered`` late days spent
        on it (nbgrader keeps the answer between 0 and ``score``)."""
        days = days_late(seconds_late) - covered
        if days <= 0 or self.penalty_method == "none":
            return None
        if self.penalty_method == "zero":
            return score
        if self.penalty_method == "subtract":
            return self.points_per_day * days
        return score * min(self.percent_per_day * days, self.max_percent) / 100

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float):
        """nbgrader's hook, asked by ``AssignLatePenalties`` (the parent: it holds the open gradebook and the
        assignment being graded)."""
        covered = 0
        if self.late_days:
            days = late_days_of(self.parent.gradebook, student_id, self.late_days, self.config)
            covered = days.get(assignment_of(self.parent.assignment_id, self.config).master, LateDays(0, 0, 0)).covered
        return self.penalty(score, total_seconds_late, covered)


def _newest_by_work(gradebook, student: str, config) -> dict:
    """``{master: submission}``: the student's newest submission of each piece of work."""
    newest = {}
    for submission in gradebook.db.query(SubmittedAssignment).filter(SubmittedAssignment.student_id == student):
        master = assignment_of(submission.assignment.name, config).master
        known = newest.get(master)
        if known is None or (submission.timestamp or NEVER) > (known.timestamp or NEVER):
            newest[master] = submission
    return newest


def late_days_of(gradebook, student: str, late_days: int, config=None) -> dict:
    """``{master: LateDays}`` for each piece of work ``student`` handed in, spending ``late_days`` in the order of
    the due dates (then of the names)."""
    newest = _newest_by_work(gradebook, student, config)
    order = sorted(newest, key=lambda master: (due_date(gradebook, master, config) is None,
                                               due_date(gradebook, master, config) or 0, master))
    left, spent = late_days, {}
    for master in order:
        late = days_late(newest[master].total_seconds_late)
        covered = min(late, left)
        left -= covered
        spent[master] = LateDays(late, covered, left)
    return spent


def late_policy(course, config=None) -> LatePolicy:
    """``course``'s late policy, its values checked once (:func:`coursekit.settings.checked_settings`: a wrong one, or a name
    the policy does not know, refused naming the file and the key); each command asks it as it starts."""
    return checked_settings(course, LatePolicy, config)


class _Counted:
    """:class:`LatePolicy` for one submission whose late days are already counted (:func:`settle`)."""

    def __init__(self, policy: LatePolicy, covered: int):
        self.policy, self.covered = policy, covered

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        return self.policy.penalty(score, total_seconds_late, self.covered)


def settle(gradebook, student: str, config=None) -> None:
    """Every late penalty of ``student`` written again by the course's policy, as ``AssignLatePenalties`` writes it,
    from today's scores, due dates and extensions (nothing is regraded); committed."""
    gradebook.db.flush()
    gradebook.db.expire_all()  # scores are SQL sums: read them again after a mark
    submissions = gradebook.db.query(SubmittedAssignment).filter(SubmittedAssignment.student_id == student).all()
    for submission in submissions:
        sync(gradebook, submission.assignment.name, student, config)
    policy = LatePolicy(config=config)
    spent = late_days_of(gradebook, student, policy.late_days, config) if policy.late_days else {}
    newest = {id(s) for s in _newest_by_work(gradebook, student, config).values()}
    for submission in submissions:
        master = assignment_of(submission.assignment.name, config).master
        covered = spent[master].covered if master in spent and id(submission) in newest else 0
        counted = _Counted(policy, covered)
        for notebook in submission.notebooks:
            notebook.late_submission_penalty = late_penalty(counted, student, notebook.score,
                                                            submission.total_seconds_late)
    gradebook.db.commit()

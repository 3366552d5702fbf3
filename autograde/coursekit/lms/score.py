"""A student's score as the LMS's gradebook gets it (LTI Assignment and Grade Services), from the course's gradebook.

**One line item per piece of work, shared by its editions.** ``ch04_attention`` and ``ch04_attention_en`` are the
same chapter in two languages, 20 points each, and a student works in one of them: one column in the LMS, named after
the master (:attr:`Score.line_item`), holds each student's score from the edition they submitted last. A line item
per edition would give every student an empty column, which LMSs show as missing work.

**The score is the one grade** (:func:`coursekit.grades.grades_of`): nbgrader's score less the late penalty, never
below 0, as ``nbgrader export``, the feedback page and the class report give it.

**Pending is a state, not a zero.** While any written answer of that submission waits for marking
(:attr:`coursekit.grades.StudentGrade.pending`), the score goes with ``gradingProgress: "PendingManual"`` and a
comment naming how many answers and points are still open; once all are marked, ``"FullyGraded"``. A student the
gradebook knows no LMS id for (``Student.lms_user_id``: not from the LMS) has no score to post.
"""
import dataclasses

from ..assignments import assignment_of
from ..grades import grades_of
from ..language import WORDS

__all__ = ["PENDING_MANUAL", "FULLY_GRADED", "Score", "scores_of"]

PENDING_MANUAL, FULLY_GRADED = "PendingManual", "FullyGraded"


@dataclasses.dataclass(frozen=True)
class Score:
    line_item: str         # the master assignment: its editions share the LMS's column
    student: str           # nbgrader's student id (the hub user)
    user_id: str           # the platform's sub
    given: float
    maximum: float
    pending: int           # written answers no one has marked yet
    pending_points: float
    edition: str           # the assignment the score comes from
    language: str = "zh"

    @property
    def key(self) -> tuple:
        return self.line_item, self.student

    @property
    def progress(self) -> str:
        return PENDING_MANUAL if self.pending else FULLY_GRADED

    def body(self) -> dict:
        """The AGS score without its timestamp: what two posts must share to be the same post."""
        # what the LMS shows the student beside the score, in their edition's language
        if self.pending:
            comment = WORDS.say_n(self.language, "lms.score_pending", self.pending, given=self.given,
                                  maximum=self.maximum, points=self.pending_points)
        else:
            comment = WORDS.say(self.language, "lms.score_done", given=self.given, maximum=self.maximum)
        return {"userId": self.user_id, "scoreGiven": round(self.given, 4), "scoreMaximum": round(self.maximum, 4),
                "activityProgress": "Submitted", "gradingProgress": self.progress, "comment": comment}

    def payload(self, timestamp: str) -> dict:
        return {**self.body(), "timestamp": timestamp}


def _newest_submissions(gradebook, config) -> dict:
    """``{(line item, student): submission}``: each student's newest submission of each piece of work."""
    newest = {}
    for assignment in gradebook.assignments:
        line_item = assignment_of(assignment.name, config).master
        for submission in assignment.submissions:
            key = (line_item, submission.student_id)
            if key not in newest or (submission.timestamp or 0) > (newest[key].timestamp or 0):
                newest[key] = submission
    return newest


def scores_of(gradebook, config=None, keys=None) -> dict:
    """``{(line item, student): Score}`` of every graded student with an LMS id (only ``keys``, when given): each the
    one grade (:func:`coursekit.grades.grades_of`: the late penalty taken off) of their newest submission."""
    newest = _newest_submissions(gradebook, config)
    if keys is not None:
        newest = {k: v for k, v in newest.items() if k in set(keys)}
    lms_ids = {s.id: s.lms_user_id for s in gradebook.students if s.lms_user_id}
    grades = {name: grades_of(gradebook, name, config=config) for name in {s.assignment.name for s in newest.values()}}
    scores = {}
    for (line_item, student), submission in newest.items():
        grade = grades[submission.assignment.name].get(student)
        if student not in lms_ids or grade is None:
            continue
        edition = assignment_of(submission.assignment.name, config)
        scores[(line_item, student)] = Score(line_item, student, lms_ids[student], grade.score, grade.max_score,
                                             len(grade.pending), grade.pending_points, edition.id, edition.language)
    return scores

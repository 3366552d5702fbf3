"""Written answers no instructor has marked yet: *pending* (待批改), never a 0.

nbgrader gives a written answer (a manually graded cell) no score until someone marks it, and
its feedback shows that as ``0.0 / 1.0``, which a student reads as a failed answer. For this course an answer is
**pending** while its cell is manually graded and the gradebook holds no score for it, neither a manual one nor
nbgrader's automatic 0 for an answer left exactly as released (:func:`coursekit.grades.is_pending`, which
:func:`coursekit.grades.class_pending` reads for a class): that one is *not answered*,
0 with the reason, recorded at grading, waiting for nobody. The feedback page shows a pending answer as
:data:`PENDING`, and ``generate_feedback`` / ``release_feedback`` tell the instructor how many there are, per
student and in total, without stopping; the notification, the report and the LMS count the same.
"""
from dataclasses import dataclass

from ..grades import class_pending

__all__ = ["PENDING", "Tally", "class_tallies", "student_line", "total_line"]

PENDING = "待批改"


def class_tallies(gradebook, assignment: str) -> dict:
    """``{student: Tally}`` of :func:`class_pending`."""
    return {student: Tally.of(answers) for student, answers in class_pending(gradebook, assignment).items()}


@dataclass(frozen=True)
class Tally:
    """How many answers are pending, and the points they are worth."""
    answers: int = 0
    points: float = 0.0

    @classmethod
    def of(cls, answers) -> "Tally":
        return cls(len(answers), sum(a.max_score for a in answers))

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(self.answers + other.answers, self.points + other.points)

    def __str__(self) -> str:
        return f"{self.answers} 道书面题{PENDING}（{self.points:g} 分）"


def student_line(student: str, assignment: str, tally: Tally) -> str:
    """What the instructor reads about one student's pending answers."""
    return f"{student}：{assignment} 还有 {tally}，反馈里显示为「{PENDING}」，老师批改前不算分。"


def total_line(assignment: str, pending: dict, scope: str = "全班") -> str:
    """One line for a whole run: how many students and answers are pending, and what to do after marking.

    ``pending`` is ``{student: Tally}`` (students with nothing pending may be left out); ``scope``
    says whose they are ("全班", "本次发布的反馈里").
    """
    pending = {student: tally for student, tally in pending.items() if tally.answers}
    if not pending:
        return f"{assignment}：{scope}没有{PENDING}的书面题。"
    total = sum(pending.values(), Tally())
    return (f"{assignment}：{scope}有 {len(pending)} 名学生共 {total}，反馈照常生成和发布。"
            f"批改后运行 nbgrader generate_feedback {assignment} --force 和 nbgrader release_feedback {assignment}，"
            "学生再取一次反馈就能看到分数。")

"""Written answers no instructor has marked yet: *pending* (待批改), never a 0.

nbgrader gives a written answer (a manually graded cell) no score until someone marks it, and
its feedback shows that as ``0.0 / 1.0``, which a student reads as a failed answer. For this course an answer is
**pending** while its cell is manually graded and the gradebook holds no score for it, neither a manual one nor
nbgrader's automatic 0 for an answer left exactly as released (:func:`coursekit.grades.is_pending`, which
:func:`coursekit.grades.class_pending` reads for a class): that one is *not answered*,
0 with the reason, recorded at grading, waiting for nobody. The feedback page shows a pending answer as
``feedback.pending`` says (待批改, "awaiting marking"), and ``generate_feedback`` / ``release_feedback`` tell the
instructor how many there are, per student and in total, in the course's language, without stopping; the
notification, the report and the LMS count the same.
"""
from dataclasses import dataclass

from ..grades import class_pending
from ..language import WORDS

__all__ = ["Tally", "class_tallies", "student_line", "total_line", "CLASS", "RELEASE"]

# whose pending answers a total line counts: the whole class (generate_feedback), or this release's pages
CLASS, RELEASE = "class", "release"


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

    def said(self, lang: str) -> str:
        """``8 道书面题待批改（8 分）``, "8 written answers awaiting marking (8 points)", in ``lang``."""
        return WORDS.say_n(lang, "pending.tally", self.answers, points=self.points)


def student_line(student: str, assignment: str, tally: Tally, lang: str) -> str:
    """What the instructor reads about one student's pending answers, in ``lang``."""
    return WORDS.say(lang, "pending.student", student=student, assignment=assignment, tally=tally.said(lang))


def total_line(assignment: str, pending: dict, lang: str, scope: str = CLASS) -> tuple:
    """One line for a whole run, in ``lang``: how many students and answers are pending, and what to do after
    marking; ``(line, whether it is news to warn about)``.

    ``pending`` is ``{student: Tally}`` (students with nothing pending may be left out); ``scope`` says whose they
    are (:data:`CLASS`, :data:`RELEASE`).
    """
    pending = {student: tally for student, tally in pending.items() if tally.answers}
    if not pending:
        if scope == CLASS:
            return WORDS.say(lang, "pending.none_in_class", assignment=assignment), False
        return WORDS.say(lang, "pending.none_released", assignment=assignment), False
    total = sum(pending.values(), Tally())
    values = dict(assignment=assignment, students=len(pending), tally=total.said(lang))
    if scope == CLASS:
        return WORDS.say_n(lang, "pending.in_class", len(pending), **values), True
    return WORDS.say_n(lang, "pending.released", len(pending), **values), True

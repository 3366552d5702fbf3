"""Manually graded answers' scores and comments in nbgrader's own gradebook: read a question, write a judgement.

A score is ``Grade.manual_score`` and a comment ``Comment.manual_comment``, exactly where the
formgrader keeps them, so the formgrader, ``generate_feedback`` and the class report see every
judgement. A question is a grade cell with a solution cell of the same name (a written answer or
manually graded code: its comment belongs to the solution cell) or a task cell (graded and commented
on itself), as nbgrader's autograde records them. Writing follows the formgrader: a score clears ``needs_manual_grade``, removing it
sets the flag again when nbgrader gave no automatic score.

One judgement (one answer, or a whole group) is one transaction. Two markers may judge the same
answer: the later write wins, and is told what it replaced (:attr:`Saved.replaced`) — the page
shows it, so nothing is lost silently.
"""
import hashlib
from dataclasses import dataclass, field

from nbgrader.api import Assignment, BaseCell, Comment, Grade, Notebook, Student, SubmittedNotebook
from sqlalchemy import and_, case, func, or_
from sqlalchemy import text as sql
from sqlalchemy.orm import Session, aliased

from ..gradebook import submitted

__all__ = ["AnswerState", "Saved", "state_token", "question_states", "marked_counts", "write_judgement"]


@dataclass(frozen=True)
class AnswerState:
    student: str
    score: float | None          # the manual score; None: not marked
    comment: str | None          # the manual comment
    auto_score: float | None     # nbgrader's (0 for an untouched release stub)

    @property
    def token(self) -> str:
        return state_token(self.score, self.comment)


@dataclass
class Saved:
    states: dict = field(default_factory=dict)      # {student: AnswerState} after the write
    replaced: dict = field(default_factory=dict)    # {student: AnswerState} someone else had written meanwhile
    missing: list = field(default_factory=list)     # students without a submission of this notebook


def state_token(score, comment) -> str:
    """A short fingerprint of a saved judgement: what a page saw, sent back with its next write."""
    return hashlib.sha1(repr((None if score is None else float(score), comment or None)).encode()).hexdigest()[:12]


GRADED, COMMENTED = ("GradeCell", "TaskCell"), ("SolutionCell", "TaskCell")  # BaseCell.type of each role
# A grade cell and its solution cell are two rows of nbgrader's base_cell table with one name: two aliases, made once
# (SQLAlchemy's query cache stays warm).
_GRADED, _COMMENTED = aliased(BaseCell, flat=True), aliased(BaseCell, flat=True)


def _rows(db, assignment: str, notebook: str, grade_id: str, students=None):
    graded, commented = _GRADED, _COMMENTED
    query = (db.query(Student.id, Grade, Comment)
             .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
             .join(graded, Grade.cell_id == graded.id)
             .join(Notebook, graded.notebook_id == Notebook.id))
    query = (submitted(query, assignment)
             .outerjoin(commented, and_(commented.notebook_id == Notebook.id, commented.name == grade_id,
                                        commented.type.in_(COMMENTED)))
             .outerjoin(Comment, and_(Comment.notebook_id == SubmittedNotebook.id, Comment.cell_id == commented.id))
             .filter(Notebook.name == notebook, graded.name == grade_id, graded.type.in_(GRADED)))
    if students is not None:
        query = query.filter(Student.id.in_(list(students)))
    return query


def _state(student, grade, comment) -> AnswerState:
    return AnswerState(student, grade.manual_score, comment.manual_comment if comment is not None else None,
                       grade.auto_score)


def question_states(engine, assignment: str, notebook: str, grade_id: str) -> dict:
    """{student: AnswerState} of every submission's answer to ``grade_id``."""
    with Session(engine) as db:
        return {s: _state(s, g, c) for s, g, c in _rows(db, assignment, notebook, grade_id)}


# Done: a manual score, or nbgrader's own 0 for an answer left as released (final: the feedback shows it so already;
# coursekit.grades.is_blank). The page counts its answers the same way (board.student_view).
_DONE = func.sum(case((or_(Grade.manual_score.isnot(None), Grade.auto_score == 0), 1), else_=0))


def marked_counts(engine, assignment: str, grade_id: str | None = None) -> dict:
    """{grade_id: (done, submissions)} for every graded cell of ``assignment`` (or one): done is marked by hand, or
    left as released (nbgrader scored it 0 by itself: nothing to mark)."""
    graded = _GRADED
    with Session(engine) as db:
        rows = (db.query(graded.name, func.count(Grade.id), _DONE)
                .join(Grade, Grade.cell_id == graded.id)
                .join(Notebook, graded.notebook_id == Notebook.id)
                .join(Assignment, Notebook.assignment_id == Assignment.id)
                .filter(Assignment.name == assignment, graded.type.in_(GRADED)))
        if grade_id is not None:
            rows = rows.filter(graded.name == grade_id)
        return {name: (int(done or 0), total) for name, total, done in rows.group_by(graded.name)}


def _comment_row(db, student_grade: Grade, grade_id: str) -> Comment:
    cell = db.query(BaseCell).filter(BaseCell.notebook_id == student_grade.cell.notebook_id, BaseCell.name == grade_id,
                                     BaseCell.type.in_(COMMENTED)).one()
    comment = Comment(cell_id=cell.id, notebook_id=student_grade.notebook_id)
    db.add(comment)
    return comment


def write_judgement(engine, assignment: str, notebook: str, grade_id: str, changes: dict, seen: dict) -> Saved:
    """Write ``changes`` ({student: (score or None, comment or None)}) in one transaction.

    ``seen`` ({student: token}) is what the marker's page showed; an answer whose saved state
    differs was changed by someone else since, and is reported in :attr:`Saved.replaced`.
    """
    saved = Saved()
    with Session(engine) as db, db.begin():
        if engine.dialect.name == "sqlite":  # take the write lock before reading: no second writer in between
            db.execute(sql("BEGIN IMMEDIATE"))
        rows = _rows(db, assignment, notebook, grade_id, changes).with_for_update(of=Grade)
        found = {s: (g, c) for s, g, c in rows}
        for student, (score, text) in changes.items():
            if student not in found:
                saved.missing.append(student)
                continue
            grade, comment = found[student]
            before = _state(student, grade, comment)
            if student in seen and seen[student] != before.token:
                saved.replaced[student] = before
            grade.manual_score = None if score is None else float(score)
            grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
            if comment is None and text is not None:
                comment = _comment_row(db, grade, grade_id)
            if comment is not None:
                comment.manual_comment = text
            saved.states[student] = _state(student, grade, comment)
    return saved

"""A class's scores as the gradebook holds them (the authoritative points), and its written answers still pending,
read in a few queries.

One query per table rather than one object walk per student keeps a class of 1,000 fast.
Which gradebook: :func:`coursekit.gradebook.resolve_gradebook`, as for every course command.
"""
from dataclasses import dataclass, field

from nbgrader.api import (
    Assignment,
    BaseCell,
    Comment,
    Grade,
    Gradebook,
    GradeCell,
    Notebook,
    SolutionCell,
    Student,
    SubmittedAssignment,
    SubmittedNotebook,
    TaskCell,
)
from sqlalchemy.orm import aliased

from .gradebook import NOT_GRADED_COMMENT, open_gradebook, submitted

__all__ = ["CellInfo", "CellGrade", "ClassGrades", "PendingAnswer", "class_grades", "class_pending", "is_pending",
           "is_blank", "NOT_ANSWERED_MARK", "read_class"]

# How a marker's comment saying "not answered" starts (the marking page writes it with a score of 0): the answer
# counts as left blank, as nbgrader's own 0 for an answer left as released does (:func:`is_blank`).
NOT_ANSWERED_MARK = "**未作答**："


@dataclass(frozen=True)
class CellInfo:
    name: str
    notebook: str
    max_score: float
    autograded: bool   # an autograder test cell (code, no solution) rather than a manually graded answer or task


@dataclass(frozen=True)
class CellGrade:
    auto: float | None
    manual: float | None
    score: float       # nbgrader's: manual if set, else auto, plus extra credit
    blank: bool = False  # a written answer left blank (:func:`is_blank`)


@dataclass
class ClassGrades:
    assignment: str
    students: list                                  # every student in the gradebook, sorted
    cells: list                                     # CellInfo, autograded tests first
    grades: dict = field(default_factory=dict)      # {student: {cell name: CellGrade}} (submitted only)
    not_graded: dict = field(default_factory=dict)  # {student: record_zero's reason}
    timestamps: dict = field(default_factory=dict)  # {student: when they submitted (naive UTC), as nbgrader recorded it}
    elsewhere: dict = field(default_factory=dict)   # {student: [other editions of this work they submitted]}

    @property
    def max_total(self) -> float:
        return sum(c.max_score for c in self.cells)

    def total(self, student: str) -> float:
        return sum(g.score for g in self.grades.get(student, {}).values())


def _cells(db, assignment: str) -> list:
    solutions = {(nb, name) for name, nb in db.query(SolutionCell.name, Notebook.name)
                 .join(Notebook, SolutionCell.notebook_id == Notebook.id)
                 .join(Assignment, Notebook.assignment_id == Assignment.id).filter(Assignment.name == assignment)}
    cells = []
    for kind in (GradeCell, TaskCell):  # a task (nbgrader's "manually graded task") is marked like an answer
        rows = (db.query(kind.name, Notebook.name, kind.max_score, kind.cell_type)
                .join(Notebook, kind.notebook_id == Notebook.id)
                .join(Assignment, Notebook.assignment_id == Assignment.id).filter(Assignment.name == assignment))
        cells += [CellInfo(name, nb, float(points), kind is GradeCell and cell_type == "code" and (nb, name) not in solutions)
                  for name, nb, points, cell_type in rows]
    return sorted(cells, key=lambda c: (not c.autograded, c.notebook, c.name))


def _grades(db, assignment: str) -> dict:
    query = (db.query(Student.id, BaseCell.name, Grade.auto_score, Grade.manual_score, Grade.score)
             .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
             .join(BaseCell, Grade.cell_id == BaseCell.id))
    marked_blank, grades = _marked_blank(db, assignment), {}
    for student, cell, auto, manual, score in submitted(query, assignment):
        blank = is_blank(manual, auto, (student, cell) in marked_blank)
        grades.setdefault(student, {})[cell] = CellGrade(auto, manual, float(score or 0.0), blank)
    return grades


def _marked_blank(db, assignment: str) -> set:
    """``{(student, cell name)}`` of the answers a marker marked as not answered (:data:`NOT_ANSWERED_MARK`)."""
    query = (db.query(Student.id, BaseCell.name).select_from(Comment)
             .join(SubmittedNotebook, Comment.notebook_id == SubmittedNotebook.id)
             .join(BaseCell, Comment.cell_id == BaseCell.id)
             .filter(Comment.manual_comment.like(f"{NOT_ANSWERED_MARK}%")))
    return set(submitted(query, assignment))


def is_blank(manual_score, auto_score, marked_blank: bool = False) -> bool:
    """Was a manually graded answer left blank? nbgrader's own 0 for an answer left as released (``auto_score`` 0,
    no mark over it), or a mark of 0 saying "not answered" (``marked_blank``): one fact, whoever noticed it first, so
    the marking page, the report and the feedback agree before and after a marker confirms it."""
    if manual_score is None:
        return auto_score is not None and float(auto_score) == 0.0
    return marked_blank and float(manual_score) == 0.0


def _not_graded(db, assignment: str) -> dict:
    query = (db.query(Student.id, Comment.auto_comment)
             .join(SubmittedNotebook, Comment.notebook_id == SubmittedNotebook.id)
             .filter(Comment.auto_comment.like(f"{NOT_GRADED_COMMENT}%")))
    return {student: comment for student, comment in submitted(query, assignment)}


def _submissions(db, assignment: str):
    """``(student, timestamp)`` of every submission of ``assignment`` (timestamp None where nbgrader recorded none)."""
    return (db.query(Student.id, SubmittedAssignment.timestamp)
            .join(Student, SubmittedAssignment.student_id == Student.id)
            .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id).filter(Assignment.name == assignment))


def _timestamps(db, assignment: str) -> dict:
    return {student: timestamp for student, timestamp in _submissions(db, assignment) if timestamp is not None}


def _elsewhere(db, editions) -> dict:
    """``{student: [edition, …]}`` of the students who submitted any of ``editions`` (the same work's others)."""
    found = {}
    for edition in editions:
        for student, _ in _submissions(db, edition):  # a submission without a timestamp is one too
            found.setdefault(student, []).append(edition)
    return found


@dataclass(frozen=True)
class PendingAnswer:
    notebook: str
    grade_id: str
    max_score: float


def is_pending(manually_graded: bool, manual_score, auto_score=None) -> bool:
    """A manually graded cell that nobody has marked yet and that was answered (nbgrader scores an answer left as
    released 0 by itself: ``auto_score``)."""
    return bool(manually_graded) and manual_score is None and auto_score is None


def class_pending(gradebook, assignment: str) -> dict:
    """``{student: [PendingAnswer, …]}`` of ``assignment`` in an open gradebook (students with none left out)."""
    db, solution = gradebook.db, aliased(SolutionCell, flat=True)  # both cell kinds share one table
    query = (db.query(Student.id, GradeCell.notebook_id, GradeCell.name, GradeCell.max_score, Grade.manual_score,
                      Grade.auto_score)
             .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id))
    rows = (submitted(query, assignment).join(GradeCell, Grade.cell_id == GradeCell.id)
            # a grade cell that is also a solution cell is marked by hand
            .join(solution, (solution.notebook_id == GradeCell.notebook_id) & (solution.name == GradeCell.name))
            .order_by(Student.id, GradeCell.notebook_id, GradeCell.name))
    notebooks = {nb.id: nb.name for nb in gradebook.find_assignment(assignment).notebooks}
    pending = {}
    for student, notebook, name, points, manual, auto in rows:
        if is_pending(True, manual, auto):
            pending.setdefault(student, []).append(PendingAnswer(notebooks[notebook], name, float(points)))
    return pending


def class_grades(gradebook: Gradebook, assignment: str, editions=()) -> ClassGrades:
    """Every student, cell and grade of ``assignment`` in an open ``gradebook``; ``editions``: the same work's other
    assignments (an edition in another language): the roster is the course's, not one edition's."""
    db = gradebook.db
    gradebook.find_assignment(assignment)  # MissingEntry names the assignment when it is not there
    students = sorted(s for (s,) in db.query(Student.id))
    return ClassGrades(assignment, students, _cells(db, assignment), _grades(db, assignment),
                       _not_graded(db, assignment), _timestamps(db, assignment),
                       _elsewhere(db, [e for e in editions if e != assignment]))


def read_class(url: str, assignment: str, editions=()) -> ClassGrades:
    """:func:`class_grades` of the gradebook at ``url``."""
    with open_gradebook(url) as gradebook:
        return class_grades(gradebook, assignment, editions)

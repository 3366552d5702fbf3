"""A student's grade, and a class's scores as the gradebook holds them (the authoritative points), and its written
answers still pending, read in a few queries.

**One grade** (:func:`grades_of`, :class:`StudentGrade`): what a student scored for an assignment is nbgrader's
submission score (each cell's manual score where one was given, else its automatic one, plus extra credit) less
nbgrader's late penalty, never below 0, exactly as ``nbgrader export`` writes its ``score`` column
(:func:`coursekit.upstream.nbgrader.exported_score`). Every surface reads it: the feedback page, the student's
notification, ``make grade``'s summary, the class report and its CSV, the marking page and the LMS. The penalty is
the one the course's late policy wrote (:mod:`coursekit.late`); nothing here computes another.

One query per table rather than one object walk per student keeps a class of 1,000 fast.
Which gradebook: :func:`coursekit.gradebook.resolve_gradebook`, as for every course command.
"""
import datetime
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
from sqlalchemy import or_
from sqlalchemy.orm import aliased

from .assignments import assignment_of, editions_of
from .due import Extension, due_date, extensions_of, utc_text, zone_text
from .gradebook import NOT_GRADED_COMMENT, open_gradebook, submitted
from .language import SPOKEN, WORDS
from .upstream.nbgrader import exported_score

__all__ = ["CellInfo", "CellGrade", "ClassGrades", "PendingAnswer", "StudentGrade", "class_grades", "class_pending",
           "grade_of", "grades_of", "is_pending", "is_blank", "lateness", "NOT_ANSWERED_MARKS", "read_class"]

# How a marker's comment saying "not answered" starts, in each language (the marking page writes it with a score of 0,
# coursekit.marking.comment): the answer counts as left blank, as nbgrader's own 0 for an answer left as released
# does (:func:`is_blank`).
NOT_ANSWERED_MARKS = tuple(WORDS.say(lang, "feedback.comment_unanswered") for lang in SPOKEN)


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
    finals: dict = field(default_factory=dict)      # {student: StudentGrade} (submitted only): the one grade

    @property
    def max_total(self) -> float:
        return sum(c.max_score for c in self.cells)

    def total(self, student: str) -> float:
        """``student``'s grade (:attr:`StudentGrade.score`: the late penalty taken off); 0 without a submission."""
        final = self.finals.get(student)
        return final.score if final is not None else 0.0


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
    """``{(student, cell name)}`` of the answers a marker marked as not answered (:data:`NOT_ANSWERED_MARKS`)."""
    query = (db.query(Student.id, BaseCell.name).select_from(Comment)
             .join(SubmittedNotebook, Comment.notebook_id == SubmittedNotebook.id)
             .join(BaseCell, Comment.cell_id == BaseCell.id)
             .filter(or_(*(Comment.manual_comment.startswith(mark, autoescape=True) for mark in NOT_ANSWERED_MARKS))))
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


def class_pending(gradebook, assignment: str, students=None) -> dict:
    """``{student: [PendingAnswer, …]}`` of ``assignment`` in an open gradebook (students with none left out; only
    ``students``, when given: a save on the marking page asks of a few, not of the class)."""
    db, solution = gradebook.db, aliased(SolutionCell, flat=True)  # both cell kinds share one table
    query = (db.query(Student.id, GradeCell.notebook_id, GradeCell.name, GradeCell.max_score, Grade.manual_score,
                      Grade.auto_score)
             .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id))
    query = submitted(query, assignment)
    if students is not None:
        query = query.filter(Student.id.in_(list(students)))
    rows = (query.join(GradeCell, Grade.cell_id == GradeCell.id)
            # a grade cell that is also a solution cell is marked by hand
            .join(solution, (solution.notebook_id == GradeCell.notebook_id) & (solution.name == GradeCell.name))
            .order_by(Student.id, GradeCell.notebook_id, GradeCell.name))
    notebooks = {nb.id: nb.name for nb in gradebook.find_assignment(assignment).notebooks}
    pending = {}
    for student, notebook, name, points, manual, auto in rows:
        if is_pending(True, manual, auto):
            pending.setdefault(student, []).append(PendingAnswer(notebooks[notebook], name, float(points)))
    return pending


@dataclass(frozen=True)
class StudentGrade:
    """One student's grade for one assignment, as every surface shows it (:func:`grades_of`)."""
    assignment: str
    student: str
    raw: float                               # nbgrader's submission score: manual else auto, plus extra credit
    penalty: float                           # nbgrader's late penalty, every notebook's
    max_score: float
    timestamp: datetime.datetime | None      # when the submission reached the course (naive UTC), as nbgrader has it
    due: datetime.datetime | None            # the piece of work's due date (naive UTC)
    extension: Extension | None = None       # the student's own, if any
    pending: tuple = ()                      # PendingAnswer: written answers nobody has marked yet
    notebooks: dict = field(default_factory=dict)  # {notebook: (raw, penalty)}

    @property
    def score(self) -> float:
        """The grade: ``raw`` less ``penalty``, never below 0 (``nbgrader export``'s ``score``)."""
        return exported_score(self.raw, self.penalty)

    def notebook_score(self, notebook: str) -> float:
        """One notebook's part of the grade, by the same rule (what its feedback page shows)."""
        raw, penalty = self.notebooks.get(notebook, (0.0, 0.0))
        return exported_score(raw, penalty)

    @property
    def due_for_student(self) -> datetime.datetime | None:
        """Until when this student could hand it in on time: their extension's end, else the due date."""
        return self.extension.until if self.extension is not None else self.due

    @property
    def seconds_late(self) -> float:
        due = self.due_for_student
        return 0.0 if due is None or self.timestamp is None else max(0.0, (self.timestamp - due).total_seconds())

    @property
    def pending_points(self) -> float:
        return sum(answer.max_score for answer in self.pending)


def grades_of(gradebook, assignment: str, students=None, config=None) -> dict:
    """``{student: StudentGrade}`` of everyone who submitted ``assignment`` (only ``students``, when given), read from
    an open ``gradebook`` in four queries: the one grade every surface shows."""
    query = (gradebook.db.query(Student.id, Notebook.name, SubmittedNotebook.score, SubmittedNotebook.max_score,
                                SubmittedNotebook.late_submission_penalty, SubmittedAssignment.timestamp)
             .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id))
    query = submitted(query, assignment)
    if students is not None:
        query = query.filter(Student.id.in_(list(students)))
    rows = {}
    for student, notebook, raw, points, penalty, timestamp in query:
        rows.setdefault(student, (timestamp, {}))[1][notebook] = (float(raw or 0.0), float(penalty or 0.0),
                                                                 float(points or 0.0))
    if not rows:
        return {}
    pending, due = class_pending(gradebook, assignment, students), due_date(gradebook, assignment, config)
    extensions = extensions_of(gradebook, assignment, config)
    return {student: StudentGrade(
        assignment, student, sum(r for r, _, _ in parts.values()), sum(p for _, p, _ in parts.values()),
        sum(m for _, _, m in parts.values()), timestamp, due, extensions.get(student),
        tuple(pending.get(student, ())), {name: (r, p) for name, (r, p, _) in parts.items()})
        for student, (timestamp, parts) in sorted(rows.items())}


def grade_of(gradebook, assignment: str, student: str, config=None) -> StudentGrade | None:
    """``student``'s :class:`StudentGrade` for ``assignment``; None when they have not submitted it."""
    return grades_of(gradebook, assignment, [student], config).get(student)


def lateness(gradebook, assignment: str, config=None, timezone: str = "UTC") -> dict:
    """What is late about ``assignment``'s piece of work, as the marking page and the class report list it: its due
    date, every extension (who granted it, when, why) and every late submission of any edition with its grade, times
    as ISO 8601 and in ``timezone`` (``*_text``)."""
    master = assignment_of(assignment, config).master
    due, extensions = due_date(gradebook, master, config), extensions_of(gradebook, master, config)
    known = {a.name for a in gradebook.assignments}
    late = [grade for edition in editions_of(master, config).values() if edition in known
            for grade in grades_of(gradebook, edition, config=config).values() if grade.seconds_late > 0]
    return {"assignment": master, "timezone": timezone, "due": utc_text(due), "due_text": zone_text(due, timezone),
            "extensions": [{"student": e.student, "until": utc_text(e.until), "until_text": zone_text(e.until, timezone),
                            "reason": e.reason, "granted_by": e.granted_by,
                            "granted_at": zone_text(e.granted_at, timezone)}
                           for e in sorted(extensions.values(), key=lambda e: e.student)],
            "late": [{"student": g.student, "assignment": g.assignment, "submitted": zone_text(g.timestamp, timezone),
                      "due": zone_text(g.due_for_student, timezone), "raw": g.raw, "penalty": g.penalty,
                      "score": g.score, "max_score": g.max_score} for g in sorted(late, key=lambda g: g.student)]}


def class_grades(gradebook: Gradebook, assignment: str, editions=(), config=None) -> ClassGrades:
    """Every student, cell and grade of ``assignment`` in an open ``gradebook``; ``editions``: the same work's other
    assignments (an edition in another language): the roster is the course's, not one edition's."""
    db = gradebook.db
    gradebook.find_assignment(assignment)  # MissingEntry names the assignment when it is not there
    students = sorted(s for (s,) in db.query(Student.id))
    return ClassGrades(assignment, students, _cells(db, assignment), _grades(db, assignment),
                       _not_graded(db, assignment), _timestamps(db, assignment),
                       _elsewhere(db, [e for e in editions if e != assignment]),
                       grades_of(gradebook, assignment, config=config))


def read_class(url: str, assignment: str, editions=(), config=None) -> ClassGrades:
    """:func:`class_grades` of the gradebook at ``url``."""
    with open_gradebook(url) as gradebook:
        return class_grades(gradebook, assignment, editions, config)

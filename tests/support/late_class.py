"""A small course in a real gradebook for the due-date, extension and late-policy tests: the chapter's two editions
(a master and its English edition, as the course config declares them), a few cells, students who submit when told.

No kernel: the rows are written with ``nbgrader.api`` as autograding writes them, and the late penalty by nbgrader's
own ``AssignLatePenalties`` with the course's :class:`coursekit.late.LatePolicy` (:func:`autograde_penalty`), so that
what ``nbgrader export`` reads is what nbgrader itself wrote.
"""
import datetime

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import AssignLatePenalties
from traitlets.config import Config

from coursekit.late import LatePolicy
from coursekit.plugins import with_due_dates
from support.synthetic_class import empty_gradebook

MASTER, EDITION = "ch04_attention", "ch04_attention_en"
AUTO = {"test1_scores": 4.0, "test2_mask": 3.0}
MANUAL = {"q_think1_scale": 1.0}
DUE = datetime.datetime(2027, 1, 15, 15, 59)  # naive UTC: 23:59 in +08:00
DAY = datetime.timedelta(days=1)


def config(**policy) -> Config:
    """The course's settings: the two editions, and ``c.LatePolicy`` as given (``penalty_method="zero"`` …)."""
    c = Config()
    c.CourseKit.assignments = {MASTER: {}, EDITION: {"edition_of": MASTER, "language": "en"}}
    c.AssignLatePenalties.plugin_class = LatePolicy
    for key, value in policy.items():
        setattr(c.LatePolicy, key, value)
    return c


def graded_notebook(english: bool = False) -> nbformat.NotebookNode:
    """An autograded notebook of the course's cells (what ``generate_feedback`` reads back), of one edition."""
    cells = []
    for name, points in AUTO.items():
        cells.append(nbformat.v4.new_code_cell(f"# {name}", metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "grade_id": name, "points": points, "schema_version": 3}}))
    for name, points in MANUAL.items():
        cells.append(nbformat.v4.new_markdown_cell("An answer.", metadata={"nbgrader": {
            "grade": True, "solution": True, "locked": False, "grade_id": name, "points": points, "schema_version": 3}}))
    metadata = {"edition": {"language": "en"}} if english else {}
    return nbformat.v4.new_notebook(cells=cells, metadata=metadata)


def course(path, students=("alice", "bob", "carol"), due=DUE, assignments=(MASTER, EDITION)) -> str:
    """A gradebook at ``path`` with ``assignments`` (each one notebook named as itself), their cells, ``students``,
    and the master due at ``due``; its URL."""
    url = empty_gradebook(path)
    with Gradebook(url) as gradebook:
        for name in assignments:
            gradebook.add_assignment(name, duedate=due if name == MASTER else None)
            gradebook.add_notebook(name, name)
            for cell, points in {**AUTO, **MANUAL}.items():
                gradebook.add_grade_cell(cell, name, name, max_score=points,
                                         cell_type="markdown" if cell in MANUAL else "code")
            for cell in MANUAL:
                gradebook.add_solution_cell(cell, name, name)
        for student in students:
            gradebook.add_student(student)
    return url


def submit(url, student, when, scores=None, assignment=MASTER, manual=None) -> None:
    """``student``'s submission of ``assignment``, arrived at ``when`` (naive UTC), autograded to ``scores``
    ({cell: auto score}; full points when None), its written answers marked ``manual`` ({cell: points}) or pending."""
    scores = dict(AUTO) if scores is None else scores
    with Gradebook(url) as gradebook:
        try:
            gradebook.remove_submission(assignment, student)
        except MissingEntry:  # the first submission
            pass
    with Gradebook(url) as gradebook:
        submission = gradebook.add_submission(assignment, student, timestamp=when)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                name = grade.cell.name
                grade.auto_score = scores.get(name, 0.0) if name in AUTO else None
                grade.manual_score = (manual or {}).get(name)
                grade.needs_manual_grade = name in MANUAL and grade.manual_score is None
        gradebook.db.commit()


def autograde_penalty(url, student, c: Config, assignment=MASTER) -> None:
    """What autograding does after the scores, as the course config lists it: the course's due date and the student's
    extension given to nbgrader (``ApplyDueDates``), then nbgrader's ``AssignLatePenalties`` with the course's policy."""
    resources = {"nbgrader": {"notebook": assignment, "assignment": assignment, "student": student, "db_url": url}}
    for step in with_due_dates([AssignLatePenalties]):
        step(config=c).preprocess(nbformat.v4.new_notebook(), resources)

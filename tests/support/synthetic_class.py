"""A synthetic graded class for the report's unit tests: a real nbgrader gradebook + autograded notebooks.

No kernel, no nbgrader CLI: the gradebook is built with ``nbgrader.api`` and each autograded
notebook with ``nbformat``, its test cells carrying the grader's payload
(:data:`coursekit.record.MIME`) exactly as the grader emits it. Used by test_results.py,
test_report.py, test_report_csv.py, test_report_html.py, test_export.py.
"""
import atexit
import functools
import importlib.metadata
import json
import os
import pathlib
import shutil
import tempfile
from dataclasses import dataclass, field

import nbformat
from nbgrader.api import Comment, Grade, Gradebook, SubmittedAssignment, SubmittedNotebook

from coursekit.record import MIME, CellRecord
from coursekit.gradebook import alembic_on_path
from coursekit.paths import REPO

ASSIGNMENT = NOTEBOOK = "ch04_attention"
AUTO = {"test1_scores": 4.0, "test2_mask": 3.0, "test3_softmax": 3.0, "test4_end_to_end": 2.0}
MANUAL = {"q_lab1_no_scale": 1.0, "q_think1_scale": 1.0}
TEST_NUMBER = {name: n for n, name in enumerate(AUTO, 1)}
STAGE_OF = {"test1_scores": ("scores",), "test2_mask": ("mask",), "test3_softmax": ("softmax",),
            "test4_end_to_end": ("scores", "mask", "softmax")}


def check(id, passed, visible=None, description=""):
    visible = id.startswith("verify.") if visible is None else visible
    return {"id": id, "visible": visible, "description": description or f"检查 {id}", "passed": passed}


def finding(bug, stage=None, message=""):
    stage = stage or bug.split("_")[0]
    return {"stage": stage, "bug": bug, "probe": f"{stage}/rect", "message": message or f"现象：{bug}"}


def payload(grade_id, score, checks=(), findings=(), status="graded", reason=""):
    """The record exactly as the grader publishes it (``coursekit.record.CellRecord.to_dict``)."""
    record = CellRecord.from_dict({"schema": 1, "grade_id": grade_id, "test": TEST_NUMBER[grade_id],
                                   "points": AUTO[grade_id], "score": score, "status": status, "reason": reason,
                                   "checks": list(checks), "findings": list(findings)})
    return record.to_dict()


@dataclass
class Student:
    """One synthetic student; ``payloads`` None: the autograded notebook is missing (e.g. not graded)."""
    name: str
    scores: dict                                    # {grade_id: auto score} of the autograded cells
    payloads: list | None = field(default_factory=list)
    manual: dict = field(default_factory=dict)      # {answer cell: manual score}
    zero_reason: str = ""                           # set: the record_zero comment


def autograded_notebook(payloads: list) -> nbformat.NotebookNode:
    """Test cells as nbgrader writes them after autograding: payload display + the score as last expression."""
    cells = [nbformat.v4.new_markdown_cell("# 第 4 章")]
    by_id = {p["grade_id"]: p for p in payloads}
    for grade_id, points in AUTO.items():
        cell = nbformat.v4.new_code_cell("# test", metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": points}})
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="[PASS] ...\n")]
        if grade_id in by_id:  # the grader's verdict, as the grading process writes it (and notes it did)
            cell.metadata["coursekit"] = {"grader": {"kernel_agreed": True}}
            cell.outputs.append(nbformat.v4.new_output("display_data", data={MIME: by_id[grade_id]}))
            cell.outputs.append(nbformat.v4.new_output("execute_result", data={"text/plain": str(
                by_id[grade_id]["score"])}, execution_count=1))
        cells.append(cell)
    return nbformat.v4.new_notebook(cells=cells)


def _gradebook_structure(gradebook, roster, assignment=ASSIGNMENT):
    """The assignment's one notebook (named as the assignment) and its cells; the roster."""
    gradebook.add_assignment(assignment)
    gradebook.add_notebook(assignment, assignment)
    for name, points in AUTO.items():
        gradebook.add_grade_cell(name, assignment, assignment, max_score=points, cell_type="code")
    for name, points in MANUAL.items():
        gradebook.add_grade_cell(name, assignment, assignment, max_score=points, cell_type="markdown")
        gradebook.add_solution_cell(name, assignment, assignment)
    for student in roster:
        gradebook.update_or_create_student(student)


def _submission(db, assignment, notebook, student: Student):
    """One submission with its grades and comments, added to the session without committing (bulk)."""
    submission = SubmittedAssignment(assignment=assignment, student_id=student.name)
    nb = SubmittedNotebook(notebook=notebook, assignment=submission)
    for cell in notebook.grade_cells:
        auto = student.scores.get(cell.name) if cell.name in AUTO else None
        Grade(cell_id=cell.id, notebook=nb, auto_score=0.0 if student.zero_reason and auto is None else auto,
              manual_score=student.manual.get(cell.name), needs_manual_grade=cell.name in MANUAL)
    for cell in notebook.solution_cells:
        Comment(cell_id=cell.id, notebook=nb, auto_comment=student.zero_reason or None)
    db.add(submission)


def gradebook_of(notebook, path, assignment=ASSIGNMENT, students=("s1",), timestamps=None) -> str:
    """A new gradebook at ``path`` holding ``notebook``'s nbgrader cells (graded, solution, task) as the
    one notebook of ``assignment``, and a submission of it by each of ``students`` (made at ``timestamps``:
    {student: "2026-12-03 10:00:00 UTC"}, when given); its sqlite URL."""
    url = empty_gradebook(path)
    with Gradebook(url) as gradebook:
        gradebook.add_assignment(assignment)
        gradebook.add_notebook(assignment, assignment)
        for cell in notebook.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade"):
                gradebook.add_grade_cell(meta["grade_id"], assignment, assignment, max_score=meta["points"],
                                         cell_type=cell.cell_type)
            if meta.get("solution"):
                gradebook.add_solution_cell(meta["grade_id"], assignment, assignment)
            if meta.get("task"):
                gradebook.add_task_cell(meta["grade_id"], assignment, assignment, max_score=meta["points"],
                                        cell_type=cell.cell_type)
        for student in students:
            gradebook.add_student(student)
            when = (timestamps or {}).get(student)
            gradebook.add_submission(assignment, student, **({"timestamp": when} if when else {}))
    return url


def write_class(course, students: list, roster_only=(), assignment=ASSIGNMENT) -> str:
    """Gradebook (``course/gradebook.db``) + ``autograded/`` for ``students``; ``roster_only``: no submission.
    Another ``assignment`` (an edition's) is added to the course's gradebook when it has one already."""
    course = pathlib.Path(course)
    course.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{course / 'gradebook.db'}"
    if assignment == ASSIGNMENT or not (course / "gradebook.db").exists():
        empty_gradebook(course / "gradebook.db")
    with Gradebook(url) as gradebook:
        _gradebook_structure(gradebook, [s.name for s in students] + list(roster_only), assignment)
        found = gradebook.find_assignment(assignment)
        notebook = gradebook.find_notebook(assignment, assignment)
        with gradebook.db.no_autoflush:
            for student in students:
                _submission(gradebook.db, found, notebook, student)
        gradebook.db.commit()
    for student in students:
        if student.payloads is not None:
            path = course / "autograded" / student.name / assignment / f"{assignment}.ipynb"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps(autograded_notebook(student.payloads)), encoding="utf-8")  # no validation: fast
    return url


def _all_passed(grade_id, score=None, extra_findings=(), failing=()):
    """A payload for ``grade_id`` with a few visible and hidden checks; ``failing`` ids fail."""
    n = TEST_NUMBER[grade_id]
    ids = [f"verify.{n}", f"verify.{n + 10}", f"test{n}.hidden.rect_random", f"test{n}.hidden.float64"]
    checks = [check(i, i not in failing) for i in ids]
    score = AUTO[grade_id] * sum(c["passed"] for c in checks) / len(checks) if score is None else score
    return payload(grade_id, score, checks, extra_findings)


def make_student(name, failing=(), findings=None, manual=None, score_override=None):
    findings = findings or {}
    payloads = [_all_passed(g, score_override.get(g) if score_override else None, findings.get(g, ()), failing)
                for g in AUTO]
    scores = {p["grade_id"]: p["score"] for p in payloads}
    if score_override:
        scores.update({g: s + 0.5 for g, s in score_override.items()})  # the gradebook disagrees
    return Student(name, scores, payloads, manual or {})


@functools.lru_cache(maxsize=None)
def _empty_gradebook_file() -> pathlib.Path:
    """A new gradebook file, made once per nbgrader and SQLAlchemy version and kept in ``.state/test-cache``.

    nbgrader runs the ``alembic`` command for each new gradebook (seconds); test processes (and
    pytest-xdist's workers) copy this one instead. Made under a temporary name, then renamed.
    """
    versions = "-".join(f"{name}{importlib.metadata.version(name)}" for name in ("nbgrader", "sqlalchemy"))
    kept = REPO / ".state" / "test-cache" / f"empty-gradebook-{versions}.db"
    if not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        folder = pathlib.Path(tempfile.mkdtemp(prefix="empty-gradebook-", dir=kept.parent))
        alembic_on_path()
        Gradebook(f"sqlite:///{folder / 'gradebook.db'}").close()
        os.replace(folder / "gradebook.db", kept)
        shutil.rmtree(folder, ignore_errors=True)
    return kept


def empty_gradebook(path) -> str:
    """A new, empty gradebook at ``path`` (a copy of the one made once); its sqlite URL."""
    shutil.copy2(_empty_gradebook_file(), path)
    return f"sqlite:///{path}"


@functools.lru_cache(maxsize=None)
def _small_class_template() -> pathlib.Path:
    """``small_class`` built once per test process (a gradebook costs seconds: nbgrader runs alembic)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="small-class-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _build_small_class(folder)
    return folder


def small_class(course):
    """A copy of the eight-student class (see ``_build_small_class``) in ``course``; its gradebook URL."""
    course = pathlib.Path(course)
    shutil.copytree(_small_class_template(), course, dirs_exist_ok=True)
    return f"sqlite:///{course / 'gradebook.db'}"


def small_class_page(course) -> pathlib.Path:
    """The class report's index.html of :func:`small_class`, written into ``course``."""
    import io

    from attnkit.reteach import reteach
    from coursekit.grades import read_class
    from coursekit.report.html_page import render
    from coursekit.report.tables import build_report

    report = build_report(course, read_class(small_class(course), ASSIGNMENT), io.StringIO(), reteach)
    path = pathlib.Path(course) / "index.html"
    path.write_text(render(report), encoding="utf-8")
    return path


def _build_small_class(course):
    """Eight students covering every case the report distinguishes; returns the gradebook URL.

    alice correct · bob scores_missing_scale · carol mask_replaces_scores + softmax_no_max_subtraction ·
    dave not graded (record_zero) · erin TEST 2 delegated · frank no submission (roster only) ·
    gina submitted but not autograded · hank graded, payload score ≠ gradebook.
    """
    scale, replace = finding("scores_missing_scale"), finding("mask_replaces_scores")
    no_max = finding("softmax_no_max_subtraction")
    students = [
        make_student("alice", manual={"q_lab1_no_scale": 1.0}),
        make_student("bob", failing=("test1.hidden.rect_random",),
                 findings={"test1_scores": [scale], "test4_end_to_end": [scale]}),
        make_student("carol", failing=("test2.hidden.rect_random", "test3.hidden.float64"),
                 findings={"test2_mask": [replace], "test3_softmax": [no_max],
                           "test4_end_to_end": [replace, no_max]}),
        Student("dave", {}, None, zero_reason="Not graded automatically, scored 0: JSONDecodeError: bad. After …"),
        make_student("hank", score_override={"test1_scores": 4.0}),
    ]
    delegated = payload("test2_mask", 0.0, status="delegated", reason="调用了参考实现")
    erin = make_student("erin")
    erin.payloads[1], erin.scores["test2_mask"] = delegated, 0.0
    students.insert(4, erin)
    url = write_class(course, students, roster_only=["frank"])
    collected_only(course, "gina")
    return url


def collected_only(course, student):
    """A submission in ``submitted/`` that autograde has not seen (not in the gradebook)."""
    folder = pathlib.Path(course) / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), folder / f"{NOTEBOOK}.ipynb")

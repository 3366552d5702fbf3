"""Does every surface give a student the grade nbgrader export gives them, row by row of one table of due-date cases?

One course in a real gradebook (support.late_class: the chapter's two editions, an earlier piece of work ``ch03``),
the course's policy (20 % off per day late, at most 60 %, two late days for the term), and one student per row,
handed in and autograded as grading does it (nbgrader's own ``AssignLatePenalties`` through the course's hook), then
changed as the row says (an extension granted with ``make extend``'s function, a written answer marked on the marking
page's path). Then the real ``nbgrader export`` and ``nbgrader generate_feedback`` run in the course folder, and each
surface, through its own function, must show the export's number for each row: the one grade
(coursekit.grades), the feedback page and the notification it feeds, the grading service's score, the LMS's score,
the class report's students.csv, the marking page's late list, and make grade's summary (the mean). Each row's
expected grade is worked out by hand in the table. The Chromium side (the hub walk, test_hub.py and
test_hub_lti.py) shows the same on a few rows; bad input: tests/unit/test_marking_dates.py, test_due.py, test_late.py.
"""
import csv
import dataclasses
import datetime
import json
import os
import pathlib
import subprocess
import sys
import types

import pytest
from nbgrader.api import Gradebook

from coursekit.grades import grade_of, grades_of
from coursekit.grading.progress import TEXT as GRADE_TEXT
from coursekit.grading.run import grades_line
from coursekit.lms.score import scores_of
from coursekit.marking.dates import dates_view, extend, settle_marked
from coursekit.paths import COURSE
from coursekit.plugins.release_feedback import released_status
from coursekit.report.command import write_report
from coursekit.service import steps
from coursekit.settings import course_config
from support.late_class import AUTO, DAY, DUE, EDITION, MASTER, MANUAL, autograde_penalty, course, graded_notebook, submit

EARLIER = "ch03"  # a piece of work due before the chapter: where late days are spent first
CONFIG = """c = get_config()
load_subconfig({course_config!r})  # the course's own settings, plug-ins and late policy hook
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "late-table"
c.Exchange.root = {root!r} + "/exchange"
c.CourseKit.language = "en"
c.CourseKit.timezone = "UTC"
c.CourseKit.assignments = {{"ch03": {{}}, "ch04_attention": {{}},
                           "ch04_attention_en": {{"edition_of": "ch04_attention", "language": "en"}}}}
c.LatePolicy.penalty_method = "percent"
c.LatePolicy.percent_per_day = 20.0
c.LatePolicy.max_percent = 60.0
c.LatePolicy.late_days = 2
"""
FULL = sum(AUTO.values()) + sum(MANUAL.values())  # 8: every row's work is all right; what changes is when


@dataclasses.dataclass(frozen=True)
class Row:
    student: str
    arrived: datetime.timedelta           # after the due date (negative: before)
    grade: float                          # worked out by hand
    assignment: str = MASTER
    extension: datetime.timedelta = None  # granted after grading, from the due date
    earlier: datetime.timedelta = None    # ch03 handed in this late (its late days spent first)
    first: datetime.timedelta = None      # an earlier submission of the same work, replaced by this one
    marked_after: bool = False            # the written answer marked after the penalty was written


TABLE = [
    Row("on_time", -DAY, FULL),
    Row("late", 5 * DAY, FULL * 0.4),                                   # 2 days from the bank, 3 x 20 % = the 60 % cap
    Row("late_within_extension", DAY, FULL, extension=2 * DAY),         # the extension runs past its arrival
    Row("late_days_spent", DAY, FULL * 0.8, earlier=2 * DAY),           # both days spent on ch03: 1 x 20 %
    Row("resubmitted_after_due", 3 * DAY, FULL * 0.8, first=-DAY),      # the newest counts: 3 days, 2 from the bank
    Row("marked_after_penalty", 3 * DAY, FULL * 0.8, marked_after=True),  # 20 % of the score with its mark
    Row("other_edition", 3 * DAY, FULL * 0.8, assignment=EDITION),      # the master's due date, the same bank
]


def _nbgrader(folder, *args):
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=folder, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PATH": f"{pathlib.Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The course folder, its gradebook's URL and its config, every row handed in, graded and changed."""
    folder = tmp_path_factory.mktemp("late-table")
    (folder / "nbgrader_config.py").write_text(CONFIG.format(course_config=str(COURSE / "nbgrader_config.py"),
                                                             root=str(folder)), encoding="utf-8")
    for name in (EARLIER, MASTER, EDITION):
        (folder / "source" / name).mkdir(parents=True)
    url = course(folder / "gradebook.db", [r.student for r in TABLE], assignments=(EARLIER, MASTER, EDITION))
    config = course_config(folder)
    with Gradebook(url) as gradebook:
        gradebook.find_assignment(EARLIER).duedate = DUE - 10 * DAY
        for student in gradebook.students:
            student.lms_user_id = f"lms-{student.id}"
        gradebook.db.commit()
    for row in TABLE:
        _hand_in(folder, url, config, row)
    for row in TABLE:  # what the instructor does afterwards
        if row.extension is not None:
            when = (DUE + row.extension).isoformat()
            extend(folder, url, row.assignment, row.student, when + "+00:00", "ill", "teacher")
        if row.marked_after:
            with Gradebook(url) as gradebook:
                gradebook.find_grade("q_think1_scale", row.assignment, row.assignment, row.student).manual_score = 1.0
                gradebook.db.commit()
            settle_marked(folder, url, row.assignment, [row.student])
    return folder, url, config


def _hand_in(folder, url, config, row):
    """The row's submissions, each autograded as grading does (the scores, then nbgrader's late penalty), and its
    autograded notebook on disk for generate_feedback."""
    marks = {} if row.marked_after else {"q_think1_scale": 1.0}
    if row.earlier is not None:
        submit(url, row.student, DUE - 10 * DAY + row.earlier, assignment=EARLIER, manual=marks)
        autograde_penalty(url, row.student, config, EARLIER)
    for arrived in ([row.first] if row.first is not None else []) + [row.arrived]:
        submit(url, row.student, DUE + arrived, assignment=row.assignment, manual=marks)
        autograde_penalty(url, row.student, config, row.assignment)
    path = folder / "autograded" / row.student / row.assignment / f"{row.assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(graded_notebook(row.assignment == EDITION)), encoding="utf-8")
    (path.parent / "timestamp.txt").write_text(str(DUE + row.arrived), encoding="utf-8")


@pytest.fixture(scope="module")
def exported(graded):
    """``{(assignment, student): score}`` as the real ``nbgrader export`` writes it."""
    folder, _, _ = graded
    _nbgrader(folder, "export", "--to", str(folder / "grades.csv"))
    with (folder / "grades.csv").open(encoding="utf-8") as rows:
        return {(r["assignment"], r["student_id"]): float(r["score"]) for r in csv.DictReader(rows) if r["timestamp"]}


@pytest.mark.parametrize("row", TABLE, ids=[r.student for r in TABLE])
def test_is_nbgrader_exports_grade_the_one_worked_out_by_hand(exported, row):
    assert exported[(row.assignment, row.student)] == pytest.approx(row.grade)


def _one_grade(graded, row):
    folder, url, config = graded
    with Gradebook(url) as gradebook:
        return grade_of(gradebook, row.assignment, row.student, config).score


def _feedback_page_and_notification(graded, row):
    """The score on the page the real ``nbgrader generate_feedback`` writes, as its release tells the student's Lab."""
    folder, _, _ = graded
    page = folder / "feedback" / row.student / row.assignment / f"{row.assignment}.html"
    if not page.exists():
        _nbgrader(folder, "generate_feedback", row.assignment, "--force")
    return released_status(row.assignment, "t", [page.read_text(encoding="utf-8")]).score


def _service_score(graded, row):
    folder, url, config = graded
    app = types.SimpleNamespace(config=config, coursedir=types.SimpleNamespace(
        db_url=url, course_id="late-table", assignment_id=row.assignment))
    return steps.score(app, row.student)[0]


def _lms_score(graded, row):
    _, url, config = graded
    with Gradebook(url) as gradebook:
        return scores_of(gradebook, config)[(MASTER, row.student)].given


def _report_csv(graded, row):
    folder, url, _ = graded
    out = folder / "reports" / row.assignment
    if not (out / "students.csv").exists():
        write_report(folder, row.assignment, url, out, out=open(os.devnull, "w"), lang="en")
    with (out / "students.csv").open(encoding="utf-8") as rows:
        return float(next(r["total"] for r in csv.DictReader(rows) if r["student"] == row.student))


def _marking_page(graded, row):
    folder, url, _ = graded
    late = {g["student"]: g["score"] for g in dates_view(folder, url, row.assignment)["late"]}
    return late.get(row.student, _one_grade(graded, row))  # on time: not in the late list, the one grade


SURFACES = {"one grade": _one_grade, "feedback page and notification": _feedback_page_and_notification,
            "grading service": _service_score, "LMS": _lms_score, "class report csv": _report_csv,
            "marking page": _marking_page}


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("row", TABLE, ids=[r.student for r in TABLE])
def test_does_every_surface_give_the_grade_nbgrader_export_gives(graded, exported, row, surface):
    assert SURFACES[surface](graded, row) == pytest.approx(exported[(row.assignment, row.student)], abs=0.005)


@pytest.mark.parametrize("assignment", [MASTER, EDITION])
def test_does_make_grades_summary_give_the_exports_mean(graded, exported, assignment):
    folder, url, config = graded
    scores = [score for (name, _), score in exported.items() if name == assignment]
    line = grades_line(url, assignment, config, GRADE_TEXT["en"])
    assert f"{len(scores)} students, mean {sum(scores) / len(scores):.2f} / {FULL:g}" in line, line
    with Gradebook(url) as gradebook:
        assert len(grades_of(gradebook, assignment, config=config)) == len(scores)


def test_does_the_class_report_list_the_extensions_and_each_late_grade(graded, exported):
    """The report's section on due dates: the extension (who, why) and each late row of the master, with the grade
    nbgrader export gives."""
    folder, url, _ = graded
    out = folder / "reports" / "listing"
    write_report(folder, MASTER, url, out, out=open(os.devnull, "w"), lang="en")
    page = (out / "index.html").read_text(encoding="utf-8")
    section = page.split("<h2>Due date, extensions and late work</h2>")[1].split("<h2>")[0]
    assert "Due 2027-01-15 15:59 (UTC+00:00) (both editions)." in section
    assert "<td>late_within_extension</td><td>2027-01-17 15:59 (UTC+00:00)</td><td>ill</td><td>teacher</td>" in section
    late = [r for r in TABLE if r.assignment == MASTER and r.arrived > datetime.timedelta(0) and r.extension is None]
    for row in late:
        assert f"<td>{row.student}</td>" in section
        assert f'<td class="num">{exported[(MASTER, row.student)]:g} / {FULL:g}</td>' in section
    assert "<td>on_time</td>" not in section

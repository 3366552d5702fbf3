"""Does the toolkit grade an nbgrader assignment it was not written for, beside Chapter 4, as nbgrader does?

A course folder holding ``ch04_attention`` and nbgrader's own documentation course ``ps1`` side by
side (tests/support/ps1.py: from the installed wheel), both generated and released as an instructor
would. ``make grade ASSIGNMENT=ps1`` grades nbgrader's two real submissions and a synthetic class in
the sandbox, on the one fast path; the scores must equal nbgrader's own results: nbgrader's autograded
notebooks for bitdiddle and hacker (as its docs ship them), and stock ``nbgrader autograde`` (plain
ipykernel, no course plug-ins) for every other student, cell by cell. The red-team table's hostile
cells, added to a ps1 submission, must score as the untouched release. Then the feedback and the class
report of ps1 speak of ps1: its task awaits marking, its cells have names of their own, and the
report warns of nothing a plain assignment does not have.
"""
import concurrent.futures
import csv
import os
import re
import shutil

import nbformat
import pytest
from nbgrader.api import Gradebook

from coursekit.paths import copy_course
from coursekit.settings import course_settings
from support import faults, grade_output, ps1
from support import service_tools as st
from support.classes import make_grade
from support.course_tools import isolated_env, run_nbgrader, visible_text

ASSIGNMENT = ps1.ASSIGNMENT
PLAIN_CONFIG = "c = get_config()\nc.CourseDirectory.root = {root!r}\n"  # stock nbgrader: no course plug-in at all


def _scores(course) -> dict:
    """{student: {grade_id: auto score}} of ps1 in ``course``'s gradebook."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return {s.student.id: {g.name: g.auto_score for nb in s.notebooks for g in nb.grades}
                for s in gradebook.find_assignment(ASSIGNMENT).submissions}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Both assignments generated; ps1's real and synthetic submissions collected; ``make grade`` run on ps1, and beside
    it (a course of its own, the same non-hostile submissions) stock nbgrader's autograde: ``(course, stock)``."""
    root = tmp_path_factory.mktemp("two-assignments")
    (root / "exchange").mkdir()
    course = copy_course(root / "course")
    ps1.add_source(course)
    env = isolated_env(root / "home", ATTN_EXCHANGE=str(root / "exchange"))
    st.generate_and_release(course, env, "ch04_attention", ASSIGNMENT)
    release = {name: nbformat.read(course / "release" / ASSIGNMENT / f"{name}.ipynb", as_version=4)
               for name in ps1.NOTEBOOKS}
    for student in ps1.REAL:
        ps1.submit_real(course, student)
    for student, notebooks in ps1.class_of(release).items():
        ps1.submit(course, student, notebooks)
    plain = _plain_copy(course, tmp_path_factory.mktemp("stock"))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # side by side: one waits on make grade's workers
        stock = pool.submit(_stock, plain)
        done = make_grade(course, env, ASSIGNMENT, "--workers", "2")
        scores = stock.result()
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return (course, env, done, release), scores


@pytest.fixture(scope="module")
def course(graded):
    """(course folder, its environment, make grade's run, ps1's release notebooks)."""
    return graded[0]


@pytest.fixture(scope="module")
def stock(graded):
    """The same non-hostile submissions graded by stock nbgrader (its own config, plain kernels): the oracle."""
    return graded[1]


def _plain_copy(course, root):
    """ps1's source and its non-hostile submissions in a course of stock nbgrader's own (no course plug-in at all)."""
    plain = root / "course"
    for part in ("source", "submitted"):
        shutil.copytree(course / part, plain / part, ignore=shutil.ignore_patterns("ch04_attention", "ps1_red_*"))
    (plain / "nbgrader_config.py").write_text(PLAIN_CONFIG.format(root=str(plain)))
    return plain


def _stock(plain) -> dict:
    home_env = isolated_env(plain.parent / "home")
    for step in (("generate_assignment", ASSIGNMENT), ("autograde", ASSIGNMENT)):
        done = run_nbgrader(*step, cwd=plain, env=home_env)
        assert done.returncode == 0, f"stock {step[0]}: {done.stderr[-2000:]}"
    return _scores(plain)


def test_are_nbgraders_own_submissions_scored_as_nbgrader_scored_them(course):
    """bitdiddle and hacker: every cell's auto score as in nbgrader's own autograded notebooks (totals 1.5, 3.0)?"""
    scores = _scores(course[0])
    for student in ps1.REAL:
        theirs = ps1.nbgraders_scores(student)  # its graded cells (the task is marked by hand, nothing to compare)
        assert {cell: scores[student][cell] for cell in theirs} == theirs and len(theirs) == 8, student
    with Gradebook(f"sqlite:///{course[0] / 'gradebook.db'}") as gradebook:
        totals = {s: gradebook.find_submission(ASSIGNMENT, s).score for s in ps1.REAL}
    assert totals == {"bitdiddle": 1.5, "hacker": 3.0}


def test_is_every_other_student_scored_as_stock_nbgrader_scores_them(course, stock):
    """The synthetic class (untouched, correct, wrong, and the real two): make grade equals stock nbgrader, cell by
    cell, and the class is not trivial (someone passes a test cell someone else fails)?"""
    scores = _scores(course[0])
    assert {s: scores[s] for s in stock} == stock and len(stock) == 7
    assert scores["ps1_correct"]["correct_squares"] == 1.0 and scores["ps1_wrong_squares"]["correct_squares"] == 0.0


@pytest.mark.parametrize("student", ps1.RED)
def test_does_a_hostile_cell_score_as_the_untouched_release(course, student):
    scores = _scores(course[0])
    assert scores[student] == scores[ps1.UNTOUCHED]


def test_were_the_kernels_sandboxed_and_nothing_changed_outside(course):
    """The run said it sandboxed every kernel; no grader file of the chapter, no source was planted or changed?"""
    graded, _, done, _ = course
    assert grade_output.words()["sandboxed"] in done.stdout  # make grade speaks the course's language
    assert not list(graded.rglob("planted_by_student.py"))


@pytest.fixture(scope="module")
def feedback(course):
    graded, env, *_ = course
    done = run_nbgrader("generate_feedback", ASSIGNMENT, "--student", "hacker", cwd=graded, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return visible_text((graded / "feedback" / "hacker" / ASSIGNMENT / "problem1.html").read_text(encoding="utf-8"))


def test_does_the_feedback_name_each_cell_and_keep_the_task_pending(feedback):
    """The task (Part E, 4 points) awaits marking, never 0 / 4; no cell is called by an id nbgrader made up, and the
    answer and its tests under one heading have different names?"""
    assert re.search(r"Part E \(4 points\)：\S+ （4 分）", feedback) and "0 / 4" not in feedback
    assert "cell-938593c4a215c6cc" not in feedback
    assert "Part A (2 points) · 测试 (1)：1 / 1 分" in feedback and "Part A (2 points) · 测试 (2)：1 / 1 分" in feedback


@pytest.fixture(scope="module")
def report(course):
    graded, env, *_ = course
    done = run_nbgrader_report(graded, env)
    assert done.returncode == 0, done.stderr[-2000:]
    return (graded / "reports" / ASSIGNMENT / "index.html").read_text(encoding="utf-8")


def run_nbgrader_report(graded, env):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "coursekit.report", "--assignment", ASSIGNMENT], cwd=graded,
                          env=env, capture_output=True, text=True, timeout=600)


def test_does_the_report_of_a_plain_assignment_warn_of_nothing_and_count_its_test_cells(report):
    """No advice to autograde again for records a plain assignment never has; each test cell has its pass rate; the
    task is among the written work, by its heading (the id nbgrader made up only in the CSV files)?"""
    text = visible_text(report)
    assert "没有评分器的结构化结果" not in text and "没有检查结果" not in text
    assert "correct_squares" in text and "squares_invalid_input" in text
    written = text.split("书面题的人工评分")[1].split("每个检查的通过率")[0]
    assert "Part E (4 points)" in written and "cell-938593c4a215c6cc" not in report


def test_does_the_report_compare_what_the_ps1_students_wrote(course, report):
    """The similarity section and similarity.csv for ps1, from the release nbgrader generated and the autograded
    notebooks: only the two who share a loop of their own are a pair (nobody who handed back the untouched release,
    nor two whose one shared answer is the source's solution), and each flagged pair's page lies where its row
    points?"""
    graded = course[0]
    assert "相似的提交" in visible_text(report) and "不是抄袭的证据" in visible_text(report)
    with (graded / "reports" / ASSIGNMENT / "similarity.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    paired = {row[side] for row in rows for side in ("first_student", "second_student")}
    assert not paired & {ps1.UNTOUCHED, *ps1.RED}
    assert paired == set(ps1.LOOPS)  # ps1_correct and ps1_wrong_squares share only the source's own sum_of_squares
    for row in (r for r in rows if r["page"]):
        assert (graded / "reports" / ASSIGNMENT / row["page"]).is_file() and f"href='{row['page']}'" in report


def test_is_chapter_4_in_the_same_course_still_its_own(course):
    """The chapter was generated beside ps1 with its own stubs, ps1 with nbgrader's?"""
    graded = course[0]
    chapter = (graded / "release" / "ch04_attention" / "ch04_attention.ipynb").read_text(encoding="utf-8")
    problem = (graded / "release" / ASSIGNMENT / "problem1.ipynb").read_text(encoding="utf-8")
    assert "在这里写你的实现" in chapter and "NotImplementedError" not in chapter
    assert "raise NotImplementedError()" in problem and "在这里写你的实现" not in problem
    assert os.path.exists(graded / "release" / ASSIGNMENT / "jupyter.png")


def test_does_the_service_give_feedback_seconds_after_submit_for_ps1(course):
    """The grading service, told to grade ps1 as it arrives: a student's submission of both notebooks gets both
    pages released, with the scores of their answers (last here: it changes the course's config)."""
    graded, env, _, release = course
    sc = st.ServiceCourse(graded, graded.parent / "exchange", env, graded.parent / "students")
    sc.configure(assignments=[ASSIGNMENT], cooldown=0, max_attempts=0)
    answered = ps1.class_of(release)["ps1_correct"]
    with st.running_service(sc, "service-ps1"):
        submitted = st.submit(sc, "ps1_live", assignment=ASSIGNMENT, notebooks=answered)
        for notebook in ps1.NOTEBOOKS:
            st.wait_for(lambda n=notebook: st.fetchable(sc, submitted, n), 180, f"ps1's {notebook} feedback")
    page = visible_text(st.feedback_page(sc, submitted, "problem1").read_text(encoding="utf-8"))
    assert "Part A (2 points) · 测试 (1)：1 / 1 分" in page and "Part B (1 point) · 测试 (1)：0.5 / 0.5 分" in page


def test_is_an_older_course_that_fails_in_its_own_cells_the_courses_fault_not_the_students(course, tmp_path):
    """#59 item 11: an older course (schema v1 notebooks with a task cell, migrated by `nbgrader update`:
    tests/support/older_course.py) on which nbgrader stops for every submission in its own step (KeyError:
    'grade_id'). make grade says so once, as the course's fault naming the step and what to fix, exits as a fault
    (make's 2), and no student gets a 0: nobody's submission is in the gradebook's grades; nbgrader autograde by hand
    stops with the same line."""
    from support import older_course

    graded, env, *_ = course
    copy = tmp_path / "course"
    shutil.copytree(graded, copy, ignore=shutil.ignore_patterns("autograded", "grading-logs", "feedback", "reports"))
    older_course.add_source(copy, env)
    st.generate_and_release(copy, env, older_course.ASSIGNMENT, steps=("generate_assignment",))
    students = ["o1", "o2", "o3"]
    older_course.submit(copy, students)
    done = make_grade(copy, env, older_course.ASSIGNMENT, "--workers", "2")
    lang = course_settings(copy).language  # make grade and nbgrader autograde speak the course's
    said = [line for line in (done.stdout + done.stderr).splitlines() if faults.says(line, lang, "fault.course")]
    assert done.returncode == 3 and len(said) == 1, (done.stdout + done.stderr)[-3000:]
    assert "KeyError: 'grade_id'" in said[0] and "OverwriteCells" in said[0] and f"source/{older_course.ASSIGNMENT}" \
        in said[0], said
    assert not [line for line in done.stdout.splitlines() if "scored 0" in line], done.stdout[-2000:]
    with Gradebook(f"sqlite:///{copy / 'gradebook.db'}") as gradebook:
        zeros = [s.student.id for s in gradebook.find_assignment(older_course.ASSIGNMENT).submissions]
    assert zeros == []
    by_hand = run_nbgrader("autograde", older_course.ASSIGNMENT, cwd=copy, env=env)
    assert by_hand.returncode != 0 and said[0].split(": ", 1)[-1][:80] in by_hand.stdout + by_hand.stderr

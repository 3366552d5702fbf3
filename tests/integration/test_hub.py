"""Does the whole course loop work on the hub, in a real browser?

One hub (autograde/hub) with an instructor and two students, each their own Unix user. In
Chromium: the instructor opens the formgrader inside JupyterLab (blank under JupyterHub >= 4.1
unless the frame policy allows it, nbgrader#1870), generates and releases the chapter; each
student fetches it from the Assignment List, has code typed in (through their own server's
contents API: one correct, one with the classic missing-scale bug), validates and submits there;
the instructor collects in the formgrader, grades (``make grade`` in a hub terminal), generates and releases
feedback in the formgrader; each student fetches feedback and opens it, seeing their own score
and the diagnosis. Screenshots and the hub's log land in ``artefacts/hub/``.

Then, on the class the loop graded, the instructor's other documented commands (docs/deploy-hub.md), typed
as written into a JupyterLab terminal of their own server (the terminals API and its websocket, their own
token): the commands found on PATH, ``nbgrader autograde`` for one student (the mistake table's points
again), ``make report`` (the class report in ``~/course/reports/``).
"""
import csv
import pathlib
import re
import shutil

import pytest

from coursekit.plugins.pending import PENDING
from support.course_tools import ASSIGNMENT, POINTS, gradebook_scores
from support.hub_page import (
    LONG,
    assignment_list_button,
    feedback_stamps,
    fresh_lab,
    log_in,
    open_feedback,
    open_from_nbgrader_menu,
    shot,
    type_code,
)
from support.hub_terminal import COURSE_FOLDER, Terminal, make_grade, nbgrader_autograde
from support.hub_tools import ARTEFACTS, CLASS, start_over
from support.lab_page import validation_words
from support.mistakes import BY_NAME

IMPLEMENTATIONS = {kind: BY_NAME[mistake].code for kind, mistake in CLASS.items()}
# What TEST 4 prints for a student whose attention scores deviate (attnkit.diagnose via the master).
DIAGNOSIS = "最先偏离参考实现的是 student_attention_scores"
WALKED = {}  # "graded": the loop below got through make grade, so the later tests have a graded class to work on


def expected_points(plan) -> dict:
    """{student: {grade_id: points}} as the mistake table says for what each student submitted."""
    return {student: dict(zip(POINTS, BY_NAME[mistake].points)) for student, mistake in zip(plan.students, CLASS.values())}


def graded_points(plan) -> dict:
    return {s: {k: v for k, v in gradebook_scores(plan.course_dir(), s).items() if k in POINTS} for s in plan.students}


@pytest.fixture(scope="module")
def hub(hub_browser, course_hub_plan):
    shutil.rmtree(ARTEFACTS, ignore_errors=True)
    ARTEFACTS.mkdir(parents=True)
    start_over(course_hub_plan)  # the loop from its first step, after any other module of the hub group
    return course_hub_plan


@pytest.fixture
def sessions(hub_browser):
    """``log_in(plan, user)`` opens a user's browser session; each page's last state is kept as a screenshot."""
    opened = []

    def open_session(plan, user):
        page = log_in(hub_browser, plan, user)
        opened.append((user, page))
        return page

    yield open_session
    for user, page in opened:
        shot(page, f"last_{user.split('-', 1)[1]}")
        page.context.close()


# ---------- the instructor's formgrader ----------

def formgrader_row(page):
    """The chapter's row in the formgrader's Manage Assignments table (inside its <iframe>)."""
    frame = page.frame_locator("#formgrader iframe")
    name = re.compile(rf"^\s*{re.escape(ASSIGNMENT)}\s*$")  # the English edition's assignment is listed beside it
    return frame, frame.locator("tr", has=frame.locator("td.name", has_text=name))


def formgrader_action(page, column, name):
    """Click the row's link in ``column`` (assign, release, collect, ...); wait for and close its Success dialog."""
    frame, row = formgrader_row(page)
    row.locator(f"td.{column} a").click()
    modal = frame.locator("#success-modal, #error-modal")
    frame.locator(".modal.in").wait_for()  # Bootstrap adds "in" when it starts fading the dialog in
    page.wait_for_timeout(300)  # the 150 ms fade, so the screenshot shows the dialog, not a ghost
    shot(page, name)
    text = modal.inner_text()
    assert modal.get_attribute("id") == "success-modal", f"formgrader {column}: {text}"
    modal.get_by_role("button", name="OK").click()
    modal.wait_for(state="detached")


# ---------- a student's Assignment List ----------

def fetch_solve_validate(page, plan, student, kind):
    """Fetch, have the code typed in, press Validate (not waiting: the other student's runs alongside)."""
    open_from_nbgrader_menu(page, "Assignment List")
    assignment_list_button(page, "released", "fetch").click()
    assignment_list_button(page, "fetched", "Submit").wait_for()
    type_code(plan, student, IMPLEMENTATIONS[kind])
    page.locator("#fetched_assignments_list .assignment-notebooks-link").click()
    assignment_list_button(page, "fetched", "Validate").click()


def verdict_then_submit(page, kind):
    """The Validate dialog's verdict (its class), then Submit. The dialog speaks the edition's language only: its
    frame in Chinese, each failing cell by its chapter name (not its English docstring), nbgrader's English gone?"""
    dialog = page.locator(".jp-Dialog").filter(has=page.locator("#validation-message"))
    dialog.wait_for(timeout=LONG)
    shot(page, f"student_{kind.replace(' ', '_')}_validate")
    words, shown = validation_words("zh"), dialog.inner_text()
    assert dialog.locator(".jp-Dialog-header").inner_text().strip() == words["title"]
    assert not [english for english in (*validation_words("en").values(), '"""Check that') if english in shown], shown
    if kind != "correct":
        assert words["failed"] in shown and "TEST 1 · 任务 2：实现 student_attention_scores" in shown, shown
    message = dialog.locator("#validation-message")
    verdict = message.get_attribute("class")
    dialog.get_by_role("button", name="Ok").click()
    assignment_list_button(page, "fetched", "Submit").click()
    page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).first.wait_for()
    return verdict


def fetch_and_open_feedback(page, plan, student, kind):
    fresh_lab(page)  # not page.reload(): Lab would restore the tabs open before, in front
    open_from_nbgrader_menu(page, "Assignment List")
    assignment_list_button(page, "submitted", "Fetch Feedback").click()
    page.locator("#submitted_assignments_list", has_text="(view feedback)").wait_for()
    shot(page, f"student_{kind.replace(' ', '_')}_feedback_fetched")
    (stamp,) = feedback_stamps(plan, student)
    return open_feedback(page, stamp, f"student_{kind.replace(' ', '_')}_feedback")


# ---------- the loop ----------

def test_does_the_course_loop_work_for_an_instructor_and_two_students(hub, sessions):
    """Release, fetch, validate, submit, collect, grade, feedback: each student sees their own score and diagnosis?"""
    teacher = sessions(hub, hub.instructor)
    open_from_nbgrader_menu(teacher, "Formgrader")
    frame, row = formgrader_row(teacher)
    row.wait_for()  # blank here is nbgrader#1870: the frame policy forbids the <iframe>
    policy = teacher.request.get(f"{hub.url}user/{hub.instructor}/formgrader").headers["content-security-policy"]
    assert policy == "frame-ancestors 'self'"  # framed by the user's own Lab only
    formgrader_action(teacher, "assign", "instructor_generated")
    formgrader_action(teacher, "release", "instructor_released")

    kinds = dict(zip(hub.students, IMPLEMENTATIONS))
    pages = {student: sessions(hub, student) for student in hub.students}
    for student, kind in kinds.items():
        fetch_solve_validate(pages[student], hub, student, kind)
    verdicts = {kind: verdict_then_submit(pages[s], kind) for s, kind in kinds.items()}
    assert "validation-success" in verdicts["correct"]
    assert "validation-failed" in verdicts["missing scale"]

    fresh_lab(teacher)
    open_from_nbgrader_menu(teacher, "Formgrader")
    formgrader_action(teacher, "collect", "instructor_collected")
    status, shown = make_grade(hub)  # in the instructor's hub terminal, as the docs say
    assert status == 0, shown[-3000:]
    assert graded_points(hub) == expected_points(hub)  # each student's test cells hold the table's points
    WALKED["graded"] = True
    fresh_lab(teacher)
    open_from_nbgrader_menu(teacher, "Formgrader")
    formgrader_action(teacher, "generate-feedback", "instructor_feedback_generated")
    formgrader_action(teacher, "release-feedback", "instructor_feedback_released")

    for student, kind in kinds.items():
        text = fetch_and_open_feedback(pages[student], hub, student, kind)
        shown = re.search(r"目前得分 ([\d.]+) / ([\d.]+) 分", text)  # the course's page (coursekit/plugins/templates)
        assert shown, f"{student}'s feedback page has no score line"
        assert float(shown.group(1)) == pytest.approx(gradebook_scores(hub.course_dir(), student)["total"])
        assert f"思考题 1：{PENDING}" in text  # nobody has marked the written answers yet: pending, not 0
        if kind == "correct":
            assert float(shown.group(1)) == sum(POINTS.values()) and DIAGNOSIS not in text
        else:
            assert float(shown.group(1)) < sum(POINTS.values()) and DIAGNOSIS in text


# ---------- the instructor's other commands, in a hub terminal, on the class the loop graded ----------

@pytest.fixture
def graded(hub):
    if not WALKED.get("graded"):
        pytest.fail("the course loop above did not get through make grade: no graded class to try the commands on")
    return hub


def test_does_the_instructors_terminal_find_the_course_commands(hub):
    """`command -v` in the instructor's terminal: nbgrader and python from the hub's user environment, make from the system?"""
    env_bin = str(pathlib.Path(hub.python).parent)
    with Terminal(hub, hub.instructor) as terminal:
        status, shown = terminal.run("command -v nbgrader python make")
    assert status == 0, shown
    found = [line.strip() for line in shown.splitlines() if line.strip().startswith("/")]
    assert found[-3:] == [f"{env_bin}/nbgrader", f"{env_bin}/python", "/usr/bin/make"], shown


def test_does_nbgrader_autograde_in_the_terminal_grade_a_student_the_same(graded):
    """`nbgrader autograde ch04_attention --student <s> --force` from ~/course: the same points again?"""
    student = graded.students[1]
    status, shown = nbgrader_autograde(graded, student)
    assert status == 0, shown[-3000:]
    assert graded_points(graded)[student] == expected_points(graded)[student]


def test_does_make_report_in_the_terminal_write_the_class_report_into_the_course(graded):
    """`make report` from ~/course: reports/ch04_attention/ with each student's test-cell points as the table says?"""
    with Terminal(graded, graded.instructor) as terminal:
        status, shown = terminal.run(f"cd {COURSE_FOLDER} && make report")
    assert status == 0, shown[-3000:]
    folder = graded.course_dir() / "reports" / ASSIGNMENT
    assert (folder / "index.html").is_file(), shown[-2000:]
    with open(folder / "students.csv", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    reported = {s: {g: float(rows[s][f"{g}_auto"]) for g in POINTS} for s in graded.students if s in rows}
    assert reported == expected_points(graded)

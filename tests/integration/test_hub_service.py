"""Does the hub run the grading service as the instructor, so that a student's Submit brings feedback
with no instructor action, and does the hub restart the service when it is killed?

On the session's hub (``course_hub_plan``: Unix users, the shared user environment), whose grading
service started paused so that the loop of test_hub.py grades by hand. Here the instructor resumes
it (their own command, as their Unix user). Then a student, in Chromium, types a softmax without the
max subtraction (a row of the mistake table) into the notebook they fetched, presses Submit in the
Assignment List, and presses Fetch Feedback until their page arrives (nobody else acts): it shows
their score, the failed hidden checks, the diagnosis naming ``student_softmax`` and the written
answers as pending. Then ``kill -9`` of the service: JupyterHub notices at its next poll (every 30 s)
and starts it again. Screenshots land in ``artefacts/hub/service_*.png``.
"""
import os
import pathlib
import pwd
import re
import signal
import time

import pytest

from coursekit.plugins.pending import PENDING
from support.course_tools import ASSIGNMENT, released
from support.hub_page import (
    SHORT,
    assignment_list_button,
    log_in,
    open_feedback,
    open_from_nbgrader_menu,
    shot,
    type_code,
)
from support.hub_tools import as_user, loop_by_cli, newest_submission
from support.mistakes import BY_NAME
from support.service_tools import wait_for

BUG = BY_NAME["bug_softmax_no_max"]
DIAGNOSIS = "最先偏离参考实现的是 student_softmax"
FEEDBACK_WAIT = 180  # s: grading plus feedback on busy cores; idle it is a few seconds


def _service_pid(course: pathlib.Path) -> int:
    path = course / "grading-service" / "service.pid"
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text and pathlib.Path(f"/proc/{text}").exists() else 0


def _instructor_uid(plan) -> int:
    return pwd.getpwnam(plan.instructor).pw_uid


@pytest.fixture(scope="module")
def service(course_hub_plan):
    """The session hub with its grading service resumed by the instructor; the service's pid."""
    plan = course_hub_plan
    course = plan.course_dir()
    if not (pathlib.Path(plan.exchange) / plan.course_id / "outbound" / ASSIGNMENT).exists():
        loop_by_cli(plan, until="collect")  # alone, without test_hub.py: release and a first submission
    pid = wait_for(lambda: _service_pid(course), 90, "the hub's grading service")
    assert os.stat(f"/proc/{pid}").st_uid == _instructor_uid(plan)  # the instructor's, not root's
    resumed = as_user(plan, plan.instructor, plan.python, "-m", "coursekit.service", "resume", cwd=course)
    assert resumed.returncode == 0 and "resumed" in resumed.stdout, resumed.stderr
    return pid


def _release_again(plan, student, stamp) -> str:
    """What Fetch Feedback does with a page released again after the written answers were marked: the new
    page written over the fetched one, same path and owner (here its score line, 1.5 points higher).
    The new score line, as the page shows it."""
    path = pathlib.Path(plan.homes[student]) / ASSIGNMENT / "feedback" / stamp / f"{ASSIGNMENT}.html"
    html = path.read_text(encoding="utf-8")
    old = re.search(r"目前得分 <b>([\d.]+) / ([\d.]+)</b>", html)
    assert old, f"no score line in {path}"
    score, max_score = old.groups()
    new = f"{float(score) + 1.5:g}"
    path.write_text(html.replace(old.group(0), f"目前得分 <b>{new} / {max_score}</b>"), encoding="utf-8")
    return f"目前得分 {new} / {max_score}"


def _submissions(page) -> int:
    return page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).count()


def test_does_a_student_get_feedback_after_submit_with_nobody_else_acting(course_hub_plan, service, hub_browser):
    plan, student = course_hub_plan, course_hub_plan.students[-1]
    page = log_in(hub_browser, plan, student)
    try:
        type_code(plan, student, BUG.code, over=released(plan.course_dir()))  # retyped from the start
        open_from_nbgrader_menu(page, "Assignment List")
        submit = assignment_list_button(page, "fetched", "Submit")
        submit.wait_for()
        before = _submissions(page)
        submit.click()
        page.wait_for_function(
            "n => document.querySelectorAll('#submitted_assignments_list .list_item').length > n", arg=before)
        shot(page, "service_submitted")
        stamp, _ = newest_submission(plan, student)

        # the student presses Fetch Feedback now and then, as one waiting for the page would
        folder = pathlib.Path(plan.homes[student]) / ASSIGNMENT / "feedback" / stamp
        deadline = time.monotonic() + FEEDBACK_WAIT
        while not folder.exists():
            assert time.monotonic() < deadline, f"no feedback for {student}'s {stamp} after {FEEDBACK_WAIT} s"
            assignment_list_button(page, "submitted", "Fetch Feedback").click()
            page.wait_for_timeout(3000)
        page.locator("#submitted_assignments_list", has_text="(view feedback)").first.wait_for(timeout=SHORT)
        shot(page, "service_feedback_fetched")
        text = open_feedback(page, stamp, "service_feedback")

        # the page released again (the written answers marked) and fetched over the open one: one tab, the new score
        viewers = page.locator(".jp-HTMLViewer").count()
        score_line = _release_again(plan, student, stamp)
        open_from_nbgrader_menu(page, "Assignment List")  # back in front of the page's tab
        open_feedback(page, stamp, "service_feedback_again", shows=score_line)
        assert page.locator(".jp-HTMLViewer").count() == viewers
    finally:
        page.context.close()

    shown = re.search(r"目前得分 ([\d.]+) / ([\d.]+) 分", text)
    assert shown and float(shown.group(1)) == pytest.approx(sum(BUG.points)), text[:2000]
    assert re.search(r"\[FAIL\] 隐藏检查 \d+:", text), "no failed hidden check on the page"
    assert DIAGNOSIS in text
    assert f"思考题 1：{PENDING}" in text  # answered, not yet marked: pending, not 0


def test_does_the_hub_restart_a_killed_grading_service(course_hub_plan, service):
    plan = course_hub_plan
    course = plan.course_dir()
    pid = _service_pid(course) or service
    os.kill(pid, signal.SIGKILL)
    restarted = wait_for(lambda: _service_pid(course) not in (0, pid) and _service_pid(course), 90,
                         "JupyterHub restarting the killed grading service")
    assert os.stat(f"/proc/{restarted}").st_uid == _instructor_uid(plan)
    paused = as_user(plan, plan.instructor, plan.python, "-m", "coursekit.service", "pause", cwd=course)
    assert paused.returncode == 0, paused.stderr

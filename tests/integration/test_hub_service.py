"""Does a student's Submit bring a notification in their Lab with their score, nobody else acting (no click on
Fetch Feedback); are they told why automatic feedback will not come; does the instructor's release after
marking reach them the same way; and does a killed grading service, restarted by the hub, still end in one?

On the session's hub (``course_hub_plan``: Unix users, the shared user environment), whose grading
service started paused so that the loop of test_hub.py grades by hand. Here the instructor resumes
it (their own command, as their Unix user). A student, logged in in Chromium for the whole module,
types a softmax without the max subtraction (a row of the mistake table) into the notebook they
fetched and presses Submit in the Assignment List. Their Lab's notification must then say their
score, with the page already fetched; its button opens the page: their score, the failed hidden
checks, the diagnosis naming ``student_softmax``, the written answers pending. Then the instructor
marks the written answers and releases again: the notification says the new score and the open tab
shows it. Then, each from the student's terminal (``nbgrader submit``), submissions the course's
policy holds back (cooldown, attempts, deadline) or the paused service holds: each notice in the
student's words. Last, ``kill -9`` of the service while it grades: JupyterHub starts it again (at its
next poll, every 30 s) and the notification still comes. Then a second assignment beside the chapter (nbgrader's
docs course ps1), and the chapter's English edition: each fetched and submitted in Lab, each notification and
page its own (the English one in English only). Screenshots land in ``artefacts/hub/service_*.png``.
"""
import json
import os
import pathlib
import pwd
import re
import shutil
import signal
import time

import pytest
from nbgrader.api import Gradebook

from attnkit.edition import foreign_text
from coursekit.plugins.feedback_page import WORDS
from coursekit.plugins.pending import PENDING
from coursekit.service import student_status
from support.classes import ENGLISH
from support.course_tools import ASSIGNMENT, released
from support.hub_page import (
    assignment_list_button,
    fresh_lab,
    log_in,
    notification,
    notification_text,
    open_from_nbgrader_menu,
    open_from_notification,
    shot,
    type_code,
    visible_button,
)
from support.hub_tools import (
    as_user,
    grading_policy,
    instructor_nbgrader,
    loop_by_cli,
    mark_written_answers,
    newest_submission,
    student_submits,
)
from support import ps1
from support.mistakes import BY_NAME
from support.service_tools import wait_for

BUG = BY_NAME["bug_softmax_no_max"]
DIAGNOSIS = "最先偏离参考实现的是 student_softmax"
FEEDBACK_WAIT = 180_000  # ms: grading plus feedback on busy cores; idle it is a few seconds
RESTARTED_WAIT = 240_000  # ms: JupyterHub's next look at its services (30 s), the service's start, the grading
READY_EN = r"^Feedback ready: ([\d.]+) / ([\d.]+) points(, \d+ written answers? still to be marked)?$"
READY = r"^反馈已就绪：([\d.]+) / ([\d.]+) 分(，(\d+) 道书面题待批改)?$"
RECEIVED = r"^已收到你 .+ 的提交，正在评分…$"


def _service_pid(course: pathlib.Path) -> int:
    path = course / "grading-service" / "service.pid"
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text and pathlib.Path(f"/proc/{text}").exists() else 0


def _instructor_uid(plan) -> int:
    return pwd.getpwnam(plan.instructor).pw_uid


def _service_command(plan, action):
    done = as_user(plan, plan.instructor, plan.python, "-m", "coursekit.service", action, cwd=plan.course_dir())
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def service(course_hub_plan):
    """The session hub with its grading service resumed by the instructor; the service's pid."""
    plan = course_hub_plan
    course = plan.course_dir()
    if not (pathlib.Path(plan.exchange) / plan.course_id / "outbound" / ASSIGNMENT).exists():
        loop_by_cli(plan, until="collect")  # alone, without test_hub.py: release and a first submission
    pid = wait_for(lambda: _service_pid(course), 90, "the hub's grading service")
    assert os.stat(f"/proc/{pid}").st_uid == _instructor_uid(plan)  # the instructor's, not root's
    name = plan.students[-1]  # the module's student: what they submitted before is done first, so that no late
    try:                       # notice about it is taken for a test's
        stamp = newest_submission(plan, name)[0]
    except ValueError:  # nothing submitted
        stamp = None
    graded = course / "autograded" / name / ASSIGNMENT / "timestamp.txt"  # by make grade, while the service was paused:
    done_by_hand = graded.exists() and graded.read_text().strip() == stamp  # the service leaves it and says nothing
    assert "resumed" in _service_command(plan, "resume")
    if stamp is None or done_by_hand:
        return pid
    wait_for(lambda: getattr(_status(plan, name, stamp), "state", None) in (student_status.RELEASED,
                                                                            student_status.WAITING),
             FEEDBACK_WAIT / 1000, f"the service's last word on {name}'s submission of {stamp}")
    return pid


@pytest.fixture(scope="module")
def student(course_hub_plan, service, hub_browser):
    """(name, page): the last student, logged in, their Lab open for the whole module."""
    name = course_hub_plan.students[-1]
    page = log_in(hub_browser, course_hub_plan, name)
    yield name, page
    page.context.close()


def _submissions(page) -> int:
    return page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).count()


def _submit_in_lab(plan, name, page) -> str:
    """Submit in the Assignment List, as the student does; the submission's timestamp."""
    open_from_nbgrader_menu(page, "Assignment List")
    submit = assignment_list_button(page, "fetched", "Submit")
    submit.wait_for()
    before = _submissions(page)
    submit.click()
    page.wait_for_function(
        "n => document.querySelectorAll('#submitted_assignments_list .list_item').length > n", arg=before)
    notification(page, RECEIVED, FEEDBACK_WAIT)  # this submission's notice: an earlier "ready" becomes "grading…"
    return newest_submission(plan, name)[0]


def _ready(toast) -> tuple:
    """(score, max score, pending answers) of a "feedback ready" notification."""
    shown = re.fullmatch(READY, notification_text(toast))
    assert shown, notification_text(toast)
    return float(shown.group(1)), float(shown.group(2)), int(shown.group(4) or 0)


def test_does_a_student_get_feedback_after_submit_with_nobody_else_acting(course_hub_plan, student):
    """Submit, then only wait: the notification says the score (the page already fetched); its button opens it."""
    plan, (name, page) = course_hub_plan, student
    type_code(plan, name, BUG.code, over=released(plan.course_dir()))  # retyped from the start
    stamp = _submit_in_lab(plan, name, page)
    shot(page, "service_submitted")
    toast = notification(page, READY, FEEDBACK_WAIT)
    shot(page, "service_notified")
    score, max_score, pending = _ready(toast)
    assert score == pytest.approx(sum(BUG.points)) and pending > 0
    assert (pathlib.Path(plan.homes[name]) / ASSIGNMENT / "feedback" / stamp / f"{ASSIGNMENT}.html").exists()
    text = open_from_notification(toast, page, "service_feedback")
    assert re.search(rf"目前得分 {score:g} / {max_score:g} 分；其中 {pending} 道书面题", text), text[:2000]
    assert re.search(r"\[FAIL\] 隐藏检查 \d+:", text), "no failed hidden check on the page"
    assert DIAGNOSIS in text
    assert f"思考题 1：{PENDING}" in text  # answered, not yet marked: pending, not 0


def _status(plan, name, stamp) -> student_status.FeedbackStatus:
    """What the service published for that submission (read as root; the student's server reads the same)."""
    cache = pathlib.Path(plan.homes[name]) / ".local/share/jupyter/nbgrader_cache" / plan.course_id
    secret = (cache / f"{name}+{ASSIGNMENT}+{stamp}" / "submission_secret.txt").read_text()
    return student_status.read(plan.exchange, plan.course_id, secret)


def test_does_the_instructors_release_after_marking_reach_the_student_with_the_marked_scores(course_hub_plan, student):
    """Marked, generated and released again by the instructor's nbgrader: the same notification now says the
    new score with nothing pending, and its button shows it in the tab already open (read again, not stale)."""
    plan, (name, page) = course_hub_plan, student
    before = _status(plan, name, newest_submission(plan, name)[0])  # what the first notification said
    added = mark_written_answers(plan, name)
    assert added > 0 and before.pending > 0
    for step in ("generate_feedback", "release_feedback"):
        done = instructor_nbgrader(plan, step, ASSIGNMENT, "--student", name, *(["--force"] if step[0] == "g" else []))
        assert done.returncode == 0, done.stderr[-2000:]
    new = before.score + added
    toast = notification(page, rf"^反馈已就绪：{new:g} / {before.max_score:g} 分$", FEEDBACK_WAIT)
    viewers = page.locator(".jp-HTMLViewer").count()
    text = open_from_notification(toast, page, "service_feedback_marked",
                                  shows=f"目前得分 {new:g} / {before.max_score:g} 分")
    assert PENDING not in text.split("思考题 1")[0]
    assert page.locator(".jp-HTMLViewer").count() == viewers


@pytest.mark.parametrize("policy, notice", [
    ({"cooldown": 3600}, r"^这次提交的反馈将在 (\d\d:\d\d:\d\d) 自动发布（两次自动反馈之间有冷却时间）$"),
    ({"max_attempts": 1}, r"^自动反馈的 1 次机会已用完：这次提交的反馈由老师批改后发布$"),
    ({"deadlines": {ASSIGNMENT: "2000-01-01 00:00:00+00:00"}}, r"^已过截止时间：这次提交不再自动反馈，由老师批改后发布$"),
], ids=["cooldown", "attempts", "deadline"])
def test_is_the_student_told_why_automatic_feedback_will_not_come(course_hub_plan, student, policy, notice):
    """A submission the policy holds back: the notice, in the student's words (the cooldown with the time it
    ends, in their time zone); the policy put back, the held feedback comes by itself, as a notification."""
    plan, (name, page) = course_hub_plan, student
    with grading_policy(plan, **policy):
        stamp = student_submits(plan, name)
        toast = notification(page, notice, FEEDBACK_WAIT)
        shot(page, f"service_notice_{next(iter(policy))}")
        if "cooldown" in policy:
            until = _status(plan, name, stamp).until
            assert re.fullmatch(notice, notification_text(toast)).group(1) == time.strftime("%H:%M:%S",
                                                                                            time.localtime(until))
    notification(page, READY, FEEDBACK_WAIT)
    assert _status(plan, name, stamp).state == student_status.RELEASED


def test_is_the_student_told_the_service_is_paused_then_gets_the_feedback_on_resume(course_hub_plan, student):
    plan, (name, page) = course_hub_plan, student
    _service_command(plan, "pause")
    try:
        student_submits(plan, name)
        notification(page, r"^老师暂停了自动评分：恢复后会评分并发布反馈，到时这里会告诉你$", FEEDBACK_WAIT)
        shot(page, "service_notice_paused")
    finally:
        _service_command(plan, "resume")
    notification(page, READY, FEEDBACK_WAIT)


def _in_flight(plan, name) -> bool:
    journal = plan.course_dir() / "grading-service" / "journal.json"
    entries = json.loads(journal.read_text())["entries"] if journal.exists() else {}
    return bool(entries.get(f"{ASSIGNMENT}/{name}", {}).get("in_flight"))


def test_does_a_service_killed_mid_job_come_back_and_still_notify(course_hub_plan, student):
    """``kill -9`` while it grades the student's submission: the hub starts it again, as the instructor; the job
    is done again and the notification comes. Then the service is paused, as the session's other hub tests expect."""
    plan, (name, page) = course_hub_plan, student
    course = plan.course_dir()
    pid = _service_pid(course)
    stamp = student_submits(plan, name)
    wait_for(lambda: _in_flight(plan, name), 120, f"the service grading {name}'s {stamp}", poll=0.02)
    os.kill(pid, signal.SIGKILL)
    notification(page, r"^已收到你 \d\d:\d\d:\d\d 的提交，正在评分…$")  # meanwhile: still grading, nothing else
    restarted = wait_for(lambda: _service_pid(course) not in (0, pid) and _service_pid(course), 90,
                         "JupyterHub restarting the killed grading service")
    assert os.stat(f"/proc/{restarted}").st_uid == _instructor_uid(plan)
    notification(page, READY, RESTARTED_WAIT)
    assert _status(plan, name, stamp).state == student_status.RELEASED
    shot(page, "service_notified_after_restart")
    _service_command(plan, "pause")


def test_does_a_student_see_a_second_assignment_beside_the_chapter_and_get_its_feedback(course_hub_plan, student):
    """nbgrader's docs course ps1 released beside the chapter: the student's Assignment List shows both, they fetch
    and submit ps1 in Lab, and the notification brings ps1's feedback page (its own cells, nothing of Chapter 4)."""
    plan, (name, page) = course_hub_plan, student
    course = plan.course_dir()
    ps1.add_source(course)
    shutil.chown(course / "source", plan.instructor, plan.instructor)
    for path in [course / "source" / ps1.ASSIGNMENT, *(course / "source" / ps1.ASSIGNMENT).rglob("*")]:
        shutil.chown(path, plan.instructor, plan.instructor)
    _service_command(plan, "resume")  # whatever the tests before left it as
    try:
        for step in ("generate_assignment", "release_assignment"):
            done = instructor_nbgrader(plan, step, ps1.ASSIGNMENT, "--force")
            assert done.returncode == 0, done.stderr[-2000:]
        with grading_policy(plan, assignments=[ASSIGNMENT, ps1.ASSIGNMENT]):
            fresh_lab(page)
            open_from_nbgrader_menu(page, "Assignment List")
            visible_button(page, "released", ps1.ASSIGNMENT, "fetch").click()
            fetched = page.locator("#fetched_assignments_list:visible")
            for assignment in (ASSIGNMENT, ps1.ASSIGNMENT):
                fetched.locator(".list_item", has_text=assignment).first.wait_for()
            shot(page, "service_two_assignments")
            visible_button(page, "fetched", ps1.ASSIGNMENT, "submit").click()
            log = course / "grading-logs" / "service.log"
            said = lambda: log.read_text(encoding="utf-8") if log.exists() else ""  # noqa: E731
            try:
                wait_for(lambda: re.search(rf"{ps1.ASSIGNMENT}\s+{name}\s.*graded", said()), FEEDBACK_WAIT / 1000,
                         f"the service grading {name}'s {ps1.ASSIGNMENT}")
            except TimeoutError:
                raise AssertionError(said()[-3000:]) from None
            with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
                graded = gradebook.find_submission(ps1.ASSIGNMENT, name)
                score, max_score = graded.score, graded.max_score
            try:  # ps1's own notice, beside the chapter's
                toast = notification(page, rf"^反馈已就绪：{score:g} / {max_score:g} 分", FEEDBACK_WAIT)
            except Exception:
                raise AssertionError(said()[-3000:]) from None
            text = open_from_notification(toast, page, "service_ps1_feedback")
            assert "Part A" in text and "student_softmax" not in text and DIAGNOSIS not in text, text[:2000]
    finally:
        _withdraw(plan, name, ps1.ASSIGNMENT, course / "source")


def _withdraw(plan, name, assignment, *more):
    """``assignment`` gone from the exchange, the gradebook, the course's folders (and ``more`` folders) and the
    student's home: the hub group's other modules meet the chapter alone (make grade names no assignment there)."""
    course = plan.course_dir()
    instructor_nbgrader(plan, "list", "--remove", assignment)
    instructor_nbgrader(plan, "db", "assignment", "remove", assignment, "--force")
    for folder in (pathlib.Path(plan.homes[name]), course / "release", course / "submitted" / name,
                   course / "autograded" / name, course / "feedback" / name, *more):
        shutil.rmtree(folder / assignment, ignore_errors=True)


def test_does_an_english_edition_student_read_english_from_submit_to_the_feedback_page(course_hub_plan, student):
    """The English edition released beside the chapter: fetched and submitted in Lab, then the notification and
    the page it opens speak English only (the original lab's title aside): the score, "awaiting marking"."""
    plan, (name, page) = course_hub_plan, student
    _service_command(plan, "resume")  # whatever the tests before left it as
    try:
        for step in ("generate_assignment", "release_assignment"):
            done = instructor_nbgrader(plan, step, ENGLISH, "--force")
            assert done.returncode == 0, done.stderr[-2000:]
        fresh_lab(page)
        open_from_nbgrader_menu(page, "Assignment List")
        visible_button(page, "released", ENGLISH, "fetch").click()
        submit = visible_button(page, "fetched", ENGLISH, "submit")
        type_code(plan, name, BUG.code, assignment=ENGLISH)
        submit.click()
        toast = notification(page, READY_EN, FEEDBACK_WAIT)
        shown = re.fullmatch(READY_EN, notification_text(toast))
        assert float(shown.group(1)) == pytest.approx(sum(BUG.points)), notification_text(toast)
        text = open_from_notification(toast, page, "service_english_feedback", shows="Your score so far:",
                                      button="Open feedback")
        assert foreign_text(text) == [], sorted(set(foreign_text(text)))
        assert f"still {WORDS['en']['pending']}" in text and "[FAIL]" in text
    finally:
        _withdraw(plan, name, ENGLISH)

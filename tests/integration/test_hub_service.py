"""Does the hub run the grading service as the instructor, so that a student's Submit brings feedback
with no instructor action, and does the hub restart the service when it is killed?

On the session's hub (``course_hub_plan``: Unix users, the shared user environment), whose grading
service started paused so that the loop of test_hub.py grades by hand. Here the instructor resumes
it (their own command, as their Unix user), a student submits a bug from the mistake table with
nbgrader's CLI as their Unix user, and Fetch Feedback (``nbgrader fetch_feedback``, what the
Assignment List runs) brings them the page with the diagnosis. Then ``kill -9`` of the service:
JupyterHub notices at its next poll (every 30 s) and starts it again.
"""
import json
import os
import pathlib
import pwd
import shutil
import signal

import nbformat

from support.course_tools import ASSIGNMENT, released, visible_text
from support.hub_tools import as_user, loop_by_cli
from support.mistakes import BY_NAME, submission
from support.service_tools import wait_for

BUG = "bug_no_scale"
DIAGNOSIS = "最先偏离参考实现的是 student_attention_scores"


def _service_pid(course: pathlib.Path) -> int:
    path = course / "grading-service" / "service.pid"
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text and pathlib.Path(f"/proc/{text}").exists() else 0


def _journal(course: pathlib.Path) -> dict:
    path = course / "grading-service" / "journal.json"
    return json.loads(path.read_text())["entries"] if path.exists() else {}


def test_submit_brings_feedback_through_the_hubs_grading_service(course_hub_plan):
    plan = course_hub_plan
    course, student = plan.course_dir(), plan.students[0]
    if not (pathlib.Path(plan.exchange) / plan.course_id / "outbound" / ASSIGNMENT).exists():
        loop_by_cli(plan, until="collect")  # alone, without test_hub.py: release and a first submission
    pid = wait_for(lambda: _service_pid(course), 90, "the hub's grading service")
    assert os.stat(f"/proc/{pid}").st_uid == pwd.getpwnam(plan.instructor).pw_uid  # the instructor's, not root's

    resumed = as_user(plan, plan.instructor, plan.python, "-m", "coursekit.service", "resume", cwd=course)
    assert resumed.returncode == 0 and "resumed" in resumed.stdout, resumed.stderr
    home = pathlib.Path(plan.homes[student])
    path = home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    path.parent.mkdir(exist_ok=True)
    shutil.chown(path.parent, student, student)
    nbformat.write(submission(released(course), *BY_NAME[BUG].code), path)
    shutil.chown(path, student, student)
    done = as_user(plan, student, plan.python, "-m", "nbgrader", "submit", ASSIGNMENT)
    assert done.returncode == 0, done.stderr[-2000:]
    cache = home / ".local" / "share" / "jupyter" / "nbgrader_cache" / plan.course_id
    timestamp = max(p.name for p in cache.glob(f"{student}+{ASSIGNMENT}+*")).split("+")[2]

    wait_for(lambda: _journal(course).get(f"{ASSIGNMENT}/{student}", {}).get("released") == timestamp, 120,
             f"{student}'s feedback released by the service")
    fetched = as_user(plan, student, plan.python, "-m", "nbgrader", "fetch_feedback", ASSIGNMENT)
    assert fetched.returncode == 0, fetched.stderr[-2000:]
    page = home / ASSIGNMENT / "feedback" / timestamp / f"{ASSIGNMENT}.html"
    assert DIAGNOSIS in visible_text(page.read_text(encoding="utf-8"))

    os.kill(pid, signal.SIGKILL)
    restarted = wait_for(lambda: _service_pid(course) not in (0, pid) and _service_pid(course), 90,
                         "JupyterHub restarting the killed grading service")
    assert os.stat(f"/proc/{restarted}").st_uid == pwd.getpwnam(plan.instructor).pw_uid
    paused = as_user(plan, plan.instructor, plan.python, "-m", "coursekit.service", "pause", cwd=course)
    assert paused.returncode == 0, paused.stderr

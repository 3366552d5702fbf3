"""Shared helpers of the hub tests (test_hub.py, test_hub_isolation.py): a throw-away course hub and its APIs.

``course_hub`` runs autograde/hub's launcher on a copy of the course (``course_copy``) with
uniquely named Unix users, in a /var/tmp folder the hub's users can enter; it always stops the hub,
deletes the users and their homes, and keeps the hub's log in ``artefacts/hub/``.
"""
import asyncio
import concurrent.futures
import contextlib
import glob
import json
import os
import pathlib
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

import nbformat
import pytest

from coursekit.paths import ASSIGNMENT, REPO
from support import hub_userenv
from support.course_tools import course_copy
from support.exchange_rows import arrival
from support.mistakes import BY_NAME, submission

sys.path.insert(0, str(REPO / "autograde"))  # `import hub` (tests/conftest.py may do it too)
from hub import accounts, launch, lti  # noqa: E402

ARTEFACTS = REPO / "artefacts" / "hub"
# What the hub's students submit, in order: rows of the mistake table (tests/support/mistakes.py), the
# same in the Chromium loop (test_hub.py) and the CLI loop, so every hub test knows their points.
CLASS = {"correct": "ok_dot", "missing scale": "bug_no_scale"}


def require_hub_machine() -> None:
    """Skip (fail under CI=true) unless node/npm and root are there: one Unix user per hub user."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    reason = None
    if missing:
        reason = f"{' and '.join(missing)} missing: the hub tests need them (apt-get install nodejs npm)"
    elif os.geteuid() != 0:
        reason = "not root: the hub tests create one Unix user per hub user (run as root, as CI does)"
    if reason and os.environ.get("CI") == "true":
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


@contextlib.contextmanager
def private_repository():
    """The repository closed to other users while the block runs (as a hub machine keeps it: students
    never enter it), its mode restored afterwards; nothing changes when it already is private."""
    mode = stat.S_IMODE(REPO.stat().st_mode)
    REPO.chmod(mode & ~0o007)
    try:
        yield REPO
    finally:
        REPO.chmod(mode)


@contextlib.contextmanager
def course_hub(tmp_path, log_name, students=("s1", "s2"), **options):
    """A running hub: instructor ``<prefix>-teacher``, students ``<prefix>-s1``, ``<prefix>-s2``; yields the plan.
    ``options``: more of :func:`hub.launch.make_plan`'s (``port``, ``lti``; the grading service starts paused unless
    ``service_paused=False``); the Unix users LMS launches made are removed with the others.

    The servers run a user environment of the hub's own, built in its folder (:mod:`support.hub_userenv`)
    and removed with it; the repository is private while the hub runs. The hub's log is kept as
    ``artefacts/hub/<log_name>``.
    """
    prefix = "t" + secrets.token_hex(3)  # unique Unix names, so a crashed run never collides
    # not under pytest's root-only tmp, nor /tmp: grading kernels get a /tmp of their own, and the hub's Python is here
    state = pathlib.Path(tempfile.mkdtemp(prefix="attn-hub-", dir="/var/tmp"))
    try:
        user_env = hub_userenv.build(state / "env")
        # the grading service starts paused: the loop's tests grade by hand; test_hub.py resumes it after them
        plan = launch.make_plan(state, f"{prefix}-teacher", [f"{prefix}-{s}" for s in students], user_env=user_env,
                                **{"service_paused": True, **options})
    except BaseException:
        shutil.rmtree(state, ignore_errors=True)
        raise
    try:
        with private_repository(), launch.running_hub(plan, course_copy(tmp_path)):
            yield plan
    finally:
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            shutil.copy(state / "hub" / "jupyterhub.log", ARTEFACTS / log_name)
        for user in (*plan.users, *lti.launched_users(state)):
            accounts.remove_unix_user(user)
        shutil.rmtree(state, ignore_errors=True)


# ---------- acting as a hub user ----------

def as_user(plan, user, *command, cwd=None, timeout=600):
    """Run ``command`` as ``user``'s Unix account with their HOME (what their terminal would do)."""
    home = plan.homes[user]
    env = {"HOME": home, "USER": user, "PATH": f"{pathlib.Path(plan.python).parent}:/usr/bin:/bin",
           "LANG": "C.UTF-8", "JUPYTER_CONFIG_PATH": str(plan.settings),
           "ATTN_EXCHANGE": plan.exchange, "ATTN_COURSE_ID": plan.course_id}
    return subprocess.run(list(command), user=user, group=user, extra_groups=[], cwd=cwd or home, env=env,
                          capture_output=True, text=True, timeout=timeout)


def instructor_nbgrader(plan, *args):
    """``nbgrader *args`` as the instructor in their course folder; the completed process."""
    return as_user(plan, plan.instructor, plan.python, "-m", "nbgrader", *args, cwd=plan.course_dir())


def loop_by_cli(plan, until="collect"):
    """The course loop with nbgrader's own CLI, run as each user, up to the instructor's step ``until``
    (``collect``, or ``release_feedback`` through autograde): release, each student fetches, types the
    code :data:`CLASS` gives them into the fetched notebook and submits, the instructor collects ...
    For a module run without test_hub.py, which walks the same loop in Chromium. It starts over first, so it
    runs the same after a module that stopped the loop half-way (e.g. at ``collect``)."""
    start_over(plan)
    for step in ("generate_assignment", "release_assignment"):
        done = instructor_nbgrader(plan, step, ASSIGNMENT)
        assert done.returncode == 0, done.stderr[-2000:]
    for student, mistake in zip(plan.students, CLASS.values()):
        done = as_user(plan, student, plan.python, "-m", "nbgrader", "fetch_assignment", ASSIGNMENT)
        assert done.returncode == 0, f"{student} fetch: {done.stderr[-2000:]}"
        path = pathlib.Path(plan.homes[student]) / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        nbformat.write(submission(nbformat.read(path, as_version=4), *BY_NAME[mistake].code), path)
        shutil.chown(path, student, student)  # as if the student had typed it
        done = as_user(plan, student, plan.python, "-m", "nbgrader", "submit", ASSIGNMENT)
        assert done.returncode == 0, f"{student} submit: {done.stderr[-2000:]}"
    steps = ("collect", "autograde", "generate_feedback", "release_feedback")
    for step in steps[:steps.index(until) + 1]:
        done = instructor_nbgrader(plan, step, ASSIGNMENT)
        assert done.returncode == 0, f"{step}: {done.stderr[-2000:]}"


def start_over(plan) -> None:
    """The course as before its first release, whatever other modules of the hub group did first: the release
    withdrawn from the exchange; each student's fetched copy (with its feedback) and their record of past
    submissions gone, so that Fetch Feedback brings only what comes after; their submission, with any marks,
    gone from the instructor's course and gradebook."""
    done = instructor_nbgrader(plan, "list", "--remove", ASSIGNMENT)
    assert done.returncode == 0, done.stderr[-2000:]
    forget = ("import sys; from nbgrader.api import Gradebook, MissingEntry; from coursekit.gradebook import "
              "resolve_gradebook\nwith Gradebook(resolve_gradebook('.')) as book:\n for s in sys.argv[2:]:\n"
              "  try: book.remove_submission(sys.argv[1], s)\n  except MissingEntry: pass")
    done = as_user(plan, plan.instructor, plan.python, "-c", forget, ASSIGNMENT, *plan.students, cwd=plan.course_dir())
    assert done.returncode == 0, done.stderr[-2000:]
    for student in plan.students:
        for step in ("submitted", "autograded", "feedback"):
            shutil.rmtree(plan.course_dir() / step / student / ASSIGNMENT, ignore_errors=True)
        home = pathlib.Path(plan.homes[student])
        shutil.rmtree(home / ASSIGNMENT, ignore_errors=True)
        shutil.rmtree(home / ".local/share/jupyter/nbgrader_cache" / plan.course_id, ignore_errors=True)


def student_submits(plan, student) -> str:
    """``nbgrader submit`` of the student's fetched assignment, from their terminal; the new submission's timestamp."""
    done = as_user(plan, student, plan.python, "-m", "nbgrader", "submit", ASSIGNMENT)
    assert done.returncode == 0, f"{student} submit: {done.stderr[-2000:]}"
    return newest_submission(plan, student)[0]


@contextlib.contextmanager
def course_settings(plan, section, **settings):
    """The course's ``c.<section>`` settings changed (e.g. ``cooldown=3600``) while the block runs, then put back: a
    line of the course config replaced, or added at its end. The running service applies a ``c.GradingService`` change
    at its next round and a ``c.LatePolicy`` one at its next grading (each reads the config again when it changes)."""
    config = plan.course_dir() / "nbgrader_config.py"
    before = config.read_text(encoding="utf-8")
    text = before
    for name, value in settings.items():
        line = f"c.{section}.{name} = {value!r}"
        text, found = re.subn(rf"^c\.{section}\.{name} = .*$", line, text, flags=re.M)
        assert found <= 1, f"{found} lines c.{section}.{name} = … in {config}"
        text += "" if found else f"\n{line}\n"
    config.write_text(text, encoding="utf-8")
    try:
        yield
    finally:
        config.write_text(before, encoding="utf-8")


@contextlib.contextmanager
def regrades_open(plan, until="2099-01-01 00:00:00+00:00"):
    """The course's regrade requests open until ``until`` (``c.CourseKit.regrade_deadlines``, every assignment of the
    hub's course) while the block runs, then closed again; the marking page and release_feedback publish it."""
    config = plan.course_dir() / "nbgrader_config.py"
    before = config.read_text(encoding="utf-8")
    opened = {assignment: until for assignment in ("ch04_attention", "ch04_attention_en")}
    config.write_text(before + f"\nc.CourseKit.regrade_deadlines = {opened!r}\n", encoding="utf-8")
    try:
        yield
    finally:
        config.write_text(before, encoding="utf-8")


def grading_policy(plan, **settings):
    """:func:`course_settings` of ``c.GradingService``."""
    return course_settings(plan, "GradingService", **settings)


def instructor_make(plan, target, **variables):
    """``make <target> NAME=value …`` as the instructor in their course folder (``make due``, ``make extend``); the
    completed process, asserted to have succeeded."""
    done = as_user(plan, plan.instructor, "make", target, *(f"{k}={v}" for k, v in variables.items()),
                   cwd=plan.course_dir())
    assert done.returncode == 0, f"make {target}: {done.stdout[-1000:]}{done.stderr[-2000:]}"
    return done


MARK_ALL = """
import json, sys
from coursekit.gradebook import open_gradebook, resolve_gradebook
from coursekit.plugins.pending import class_pending
course, assignment, student = sys.argv[1:]
with open_gradebook(resolve_gradebook(course)) as gradebook:
    answers = class_pending(gradebook, assignment).get(student, [])
    for answer in answers:
        gradebook.find_grade(answer.grade_id, answer.notebook, assignment, student).manual_score = answer.max_score
    gradebook.db.commit()
print(json.dumps(sum(answer.max_score for answer in answers)))
"""


def mark_written_answers(plan, student) -> float:
    """The instructor gives every pending written answer of ``student`` full marks (nbgrader's gradebook, as the
    marking page does); the points added."""
    course = plan.course_dir()
    done = as_user(plan, plan.instructor, plan.python, "-c", MARK_ALL, str(course), ASSIGNMENT, student, cwd=course)
    assert done.returncode == 0, done.stderr[-2000:]
    return float(done.stdout.strip().splitlines()[-1])


def newest_submission(plan, student) -> tuple:
    """(timestamp, secret) of ``student``'s newest submission, from nbgrader's cache in their home."""
    cache = pathlib.Path(plan.homes[student]) / ".local" / "share" / "jupyter" / "nbgrader_cache" / plan.course_id
    folder = max(cache.glob(f"{student}+{ASSIGNMENT}+*"), key=lambda path: path.name)
    return folder.name.split("+")[2], (folder / "submission_secret.txt").read_text()


def arrived(plan, student, stamp) -> str:
    """When the submission ``student`` made at ``stamp`` (their clock, as their cache names it) reached the course's
    inbound/: its time as collect writes it into ``submitted/`` (coursekit.inbound)."""
    inbound = pathlib.Path(plan.exchange) / plan.course_id / "inbound"
    return arrival(next(inbound.glob(f"{glob.escape(student)}+{ASSIGNMENT}+{glob.escape(stamp)}+*")))


def _spawn(plan, user) -> None:
    with contextlib.suppress(urllib.error.HTTPError):  # 400: already running or starting
        launch.api(plan, f"users/{user}/server", "POST")


def spawn_servers(plan, users) -> list:
    """Ask the hub to start the users' single-user servers side by side (each request waits up to the
    hub's 10 s before it answers, so one thread each); the threads, for whoever wants to join them."""
    threads = [threading.Thread(target=_spawn, args=(plan, user), daemon=True) for user in users]
    for thread in threads:
        thread.start()
    return threads


def start_servers(plan, users, timeout=180):
    """Start the users' single-user servers through the hub's API (all at once) and wait until they are ready."""
    for thread in spawn_servers(plan, users):
        thread.join()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(launch.api(plan, f"users/{u}")["servers"].get("", {}).get("ready") for u in users):
            return
        time.sleep(0.5)
    raise TimeoutError(f"servers of {users} not all ready after {timeout} s")


def user_token(plan, user) -> str:
    """A hub API token of ``user`` (their own permissions, nothing more)."""
    return launch.api(plan, f"users/{user}/tokens", "POST", {"note": "hub test"})["token"]


def server_api(plan, owner, path, token, method="GET", body=None):
    """``/user/<owner>/api/<path>`` with ``token``: (HTTP status, decoded JSON or None)."""
    request = urllib.request.Request(
        f"{plan.url}user/{owner}/api/{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            payload = response.read()
            return response.status, (json.loads(payload) if payload else None)
    except urllib.error.HTTPError as error:
        return error.code, None


# ---------- a kernel of the user's own server ----------

def _execute_request(code: str) -> dict:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": "execute_request", "session": uuid.uuid4().hex,
              "username": "", "version": "5.3", "date": ""}
    return {"header": header, "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}


async def _run_code(ws_url: str, token: str, code: str, timeout: float) -> str:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    connection = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {token}"}))
    request = _execute_request(code)
    await connection.write_message(json.dumps(request))
    stdout, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        frame = await asyncio.wait_for(connection.read_message(), timeout)
        if not isinstance(frame, str):  # a message with binary buffers (a widget's): never ours
            continue
        message = json.loads(frame)
        if message.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
            continue
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            stdout.append(content["text"])
        elif kind == "error":
            raise RuntimeError(f"kernel error {content['ename']}: {content['evalue']}")
        elif kind == "status" and content["execution_state"] == "idle":
            break
    connection.close()
    return "".join(stdout)


def run_in_kernel(plan, user, token, code, timeout=90, before_shutdown=None) -> str:
    """Start a kernel on ``user``'s server, run ``code``, return its stdout; the kernel is shut down,
    after ``before_shutdown(stdout)`` when given (a benchmark measures the kernel there)."""
    status, kernel = server_api(plan, user, "kernels", token, "POST", {"name": "python3"})
    assert status == 201, f"starting a kernel on {user}'s server: HTTP {status}"
    ws_url = f"ws://127.0.0.1:{plan.port}/user/{user}/api/kernels/{kernel['id']}/channels"
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as apart:  # the caller may hold a loop (Playwright's sync API)
            stdout = apart.submit(asyncio.run, _run_code(ws_url, token, code, timeout)).result()
        if before_shutdown is not None:
            before_shutdown(stdout)
        return stdout
    finally:
        server_api(plan, user, f"kernels/{kernel['id']}", token, "DELETE")

"""On the course hub, can a student read only what is theirs?

The session's hub (autograde/hub), one Unix user per hub user, after the course loop: the
instructor released the chapter, two students fetched and submitted it, the instructor graded and
released feedback (test_hub.py did it in Chromium; alone, this module does it with nbgrader's own
CLI run as each user). Then student 1 tries, with their own hub
token, to read student 2's and the instructor's files: through the hub (the other server's file
API, a path outside their own root, ``open(...)`` in a kernel of their own server) and through
nbgrader's exchange. Each attempt must be refused, while the same probes reach student 1's own files.
"""
import concurrent.futures
import json
import pathlib

import pytest

from support.course_tools import ASSIGNMENT
from support.hub_tools import (
    as_user,
    loop_by_cli,
    run_in_kernel,
    server_api,
    start_servers,
    user_token,
)

NOTEBOOK = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"

# Run in student 1's kernel: try each path, report what happened (read / denied / missing).
PROBE = """
import json, os

def probe(path, kind):
    try:
        if kind == "list":
            os.listdir(path)
        elif kind == "write":
            open(os.path.join(path, "planted.txt"), "w").close()
        else:
            open(path, "rb").read(1)
        return "allowed"
    except PermissionError:
        return "denied"
    except FileNotFoundError:
        return "missing"
print(json.dumps({label: probe(path, kind) for label, (path, kind) in TARGETS.items()}))
"""


@pytest.fixture(scope="module")
def hub(course_hub_plan):
    plan = course_hub_plan
    if not any(pathlib.Path(plan.exchange, plan.course_id, "feedback").glob("*")):  # the loop has not run yet
        loop_by_cli(plan, until="release_feedback")
    start_servers(plan, plan.users)
    return plan


@pytest.fixture(scope="module")
def intruder(hub):
    """Student 1 and their own hub token."""
    return hub.students[0], user_token(hub, hub.students[0])


def _targets(plan):
    """{label: (path, how to touch it)}: the victims' files, and student 1's own as controls."""
    me, other = plan.students[0], plan.students[1]
    course, exchange = plan.course_dir(), f"{plan.exchange}/{plan.course_id}"
    return {
        "own notebook": (f"{plan.homes[me]}/{NOTEBOOK}", "read"),
        "released notebook in the exchange": (f"{exchange}/outbound/{NOTEBOOK}", "read"),
        "other student's notebook": (f"{plan.homes[other]}/{NOTEBOOK}", "read"),
        "other student's home": (plan.homes[other], "list"),
        "instructor's master": (f"{course}/source/{NOTEBOOK}", "read"),
        "instructor's release folder": (f"{course}/release", "list"),
        "gradebook": (f"{course}/gradebook.db", "read"),
        "exchange inbound (everyone's submissions)": (f"{exchange}/inbound", "list"),
        "exchange outbound (plant a file)": (f"{exchange}/outbound/{ASSIGNMENT}", "write"),
        "exchange feedback": (f"{exchange}/feedback", "list"),
        "exchange feedback status (everyone's scores)": (f"{exchange}/feedback_status", "list"),
    }


def test_does_the_kernel_of_student_1_reach_only_their_own_and_released_files(hub, intruder):
    """open()/listdir() from student 1's kernel: own notebook and the release yes; everything else PermissionError?"""
    student, token = intruder
    targets = _targets(hub)
    output = run_in_kernel(hub, student, token, f"TARGETS = {targets!r}\n" + PROBE)
    seen = json.loads(output.strip().splitlines()[-1])
    expected = {label: "denied" for label in targets}
    expected.update({"own notebook": "allowed", "released notebook in the exchange": "allowed"})
    assert seen == expected


@pytest.mark.parametrize("victim", ["other student", "instructor"])
def test_does_the_hub_refuse_student_1_on_another_users_server(hub, intruder, victim):
    """Student 1's token on /user/<victim>/api/contents: 403 for the listing and for the notebook?"""
    student, token = intruder
    owner = hub.students[1] if victim == "other student" else hub.instructor
    path = NOTEBOOK if victim == "other student" else f"course/source/{NOTEBOOK}"
    assert server_api(hub, owner, "contents/", token)[0] == 403
    assert server_api(hub, owner, f"contents/{path}", token)[0] == 403
    assert server_api(hub, student, f"contents/{NOTEBOOK}", token)[0] == 200  # the token itself works


def test_does_student_1s_file_api_stay_inside_their_home(hub, intruder):
    """Paths that climb out of student 1's server root (to student 2's home) are refused?"""
    student, token = intruder
    other = hub.students[1]
    # %2E%2E: the dots reach the server as they are, not tidied away by a client or the proxy
    status, _ = server_api(hub, student, f"contents/%2E%2E/{other}/{NOTEBOOK}", token)
    assert status in (400, 403, 404)
    assert server_api(hub, student, f"contents/{NOTEBOOK}", token)[0] == 200  # the same token, their own file


def test_does_nbgrader_show_student_1_only_their_own_submission(hub):
    """`nbgrader list --inbound` as student 1 cannot list the inbound; their cached submission is theirs only?"""
    student = hub.students[0]
    with concurrent.futures.ThreadPoolExecutor(2) as both:  # side by side: each pays nbgrader's start-up
        listed, cached = both.map(lambda which: as_user(hub, student, hub.python, "-m", "nbgrader", "list", which),
                                  ("--inbound", "--cached"))
    assert hub.students[1] not in listed.stdout + listed.stderr
    assert student in cached.stdout + cached.stderr and hub.students[1] not in cached.stdout + cached.stderr

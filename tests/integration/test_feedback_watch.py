"""Does a student's real Jupyter server, with the course's extension, tell whoever listens on its events socket
that a submission's feedback status changed, within a look, and answer the newest status when Lab opens?

A throw-away JupyterLab (tests/support/lab_server.py) whose settings enable ``coursekit.plugins.students``
and whose nbgrader settings (in its working folder, as a student's home has them on the hub) name an
exchange and a course; a submission appears in its nbgrader cache as Submit leaves it, and statuses are
published as the grading service and release_feedback publish them. A WebSocket on
``/api/events/subscribe`` (what JupyterLab's event stream opens) receives the events. The hub's
Chromium test (test_hub.py) watches the same from a Lab, as a student.
"""
import asyncio
import json
import time
import urllib.error
import urllib.request

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from coursekit.plugins.feedback_watch import LOOK_SECONDS, SCHEMA_ID, STATUS_URL, TOLD_FILE
from coursekit.service import student_status as ss
from support.lab_server import lab_server

A, COURSE_ID, STUDENT = "ch04_attention", "c1", "s1"
STAMP, SECRET = "2026-12-01 10:00:01.000000 UTC", "5e" * 64


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("student")
    (base / "config").mkdir()
    (base / "config" / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {"coursekit.plugins.students": True}}}))
    (base / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.Exchange.root = {str(base / 'exchange')!r}\nc.CourseDirectory.course_id = {COURSE_ID!r}\n")
    with lab_server(base) as lab:
        yield lab, base


def _submit(base) -> None:
    """What nbgrader's Submit leaves in the student's cache: the notebook, its timestamp, its secret last."""
    folder = base / "data" / "nbgrader_cache" / COURSE_ID / f"{STUDENT}+{A}+{STAMP}"
    folder.mkdir(parents=True)
    (folder / f"{A}.ipynb").write_text(json.dumps({"cells": [], "metadata": {"edition": {"language": "en"}}}))
    (folder / "timestamp.txt").write_text(STAMP)
    (folder / "submission_secret.txt").write_text(SECRET)


async def _events(lab, base) -> list:
    """(seconds after the change, event) for a submission, then its release, heard on the events socket."""
    url = lab.url.replace("http://", "ws://") + f"api/events/subscribe?token={lab.token}"
    socket, heard = await websocket_connect(HTTPRequest(url)), []
    changes = [lambda: _submit(base),
               lambda: ss.publish(base / "exchange", COURSE_ID, SECRET,
                                  ss.released(A, STAMP, score=12.0, max_score=20.0, pending=8))]
    for change in changes:
        started = time.monotonic()
        change()
        while True:
            event = json.loads(await asyncio.wait_for(socket.read_message(), 10))
            if event["schema_id"] == SCHEMA_ID:
                heard.append((time.monotonic() - started, event))
                break
    socket.close()
    return heard


def test_does_the_students_server_tell_the_lab_of_a_submission_and_its_release_within_a_look(server):
    lab, base = server
    said = lab.api(STATUS_URL)  # nothing fetched, no launch: no language yet (the Lab asks the browser), the course's
    assert (said["statuses"], said["language"], said["default"], said["told"]) == ([], "", "zh", {})
    heard = asyncio.run(_events(lab, base))
    assert [(e["state"], e["timestamp"], e["language"], e["course_id"], e["automatic"]) for _, e in heard] == [
        (ss.SUBMITTED, STAMP, "en", COURSE_ID, False), (ss.RELEASED, STAMP, "en", COURSE_ID, False)]  # no service here
    assert (heard[1][1]["score"], heard[1][1]["max_score"], heard[1][1]["pending"]) == (12.0, 20.0, 8)
    # the Lab showed the release and says so: the student's server keeps it for the next log-in (#59 item 8)
    told = {A: f"{STAMP}|released||{heard[1][1]['published']}"}
    lab.api(STATUS_URL, "POST", {"told": told})
    assert lab.api(STATUS_URL)["told"] == told and json.loads((base / "data" / TOLD_FILE).read_text()) == told
    assert all(seconds < LOOK_SECONDS + 1.0 for seconds, _ in heard), heard
    (newest,) = lab.api(STATUS_URL)["statuses"]
    assert (newest["state"], newest["score"]) == (ss.RELEASED, 12.0)
    assert "feedback of course c1 watched every 0.5 s" in lab.log()


def test_is_the_status_answer_only_for_the_server_s_own_user(server):
    """Without the server's token: refused (the hub's proxy sends only the student's own)."""
    lab, _ = server
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(lab.url + STATUS_URL, timeout=10)
    assert refused.value.code == 403

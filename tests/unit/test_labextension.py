"""Does the students' Lab extension (autograde/coursekit/labextension) open a fetched feedback page, as
it is on disk now, when nbgrader's "(view feedback)" moves the file browser there, and nothing else; does
it tell the student, in their language, that their feedback is out (fetched first, one click opens it) or
why it will not come; when it is out, does a tab open on that assignment's feedback show the new page (read
again, or replaced in place) and does nbgrader's Assignment List list again; does it ask the student's language
again after nbgrader's Fetch; does nbgrader still write the words it translates; does Lab find it; does the wheel
ship exactly what the build wrote?

The extension is TypeScript (``src/``) built by JupyterLab's builder into the committed
``attention-feedback/`` (``make labextension``). Here Node loads that build as Lab's page does
(tests/support/labextension_harness.js: the remoteEntry file, the container's init and get, its
chunk through a <script> tag) and drives it against a stand-in Lab (command registry, contents
service, document manager, event stream, server connection), with the statuses the student's server
sends built from the service's own record (coursekit.service.student_status). The student's clock is
UTC. tests/integration/test_labextension_build.py checks that the build is what the source builds to;
the hub's Chromium tests (test_hub.py) click the real link and wait for the real
notification.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tomllib

import jupyterlab
import pytest
from jupyterlab_server.config import get_federated_extensions
from setuptools.config.expand import canonic_data_files

from coursekit.plugins.feedback_watch import SCHEMA_ID
from coursekit.service import student_status as ss
from coursekit.service.policy import ATTEMPTS, COOLDOWN, DEADLINE

REPO = pathlib.Path(__file__).resolve().parents[2]
EXTENSIONS = REPO / "autograde" / "coursekit" / "labextension"
NAME = "attention-feedback"
BUILT = EXTENSIONS / NAME
HARNESS = REPO / "tests" / "support" / "labextension_harness.js"
A, COURSE_ID = "ch04_attention", "c1"
STAMP = "2026-12-01 10:00:00.123456 UTC"
FOLDER = f"{A}/feedback/{STAMP}"
PAGE = f"{FOLDER}/ch04_attention.html"
VIEW_FEEDBACK = {"id": "filebrowser:go-to-path", "args": {"path": FOLDER}}
OPEN = f"{NAME}:open-feedback"
MEMORY = A  # what the student's server remembers they were told: per assignment, the status last shown
# nbgrader's answer to Fetch Feedback: its listing, which names the submission's fetched folder
LISTING = {"success": True, "value": [{"assignment_id": A, "status": "fetched"},
                                      {"assignment_id": A, "status": "submitted",
                                       "submissions": [{"timestamp": STAMP, "local_feedback_path": FOLDER}]}]}
FETCH = {"path": "assignments/fetch_feedback", "method": "POST", "body": {"course_id": COURSE_ID, "assignment_id": A}}
ASK = {"path": "attention-feedback/status", "method": "GET", "body": None}


def _requests(shown: dict) -> list:
    """The requests the extension sent, but for those telling the student's server what was shown."""
    return [request for request in shown["requests"] if request["method"] != "POST" or "told" not in request["body"]]


def _told(key: str) -> dict:
    """The request telling the student's server that the status of ``key`` was shown."""
    return {"path": "attention-feedback/status", "method": "POST", "body": {"told": {MEMORY: key}}}
SUBMITTED = ss.FeedbackStatus(A, STAMP, ss.SUBMITTED)
RELEASED = ss.released(A, STAMP, score=12.0, max_score=20.0, pending=8, now=1.0)


def _lab_versions() -> dict:
    """The installed JupyterLab's own versions of the modules it shares with the extension."""
    resolutions = json.loads((pathlib.Path(jupyterlab.__file__).parent / "static" / "package.json").read_text())
    return {name: resolutions["resolutions"][name].lstrip("~^")
            for name in ("@jupyterlab/docmanager", "@jupyterlab/services")}


def _node() -> str:
    node = shutil.which("node")
    if not node:
        if os.environ.get("CI") == "true":
            pytest.fail("node is required under CI=true (the hub needs it too): apt-get install nodejs")
        pytest.skip("node missing; enable: apt-get install nodejs")
    return node


def _run(executed=(), open_pages=(), **scenario) -> dict:
    """What the built extension asked the stand-in Lab, after these executed commands, with documents
    already open on ``open_pages``, and the rest of the harness's scenario (events, statuses, listing,
    memory, closed, click); Lab shares its modules at the installed JupyterLab's versions."""
    scenario = {"executed": list(executed), "open": list(open_pages), "versions": _lab_versions(), **scenario}
    done = subprocess.run([_node(), str(HARNESS), str(BUILT), json.dumps(scenario)], capture_output=True,
                          text=True, timeout=30, env={**os.environ, "TZ": "UTC"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _event(status: ss.FeedbackStatus, language="zh", automatic=True) -> dict:
    """What the student's server emits (coursekit/plugins/feedback_watch.py) and Lab's event stream delivers."""
    return {"schema_id": SCHEMA_ID, **status.to_dict(), "course_id": COURSE_ID, "language": language,
            "automatic": automatic}


def _notices(shown: dict) -> list:
    """(how, message, type, button label) of each notification shown ("notify") or updated, in order."""
    found = []
    for step in shown["asked"]:
        if step.get("execute") in ("apputils:notify", "apputils:update-notification"):
            args = step["args"]
            actions = (args.get("options") or args).get("actions", [])
            found.append((step["execute"].split(":")[1].split("-")[0], args["message"], args["type"],
                          actions[0]["label"] if actions else None))
    return found


def _lab_steps(shown: dict) -> list:
    """What the extension asked Lab, but for its notifications."""
    return [step for step in shown["asked"] if not str(step.get("execute", "")).startswith("apputils:")]


def test_does_view_feedback_open_the_folders_html_pages_in_the_html_viewer():
    """go-to-path on a feedback folder: the folder is listed, and its HTML files (not other files or
    folders) open in the HTML viewer; a trailing slash is the same folder."""
    for path in (FOLDER, FOLDER + "/"):
        shown = _run([{"id": "filebrowser:go-to-path", "args": {"path": path}}])
        assert shown["asked"] == [
            {"list": FOLDER, "content": True},
            {"find": PAGE, "widget": None},
            {"execute": "docmanager:open", "args": {"path": PAGE, "factory": "HTML Viewer"}},
        ]
        assert shown["logged"] == {"warn": [], "error": []}


def test_does_view_feedback_read_an_already_open_page_from_disk_again_before_showing_it():
    """Fetch Feedback wrote a page released again over the one a tab shows: the open document (in any
    viewer: ``widget`` None) is reverted before Lab brings it forward, so the tab shows the new score,
    not the old one (on the hub it kept 12/20 with 8 pending while the file said 14.2)."""
    shown = _run([VIEW_FEEDBACK], open_pages=[PAGE])
    assert shown["asked"] == [
        {"list": FOLDER, "content": True},
        {"find": PAGE, "widget": None},
        {"revert": PAGE},
        {"execute": "docmanager:open", "args": {"path": PAGE, "factory": "HTML Viewer"}},
    ]


@pytest.mark.parametrize("executed", [
    {"id": "filebrowser:go-to-path", "args": {"path": "ch04_attention"}},
    {"id": "filebrowser:go-to-path", "args": {"path": "ch04_attention/feedback"}},
    {"id": "filebrowser:go-to-path", "args": {"path": PAGE}},
    {"id": "filebrowser:go-to-path", "args": {}},
    {"id": "docmanager:open", "args": {"path": FOLDER}},
])
def test_does_anything_else_leave_lab_alone(executed):
    """Any other folder, a file, no path, or another command with a feedback folder: nothing asked."""
    assert _run([executed], open_pages=[PAGE])["asked"] == []


def test_after_submit_is_the_student_told_grading_then_the_score_with_the_page_fetched_first():
    """Submitted: "grading…" at the submission's time; released: nbgrader's Fetch Feedback is sent first,
    then the same notification says the score line with a button; one request when Lab opened, none while
    it waited; what was shown is remembered."""
    shown = _run(events=[_event(SUBMITTED), _event(RELEASED)], listing=LISTING)
    assert _notices(shown) == [
        ("notify", "已收到你 10:00:00 的提交，正在评分…", "in-progress", None),
        ("update", "反馈已就绪：12 / 20 分，8 道书面题待批改", "success", "查看反馈"),
    ]
    assert shown["requests"] == [ASK, _told(f"{STAMP}|submitted||0"), FETCH, _told(f"{STAMP}|released||1")]
    assert shown["timeline"] == ["request attention-feedback/status", "execute apputils:notify",
                                 "request attention-feedback/status", "request assignments/fetch_feedback",
                                 "execute apputils:update-notification", "request attention-feedback/status"]
    update = shown["asked"][-1]["args"]
    assert update["id"] == "n1" and update["autoClose"] is False
    assert update["actions"][0]["commandId"] == OPEN
    assert shown["memory"] == {MEMORY: f"{STAMP}|released||1"}
    assert shown["logged"] == {"warn": [], "error": []}


def test_does_one_click_open_the_fetched_page_as_view_feedback_does_never_stale():
    """The page already open when its feedback arrives is read again before the student is told; the button opens
    the fetched folder's page in the HTML viewer, the open tab read again first (the same code as "(view feedback)"),
    with no second fetch, and leaves one tab on it."""
    shown = _run(events=[_event(RELEASED)], listing=LISTING, click=True, open_pages=[PAGE])
    assert _lab_steps(shown) == [
        {"list": FOLDER, "content": True},
        {"revert": PAGE},
        {"execute": OPEN, "args": {"course_id": COURSE_ID, "assignment": A, "timestamp": STAMP}},
        {"list": FOLDER, "content": True},
        {"find": PAGE, "widget": None},
        {"revert": PAGE},
        {"execute": "docmanager:open", "args": {"path": PAGE, "factory": "HTML Viewer"}},
    ]
    assert _requests(shown) == [ASK, FETCH] and shown["tabs"] == [PAGE]


OLDER = "2026-12-01 09:00:00.000000 UTC"
OLDER_PAGE = f"{A}/feedback/{OLDER}/ch04_attention.html"
OTHER_PAGE = f"ch04_attention_en/feedback/{OLDER}/ch04_attention.html"  # another assignment's, same page name


@pytest.mark.parametrize("in_front", [False, True], ids=["behind", "in-front"])
def test_is_a_tab_on_an_older_submissions_feedback_replaced_in_place_and_reused_by_the_button(in_front):
    """A resubmission's feedback arrives with the first one's page open (it showed 9.25 / 20 after the notification
    said 12 / 20): before the student is told, the new page opens beside it (in front only if the old one was) and
    the old tab closes; the button then reuses that tab, never a second one of the same name; another assignment's
    tab stays."""
    shown = _run(events=[_event(RELEASED)], listing=LISTING, click=True, open_pages=[OLDER_PAGE, OTHER_PAGE],
                 current=OLDER_PAGE if in_front else None)
    steps = [step for step in _lab_steps(shown) if "close" in step or step.get("execute") == "docmanager:open"]
    assert steps[:2] == [
        {"execute": "docmanager:open", "args": {"path": PAGE, "factory": "HTML Viewer",
                                                "options": {"ref": "tab1", "mode": "tab-after",
                                                                            "activate": in_front}}},
        {"close": OLDER_PAGE}]
    told = next(k for k, step in enumerate(shown["asked"]) if step.get("execute") == "apputils:notify")
    assert shown["asked"].index({"close": OLDER_PAGE}) < told
    assert sorted(shown["tabs"]) == sorted([PAGE, OTHER_PAGE])


def test_is_a_newer_submissions_tab_left_alone_by_an_older_ones_release():
    """An older submission's feedback released (marked since) while the newest one's page is open: nothing closed."""
    older = ss.released(A, OLDER, score=3.0, max_score=20.0, now=2.0)
    listing = {"success": True, "value": [{"assignment_id": A, "status": "submitted", "submissions": [
        {"timestamp": OLDER, "local_feedback_path": f"{A}/feedback/{OLDER}"}]}]}
    shown = _run(events=[_event(older)], listing=listing, open_pages=[PAGE])
    assert not [step for step in shown["asked"] if "close" in step or "revert" in step] and shown["tabs"] == [PAGE]


@pytest.mark.parametrize("list_open", [True, False], ids=["list-open", "list-closed"])
def test_does_the_assignment_list_list_again_when_feedback_arrives(list_open):
    """Feedback fetched by the extension, not by the list's button: nbgrader's own refresh is pressed (when its list
    is open), after the fetch and before the student is told, so the row offers "(view feedback)"."""
    shown = _run(events=[_event(RELEASED)], listing=LISTING, listOpen=list_open)
    refreshed = [k for k, step in enumerate(shown["asked"]) if "refresh" in step]
    told = next(k for k, step in enumerate(shown["asked"]) if step.get("execute") == "apputils:notify")
    assert refreshed == ([told - 1] if list_open else [])
    assert _requests(shown) == [ASK, FETCH]


def test_is_the_students_language_asked_again_after_nbgraders_fetch_only():
    """The list's language is the server's answer when Lab opens; nbgrader's Fetch (a new edition in the student's
    folder) has it asked once more, and nothing else does."""
    shown = _run(nbgraderFetch=A, language="en")
    nb_fetch = {"path": "assignments/fetch", "method": "POST", "body": {"course_id": COURSE_ID, "assignment_id": A}}
    assert _requests(shown) == [ASK, nb_fetch, ASK] and shown["logged"] == {"warn": [], "error": []}


def test_does_a_click_whose_fetch_found_nothing_fetch_again_and_say_why_it_cannot_open():
    """nbgrader's listing names no folder for the submission: the click fetches again, opens nothing, and the
    failure names the submission (Lab logs a button's failure)."""
    shown = _run(events=[_event(RELEASED)], listing={"success": True, "value": []}, click=True)
    assert _requests(shown) == [ASK, FETCH, FETCH]
    assert [step for step in _lab_steps(shown) if "list" in step] == []
    assert shown["logged"]["error"] == [
        f"Failed to executed '{OPEN}': Error: no fetched feedback for {A} submitted {STAMP}"]


@pytest.mark.parametrize("status, message, kind", [
    (ss.held(A, STAMP, COOLDOWN, until=1_764_583_500.0, now=1.0),  # 2025-12-01 10:05:00 UTC
     "这次提交的反馈将在 10:05:00 自动发布（两次自动反馈之间有冷却时间）", "info"),
    (ss.held(A, STAMP, ATTEMPTS, limit=3, now=1.0), "自动反馈的 3 次机会已用完：这次提交的反馈由老师批改后发布", "warning"),
    (ss.held(A, STAMP, DEADLINE, now=1.0), "已过截止时间：这次提交不再自动反馈，由老师批改后发布", "warning"),
    (ss.held(A, STAMP, ss.PAUSED, now=1.0), "老师暂停了自动评分：恢复后会评分并发布反馈，到时这里会告诉你", "info"),
    (ss.released(A, STAMP, graded=False, now=1.0), "反馈已就绪：这次提交没有被自动评分，打开看原因和该怎么做", "warning"),
    (ss.released(A, STAMP, now=1.0), "反馈已就绪", "success"),
], ids=["cooldown", "attempts", "deadline", "paused", "not graded", "no score"])
def test_is_the_student_told_why_automatic_feedback_will_not_come(status, message, kind):
    """Each reason in the student's words, the cooldown with the time it ends; a button only where a page is out."""
    shown = _run(events=[_event(status)], listing=LISTING)
    assert _notices(shown) == [("notify", message, kind, "查看反馈" if status.state == ss.RELEASED else None)]
    assert (FETCH in _requests(shown)) == (status.state == ss.RELEASED)


@pytest.mark.parametrize("status, message", [
    (RELEASED, "Feedback ready: 12 / 20 points, 8 written answers still to be marked"),
    (ss.released(A, STAMP, score=19.5, max_score=20.0, pending=1, now=1.0),
     "Feedback ready: 19.5 / 20 points, 1 written answer still to be marked"),
    (ss.held(A, STAMP, ATTEMPTS, limit=2, now=1.0),
     "All 2 automatic feedbacks are used: your instructor will release this submission's feedback after marking"),
    (SUBMITTED, "Your submission of 10:00:00 is in: grading…"),
])
def test_does_the_english_edition_speak_english(status, message):
    """A submission of the English edition (its notebook says so): the same notices from the English column."""
    shown = _run(events=[_event(status, language="en")], listing=LISTING)
    assert [notice[1] for notice in _notices(shown)] == [message]
    assert _notices(shown)[0][3] in (None, "Open feedback")


@pytest.mark.parametrize("language, message", [
    ("zh", "已收到你 10:00:00 的提交：这份作业的反馈由老师批改后发布"),
    ("en", "Your submission of 10:00:00 is in: your instructor will release its feedback after marking"),
])
def test_is_a_submission_the_service_does_not_grade_never_said_to_be_grading(language, message):
    """An assignment the grading service does not grade (it did not announce it): no "grading…", but who will."""
    shown = _run(events=[_event(SUBMITTED, language=language, automatic=False)])
    assert _notices(shown) == [("notify", message, "info", None)]


def test_is_a_release_again_after_marking_a_new_notice_with_the_new_score():
    """Released, then released again (marked since: a new publication): fetched again, the new score."""
    again = ss.released(A, STAMP, score=14.25, max_score=20.0, pending=0, now=2.0)
    shown = _run(events=[_event(RELEASED), _event(again)], listing=LISTING)
    assert [notice[:2] for notice in _notices(shown)] == [
        ("notify", "反馈已就绪：12 / 20 分，8 道书面题待批改"), ("update", "反馈已就绪：14.25 / 20 分")]
    assert _requests(shown) == [ASK, FETCH, FETCH]


def test_when_lab_opens_is_what_was_shown_in_this_browser_not_shown_again():
    """The server's answer when Lab opens: a release the student was already shown (their server remembers it, in
    whatever browser it was shown: #59 item 8) says nothing; one not shown yet (a newer publication) is fetched and
    shown; an in-progress submission is shown."""
    remembered = _run(statuses=[_event(RELEASED)], memory={MEMORY: f"{STAMP}|released||1"}, listing=LISTING)
    assert _notices(remembered) == [] and _requests(remembered) == [ASK]
    newer = _run(statuses=[_event(RELEASED)], memory={MEMORY: f"{STAMP}|submitted||0"}, listing=LISTING)
    assert [notice[1] for notice in _notices(newer)] == ["反馈已就绪：12 / 20 分，8 道书面题待批改"]
    grading = _run(statuses=[_event(SUBMITTED)])
    assert [notice[:3] for notice in _notices(grading)] == [("notify", "已收到你 10:00:00 的提交，正在评分…", "in-progress")]


def test_is_a_closed_notification_replaced_by_a_new_one():
    """The student closed "grading…" (Lab's update answers false): the release comes as a new notification."""
    shown = _run(events=[_event(SUBMITTED), _event(RELEASED)], listing=LISTING, closed=True)
    assert [notice[0] for notice in _notices(shown)] == ["notify", "update", "notify"]


def test_does_an_older_submission_s_news_not_cover_the_newest_but_its_release_does():
    """Grading the newest: a decision about an older submission says nothing; that older one's release does."""
    older = "2026-12-01 09:00:00.000000 UTC"
    shown = _run(events=[_event(SUBMITTED), _event(ss.held(A, older, DEADLINE, now=1.0)),
                         _event(ss.released(A, older, score=3.0, max_score=20.0, now=2.0))], listing=LISTING)
    assert [notice[1] for notice in _notices(shown)] == ["已收到你 10:00:00 的提交，正在评分…", "反馈已就绪：3 / 20 分"]


def test_are_other_events_left_alone():
    """An event of another schema (Lab's own, the server's) is not the extension's."""
    shown = _run(events=[{**_event(RELEASED), "schema_id": "https://events.jupyter.org/jupyter_server/contents"}])
    assert shown["asked"] == [] and _requests(shown) == [ASK]


def test_are_there_four_plugins_that_take_lab_s_shared_modules_at_the_installed_versions():
    """Four plugins, two needing Lab's IDocumentManager; Lab's docmanager and services shared from the installed
    JupyterLab with no "Unsatisfied version" warning (the build's required ranges admit the Lab it runs in)."""
    shown = _run([])
    assert shown["ids"] == [f"{NAME}:open-on-view", f"{NAME}:notify", f"{NAME}:validation-words", f"{NAME}:regrade"]
    assert shown["requires"] == [["@jupyterlab/docmanager:IDocumentManager"]] * 2 + [[], []]
    assert shown["logged"] == {"warn": [], "error": []}


VALIDATED = {"success": True, "value": {"failed": [{"source": "run(1)", "name": "TEST 1 · Task 2", "error": "e",
                                                     "raw_error": "e"}], "language": "en"}}


@pytest.mark.parametrize("request_, answer, looked_up", [
    ({"url": "assignments/validate?path=ch04_attention_en%2Fch04_attention_en.ipynb"}, VALIDATED, None),
    ({"url": "assignments/validate?path=ch04_attention%2Fch04_attention.ipynb"}, {"success": True, "value": {}},
     "ch04_attention/ch04_attention.ipynb"),
    ({"url": "assignments/validate", "body": {"path": "ch04_attention/ch04_attention.ipynb"}},
     {"success": True, "value": "{}"}, "ch04_attention/ch04_attention.ipynb"),
], ids=["the-answer-says-its-language", "the-toolbar's-request-the-notebook-asked", "the-list's-request-the-notebook-asked"])
def test_does_nbgraders_validate_get_its_answer_unchanged_and_the_notebook_asked_only_when_needed(
        request_, answer, looked_up):
    """nbgrader's request goes through the shared ServerConnection as before and its answer reaches nbgrader unchanged;
    the notebook's own metadata is read (Lab's contents API) only when the answer does not say its language?"""
    shown = _run([], validate={**request_, "answer": answer})
    assert shown["validated"] == answer and shown["logged"] == {"warn": [], "error": []}
    asked = [step for step in shown["asked"] if "list" in step]
    assert asked == ([] if looked_up is None else [{"list": looked_up, "content": True}])


def test_does_nbgraders_build_still_word_its_validate_dialog_and_assignment_list_as_the_extension_expects():
    """Every sentence texts.ts says in the notebook's or the student's language (NBGRADER_WORDS, NBGRADER_LIST_WORDS)
    is in nbgrader's installed Lab extension, which still asks makeRequest for assignments/validate, builds
    #validation-message and gives its list's panel and refresh button the ids the extension finds them by: an
    nbgrader that words it otherwise makes this test fail, not the dialog or the list silently English?"""
    import nbgrader

    folder = pathlib.Path(nbgrader.__file__).parent
    built = "".join(path.read_text(encoding="utf-8") for path in (folder / "labextension" / "static").glob("*.js"))
    built += (folder / "validator.py").read_text(encoding="utf-8")  # "Partial credit; …" is the server's
    texts = (EXTENSIONS / "src" / "texts.ts").read_text(encoding="utf-8")
    words = re.findall(r"^  \w+: '([^']+)'", texts.split("export const NBGRADER_WORDS")[1].split("} as const")[0], re.M)
    assert len(words) == 7 and [w for w in words if w not in built] == []
    listed = re.findall(r"^  \w+: '([^']+)'", texts.split("export const NBGRADER_LIST_WORDS")[1].split("} as const")[0],
                        re.M)
    assert len(listed) == 20 and [w for w in listed if w not in built] == []
    assert 'id="refresh_assignments_list"' in built and "nbgrader-assignment-list" in built
    assert built.count('"assignments/validate"') == 2 and "ServerConnection.makeRequest" in built
    assert 'id="validation-message"' in built or '.id="validation-message"' in built


def test_does_jupyterlab_find_it_as_a_prebuilt_extension():
    """Lab's own discovery reads the built folder's package.json (not the source's beside it), and the
    entry it will load exists under a content-hashed name."""
    found = get_federated_extensions([str(EXTENSIONS)])
    assert list(found) == [NAME]
    build = found[NAME]["jupyterlab"]["_build"]
    assert re.fullmatch(r"static/remoteEntry\.[0-9a-f]{16,}\.js", build["load"]), build["load"]
    assert (BUILT / build["load"]).is_file()
    assert build["extension"] == "./extension"


def test_does_the_wheel_ship_exactly_what_the_build_wrote():
    """pyproject's data-files, expanded by setuptools as a wheel build does, put each built file (and
    nothing else) under share/jupyter/labextensions/<name>/: a new content hash needs no edit there."""
    data_files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = {f"{target}/{pathlib.PurePath(source).name}": source
               for target, sources in canonic_data_files(data_files, REPO) if "labextensions" in target
               for source in sources}
    built = {f"share/jupyter/labextensions/{path.relative_to(EXTENSIONS)}": str(path.relative_to(REPO))
             for path in BUILT.rglob("*") if path.is_file()}
    assert shipped == built
    assert len(built) >= 3  # package.json, remoteEntry, the plugin's chunk at least


NOTEBOOK = f"{A}/{A}.ipynb"


@pytest.mark.parametrize("request_", ["submit", "validate"])
def test_do_validate_and_submit_save_the_notebooks_unsaved_edits_first(request_):
    """#59 item 1: nbgrader's Assignment List validates and submits the files on disk. With the notebook open and
    edited, not saved: it is saved before the request leaves (and only it: another assignment's open notebook, and a
    saved one, are left alone), and a notification says so, in the student's language?"""
    scenario = {"open": [NOTEBOOK, "other/other.ipynb", f"{A}/notes.md"], "dirty": [NOTEBOOK, "other/other.ipynb"],
                "language": "en"}
    if request_ == "submit":
        shown = _run(nbgraderSubmit=A, **scenario)
        assert shown["submitted"] == {"success": True}
    else:
        shown = _run(validate={"url": "assignments/validate", "body": {"path": NOTEBOOK}, "answer": {"success": True}},
                     **scenario)
    assert [step["save"] for step in shown["asked"] if "save" in step] == [NOTEBOOK]
    done = [line for line in shown["timeline"] if line in (f"save {NOTEBOOK}", f"request assignments/{request_}")]
    assert done == [f"save {NOTEBOOK}", f"request assignments/{request_}"]  # saved before the request left
    said = [n[1] for n in _notices(shown)]
    assert said == [f"{A}.ipynb had unsaved changes: saved them first, then "
                    f"{'submitted' if request_ == 'submit' else 'validated'}."]


def test_is_nothing_submitted_when_the_unsaved_edits_cannot_be_saved():
    """A save that fails: the Submit request never leaves (nothing stale submitted), nbgrader's caller gets the error,
    and the notification says why and what to do, in Chinese for a Chinese edition's student?"""
    shown = _run(nbgraderSubmit=A, open=[NOTEBOOK], dirty=[NOTEBOOK], saveFails=[NOTEBOOK])
    assert "request assignments/submit" not in shown["timeline"] and "disk full" in shown["submitted"]["error"]
    assert [n[1:3] for n in _notices(shown)] == [
        (f"{A}.ipynb 里有没保存的修改，但保存失败（disk full）：这次没有提交。保存之后再试一次。", "error")]


def test_is_a_saved_notebook_submitted_as_it_is():
    """Nothing unsaved: no save, no notification, the request as nbgrader sent it?"""
    shown = _run(nbgraderSubmit=A, open=[NOTEBOOK])
    assert not [step for step in shown["asked"] if "save" in step] and _notices(shown) == []
    assert shown["submitted"] == {"success": True}


@pytest.mark.parametrize("status", [RELEASED, SUBMITTED, ss.held(A, STAMP, ATTEMPTS, limit=2, now=1.0),
                                    ss.held(A, STAMP, COOLDOWN, until=1_764_583_500.0, now=1.0),
                                    ss.held(A, STAMP, ss.PAUSED, now=1.0), ss.released(A, STAMP, graded=False, now=1.0)],
                         ids=["released", "submitted", "attempts", "cooldown", "paused", "not graded"])
def test_does_a_notice_say_only_the_catalogues_words_in_the_pseudo_locale(status):
    """A submission of the pseudo-locale's edition: the notice and its button are the catalogue's messages (its
    words written into the build by make translations), nothing else but numbers and times?"""
    from coursekit.language import PSEUDO
    from support.pseudo import left_over

    shown = _run(events=[_event(status, language=PSEUDO)], listing=LISTING)
    [(_, message, _, button)] = _notices(shown)
    assert message.startswith("⟦") and left_over(message) == [] and left_over(button or "") == []

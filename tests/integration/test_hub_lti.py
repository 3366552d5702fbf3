"""Does the course work from inside an LMS: launch → fetch → submit → feedback → the LMS's gradebook, in Chromium?

A hub of its own (``make hub``'s launcher with LTI settings: support.hub_tools.course_hub), its grading service and
LMS sync running, and the test LMS (support.lms_platform: ``lti1p3platform`` signing real launches, its JWKS, token
endpoint, AGS and NRPS) on 127.0.0.1. In Chromium the instructor and two students log in to the LMS and click the
course page's link; each lands in the hub (the instructor in their Lab; each student with their edition fetched and
open: ``zh-CN`` the Chinese, ``en-US`` the English); the students submit from the Assignment List; the grading
service releases feedback and the LMS's gradebook shows each score as ``PendingManual``; the instructor marks on the
marking page (its API) and it shows ``FullyGraded``. The instructor's first launch links the hub to the LMS's
course. Then ``make lms-sync`` finds nothing to post, the LMS is taken down while a mark changes and nothing is lost,
a late submission's score reaches the LMS penalised (a due date long past, the "zero" policy) and an extension brings
it back, and the attacks on the launch (support.redteam.LAUNCH_ATTACKS: forged, replayed, other deployments and roles,
other courses' instructors, TAs and learners) and on the hub's other doors are refused, no launch of another course
reaching the course. Screenshots: ``artefacts/hub/lti_*.png``.
"""
import contextlib
import dataclasses
import json
import os
import pwd
import re
import stat
import string
import subprocess
import time
import urllib.parse

import pathlib

import pytest
import requests
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from coursekit import regrade_book
from coursekit.language import WORDS
from coursekit.settings import course_settings as settings_of
from coursekit.gradebook import open_gradebook, resolve_gradebook
from coursekit.identity import hub_user
from coursekit.lms.hub_client import TOKEN_PATH, HubBroker
from coursekit.plugins.pending import class_pending
from coursekit.people import full_name
from support import lab_page, setup_clock
from support.axe_audit import assert_accessible
from support.hub_page import LONG, SHORT, open_from_nbgrader_menu, shot, type_code, visible_button
from support.hub_tools import (course_hub, course_settings, instructor_nbgrader, regrades_open, require_hub_machine,
                               user_token)
from support.lms_platform import CONTEXT, TestLMS
from support.mistakes import BY_NAME
from support.redteam import LAUNCH_ATTACKS, launch_claims, refused_as
from support.service_tools import wait_for

from hub import lti
from hub import plan as hub_plan

EDITIONS = ("ch04_attention", "ch04_attention_en")
WALK = {"student1": ("ch04_attention", "ok_dot"), "student2": ("ch04_attention_en", "bug_no_scale")}
SCORES_WAIT = 240  # s: two gradings, their feedback and the LMS sync's round, on busy cores


@pytest.fixture(scope="module")
def lms_hub(request, tmp_path_factory):
    """(plan, lms): the hub with LTI settings naming the test LMS, both editions released; always stopped."""
    require_hub_machine()
    lab_page.require_chromium("the LTI hub walk")
    port = hub_plan.free_port()
    lms = TestLMS(f"http://127.0.0.1:{port}/")
    folder = tmp_path_factory.mktemp("lti")
    (folder / "lms.toml").write_text(lms.settings_toml())
    settings = dataclasses.asdict(lti.load(folder / "lms.toml"))
    with lms.running(), contextlib.ExitStack() as stack:
        with setup_clock.timed(request, "the LTI hub (hub, test LMS, both editions released)"):
            plan = stack.enter_context(course_hub(folder, "jupyterhub-lti.log", students=(), port=port, lti=settings,
                                                  service_paused=False))
            for assignment in EDITIONS:
                for step in ("generate_assignment", "release_assignment"):
                    done = instructor_nbgrader(plan, step, assignment)
                    assert done.returncode == 0, done.stderr[-2000:]
        yield plan, lms


def lms_session(browser, lms, login):
    page = browser.new_context(viewport=lab_page.VIEWPORT).new_page()
    page.set_default_timeout(SHORT)
    page.goto(lms.url(f"/login/{login}"))
    return page


def student_of(lms, login) -> str:
    return hub_user(lms.url(""), lms.person(login).sub)


def submit(page, assignment):
    open_from_nbgrader_menu(page, "Assignment List")
    visible_button(page, "fetched", assignment, "Submit").click()
    page.locator("#submitted_assignments_list .list_item", has_text=assignment).first.wait_for(timeout=LONG)


def book_of(plan) -> dict:
    """``{student: (score, max score)}`` of each student's newest submission in the course's gradebook."""
    with open_gradebook(resolve_gradebook(plan.course_dir())) as gradebook:
        return {s.student_id: (s.score, s.max_score) for a in gradebook.assignments for s in a.submissions}


def lms_shows(lms, progress) -> dict:
    """``{login: (score, maximum)}`` when every walking student's score is in the LMS with ``progress``, else {}."""
    column = next(iter(lms.gradebook().values()), {})
    if set(WALK) <= set(column) and all(column[login][2] == progress for login in WALK):
        return {login: column[login][:2] for login in WALK}
    return {}


def mark_all(plan, lms, points=None):
    """The instructor marks every pending written answer of the walking students on the marking page (its API, with
    their token): full marks, or ``points``. The page's save is the hook that tells the LMS sync."""
    token = user_token(plan, plan.instructor)
    with open_gradebook(resolve_gradebook(plan.course_dir())) as gradebook:
        pending = {(a, s, p.grade_id, p.max_score) for a in EDITIONS for s, answers in class_pending(gradebook, a).items()
                   for p in answers}
    for assignment, student, question, most in sorted(pending):
        judge(plan, token, assignment, {"question": question, "students": [student],
                                        "score": most if points is None else points})
    return len(pending)


def judge(plan, token, assignment, judgement: dict) -> None:
    """A judgement saved through the marking page's API as the page saves it: with the fingerprint of each answer's
    text it read from the question's board."""
    marking, headers = f"{plan.url}user/{plan.instructor}/marking/api/", {"Authorization": f"token {token}"}
    board = requests.get(marking + "board", params={"assignment": assignment, "question": judgement["question"]},
                         headers=headers, timeout=60)
    assert board.status_code == 200, board.text[:500]
    texts = {s: board.json()["texts"][s] for s in judgement["students"]}
    answer = requests.post(marking + "judge", params={"assignment": assignment}, headers=headers, timeout=60,
                           json={**judgement, "texts": texts})
    assert answer.status_code == 200, answer.text[:500]


def test_does_the_lms_launch_walk_the_loop_into_the_lms_gradebook(lms_hub, hub_browser):
    plan, lms = lms_hub
    teacher = lms_session(hub_browser, lms, "teacher")
    teacher.click("#chapter4")
    teacher.wait_for_url(re.compile(f"/user/{plan.instructor}/lab"), timeout=LONG)
    teacher.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").wait_for(timeout=LONG)
    shot(teacher, "lti_instructor_lab")
    assert told(plan).contexts == (CONTEXT,)  # the first instructor launch linked the LMS's course
    for login, (assignment, mistake) in WALK.items():
        page, name = lms_session(hub_browser, lms, login), student_of(lms, login)
        page.click("#chapter4")
        page.wait_for_url(re.compile(f"/user/{name}/lab/tree/{assignment}/{assignment}.ipynb"), timeout=LONG)
        page.locator(".jp-MarkdownCell .jp-RenderedHTMLCommon").first.wait_for(timeout=LONG)  # drawn, not a spinner
        shot(page, f"lti_{login}_landed")
        type_code(plan, name, BY_NAME[mistake].code, assignment=assignment)
        submit(page, assignment)
    pending = wait_for(lambda: lms_shows(lms, "PendingManual"), SCORES_WAIT, "both scores PendingManual in the LMS")
    book = book_of(plan)
    assert pending == {login: book[student_of(lms, login)] for login in WALK}
    teacher.goto(lms.url("/gradebook"))
    assert teacher.locator("#grades td.PendingManual").count() == 2
    shot(teacher, "lti_gradebook_pending")
    assert mark_all(plan, lms) == 16  # eight written answers each
    done = wait_for(lambda: lms_shows(lms, "FullyGraded"), SCORES_WAIT, "both scores FullyGraded in the LMS")
    assert done == {login: (pending[login][0] + 8, 20.0) for login in WALK}
    teacher.reload()
    assert teacher.locator("#grades td.FullyGraded").count() == 2
    shot(teacher, "lti_gradebook_fully_graded")
    names_not_ids_on_the_marking_page(plan, lms, teacher)


def names_not_ids_on_the_marking_page(plan, lms, teacher):
    """#59 item 3, in the instructor's browser: the marking page names each launched student as the LMS's roster does
    (the gradebook's first and last name), never by the hub's id for them (lti-…)."""
    for login, (assignment, _) in WALK.items():
        page = teacher.context.new_page()
        page.goto(f"{plan.url}user/{plan.instructor}/marking/?assignment={assignment}")
        page.wait_for_function("() => window.__marking && window.__marking.ready", timeout=LONG)
        shown = page.locator("#answers").inner_text()
        shot(page, f"lti_marking_{login}")
        person = lms.person(login)
        assert full_name(person.given, person.family) in shown and student_of(lms, login) not in shown, shown[:500]
        page.close()


def as_instructor(plan, *command, token=None):
    """``command`` in the instructor's course folder, as their terminal has it (the hub's API token and URL)."""
    env = {"HOME": plan.homes[plan.instructor], "PATH": f"{os.path.dirname(plan.python)}:/usr/bin:/bin",
           "LANG": "C.UTF-8", "JUPYTERHUB_API_URL": f"http://127.0.0.1:{plan.hub_port}/hub/api",
           "JUPYTERHUB_API_TOKEN": token or user_token(plan, plan.instructor)}
    return subprocess.run(list(command), user=plan.instructor, group=plan.instructor, extra_groups=[], env=env,
                          cwd=plan.course_dir(), capture_output=True, text=True, timeout=300)


def test_does_make_lms_sync_find_nothing_left_to_post(lms_hub):
    plan, lms = lms_hub
    wait_for(lambda: lms_shows(lms, "FullyGraded"), SCORES_WAIT, "the walk's scores")
    done = as_instructor(plan, "make", "lms-sync")
    assert done.returncode == 0, done.stdout + done.stderr
    lang = settings_of(plan.course_dir()).language
    said = WORDS.template(lang, "lms.round").split("{roster}")[0].format(posted=0, same=2)
    assert said in done.stdout, done.stdout  # in the course's language


def test_is_a_mark_made_while_the_lms_is_down_posted_once_it_is_back(lms_hub):
    plan, lms = lms_hub
    before = wait_for(lambda: lms_shows(lms, "FullyGraded"), SCORES_WAIT, "the walk's scores")
    lms.down = True
    try:
        mark_all_one_down = mark_all_of(plan, "student2", lms)
        status = wait_for(lambda: _waiting_line(plan), 60, "make service-status naming the LMS down")
        assert "503" in status["cause"], status.group(0)  # the machine's fault: the template's own words matched
    finally:
        lms.down = False
    after = wait_for(lambda: (lms_shows(lms, "FullyGraded") or {}).get("student2", (None,))[0] ==
                     before["student2"][0] - mark_all_one_down and lms_shows(lms, "FullyGraded"), 120,
                     "the changed mark in the LMS")
    assert after["student1"] == before["student1"]


def test_does_a_late_submission_reach_the_lms_penalised_and_an_extension_bring_it_back(lms_hub):
    """A due date long past and the "zero" policy: student1 hands in again, late; the LMS's score becomes 0, nbgrader
    export's number. An extension past its arrival (``make extend``) regrades nothing: the LMS gets the grade back."""
    plan, lms = lms_hub
    before = wait_for(lambda: lms_shows(lms, "FullyGraded"), SCORES_WAIT, "the walk's scores")
    name, assignment = student_of(lms, "student1"), WALK["student1"][0]
    try:
        with course_settings(plan, "LatePolicy", penalty_method="zero"):
            assert as_instructor(plan, "make", "due", "DUE=2000-01-01 00:00+00:00").returncode == 0
            done = _as_learner(plan, name, plan.python, "-m", "nbgrader", "submit", assignment)
            assert done.returncode == 0, done.stderr[-2000:]
            late = wait_for(lambda: (lms_shows(lms, "FullyGraded") or {}).get("student1", (None,))[0] == 0.0,
                            SCORES_WAIT, "student1's late score in the LMS")
            assert late and _exported(plan, name, assignment) == 0.0
            done = as_instructor(plan, "make", "extend", f"STUDENT={name}", "UNTIL=2100-01-01", "REASON=lti walk")
            assert done.returncode == 0 and f"{name}（{assignment}）：0 → " in done.stdout, done.stdout + done.stderr
            back = wait_for(lambda: (lms_shows(lms, "FullyGraded") or {}).get("student1") == before["student1"] and
                            lms_shows(lms, "FullyGraded"), SCORES_WAIT, "student1's grade back in the LMS")
            assert back["student1"][0] == _exported(plan, name, assignment)
    finally:
        as_instructor(plan, "make", "extend", f"STUDENT={name}", "UNTIL=none")
        as_instructor(plan, "make", "due", "DUE=none")  # student2's work, late under it too, back as it was
        wait_for(lambda: lms_shows(lms, "FullyGraded") == before, SCORES_WAIT, "the walk's scores back in the LMS")


def _as_learner(plan, name, *command):
    """``command`` as a learner the LMS's launch made (a Unix user of their own), in their home, as their terminal."""
    home = pwd.getpwnam(name).pw_dir
    env = {"HOME": home, "USER": name, "PATH": f"{os.path.dirname(plan.python)}:/usr/bin:/bin", "LANG": "C.UTF-8",
           "JUPYTER_CONFIG_PATH": str(plan.settings), "ATTN_EXCHANGE": plan.exchange, "ATTN_COURSE_ID": plan.course_id}
    return subprocess.run(list(command), user=name, group=name, extra_groups=[], env=env, cwd=home,
                          capture_output=True, text=True, timeout=300)


def _exported(plan, student, assignment) -> float:
    """``student``'s score in the instructor's ``nbgrader export``."""
    done = as_instructor(plan, plan.python, "-m", "nbgrader", "export", "--to", "grades-lti.csv")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = (plan.course_dir() / "grades-lti.csv").read_text(encoding="utf-8").splitlines()
    header = rows[0].split(",")
    found = [dict(zip(header, r.split(","))) for r in rows[1:]]
    return float(next(r["score"] for r in found if r["student_id"] == student and r["assignment"] == assignment))


def mark_all_of(plan, login, lms) -> float:
    """One written answer of ``login``'s marked 0 instead of 1 (the marking page's API); the points taken."""
    token, name = user_token(plan, plan.instructor), student_of(lms, login)
    judge(plan, token, WALK[login][0], {"question": "q_lab1_no_scale", "students": [name], "score": 0})
    return 1.0


def _waiting_line(plan):
    """``make service-status``'s line saying the LMS does not answer, in the course's language (lms.status_down), its
    placeholders as named groups; None while it says no such line."""
    template = WORDS.template(settings_of(plan.course_dir()).language, "lms.status_down")
    said = re.compile("".join(re.escape(literal) + (f"(?P<{name}>.*?)" if name else "")
                              for literal, name, _, _ in string.Formatter().parse(template)))
    done = as_instructor(plan, "make", "service-status")
    return next((found for found in map(said.fullmatch, done.stdout.splitlines()) if found), None)


def _newest_stamp(plan, name, assignment) -> str:
    """The timestamp of ``name``'s newest submission of ``assignment``, from nbgrader's cache in their home."""
    cache = pathlib.Path(pwd.getpwnam(name).pw_dir) / ".local/share/jupyter/nbgrader_cache" / plan.course_id
    return max(folder.name.split("+")[2] for folder in cache.glob(f"{name}+{assignment}+*"))


def _cell_score(plan, assignment, name, question) -> float:
    engine = create_engine(resolve_gradebook(plan.course_dir()))
    try:
        with Session(engine) as db:
            return regrade_book.cell_score(db, assignment, name, question)
    finally:
        engine.dispose()


def test_does_a_regrade_decision_reach_the_lms_gradebook(lms_hub):
    """#56: a student asks for a regrade of a test cell through their own server (as their Lab's dialog does); the
    instructor's marking page lists it and decides it with a new score: the LMS's gradebook shows the new score."""
    plan, lms = lms_hub
    before = wait_for(lambda: lms_shows(lms, "FullyGraded"), SCORES_WAIT, "the walk's scores")
    assignment, name = WALK["student2"][0], student_of(lms, "student2")
    teacher = {"Authorization": f"token {user_token(plan, plan.instructor)}"}
    board = f"{plan.url}user/{plan.instructor}/marking/api/board"
    then = _cell_score(plan, assignment, name, "test1_scores")
    with regrades_open(plan):
        assert requests.get(board, params={"assignment": assignment}, headers=teacher, timeout=60).status_code == 200
        filed = requests.post(f"{plan.url}user/{name}/attention-feedback/regrade", timeout=60,
                              headers={"Authorization": f"token {user_token(plan, name)}"},
                              json={"path": f"{assignment}/feedback/{_newest_stamp(plan, name, assignment)}/"
                                            f"{assignment}.html", "question": "test1_scores",
                                    "reason": "My scores are scaled by 1/sqrt(head_dim); please look again."})
        assert filed.status_code == 200, filed.text[:500]
        listed = requests.get(board, params={"assignment": assignment}, headers=teacher, timeout=60).json()
        (request,) = [r for r in listed["requests"] if r["student"] == name and r["state"] == "open"]
        decided = requests.post(f"{plan.url}user/{plan.instructor}/marking/api/regrade/decide", timeout=60,
                                params={"assignment": assignment}, headers=teacher,
                                json={"ids": [request["id"]], "comment": "Looked again: full marks.", "score": 4})
        assert decided.status_code == 200 and decided.json()["decided"] == [request["id"]], decided.text[:500]
    gained = 4.0 - then
    assert gained > 0
    after = wait_for(lambda: (lms_shows(lms, "FullyGraded") or {}).get("student2", (None,))[0] ==
                     before["student2"][0] + gained and lms_shows(lms, "FullyGraded"), SCORES_WAIT,
                     "the regraded score in the LMS")
    assert after["student1"] == before["student1"]


# ---------- the attacks: launches, the log-in form, the token broker, the key ----------

def _initiate(session, plan, lms, login) -> dict:
    """The login initiation as the LMS starts it; the tool's authentication request (its nonce and state)."""
    answer = session.get(f"{plan.url}hub/lti13/oauth_login", allow_redirects=False, timeout=30, params={
        "iss": lms.url(""), "login_hint": login, "target_link_uri": f"{plan.url}hub/", "lti_message_hint": "link-ch04",
        "client_id": "attention-hub", "lti_deployment_id": "deployment-1"})
    assert answer.status_code == 302, answer.text[:300]
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["Location"]).query))


def _post(session, plan, id_token, state, cookies=None):
    return session.post(f"{plan.url}hub/lti13/oauth_callback", data={"id_token": id_token, "state": state},
                        cookies=cookies, allow_redirects=False, timeout=30)


def told(plan):
    """What the hub tells the course: its LMS contexts and the launches it kept (the instructor's hub token)."""
    return HubBroker(f"{plan.url}hub/api", user_token(plan, plan.instructor)).launches()


@pytest.fixture(scope="module")
def linked(lms_hub):
    """The hub, linked to the test LMS's course: by the walk's instructor launch, or (run alone) by one here."""
    plan, lms = lms_hub
    if not told(plan).contexts:
        session = requests.Session()
        asked = _initiate(session, plan, lms, "teacher")
        claims = lms.claims(lms.person("teacher"), asked["nonce"])
        assert _post(session, plan, lms.id_token(claims), asked["state"]).status_code == 302
    return lms_hub


def _attack(plan, lms, attack):
    session = requests.Session()
    asked = _initiate(session, plan, lms, attack.login)
    claims = launch_claims(attack, lms.claims(lms.person(attack.login), asked["nonce"]))
    made = {"forged": lambda: lms.id_token(claims, key_pem=TestLMS("http://127.0.0.1:9/").private_pem),
            "expired": lambda: lms.id_token(claims, expires_in=-120),
            "audience": lambda: lms.id_token(claims, aud="another-tool", azp="another-tool"),
            "deployment": lambda: lms.id_token(
                {**claims, "https://purl.imsglobal.org/spec/lti/claim/deployment_id": "deployment-2"}),
            }.get(attack.token, lambda: lms.id_token(claims))()
    if attack.token == "replayed":
        captured = dict(session.cookies)
        first = _post(session, plan, made, asked["state"])
        assert first.status_code == 302, first.text[:300]
        return _post(requests.Session(), plan, made, asked["state"], cookies=captured)
    return _post(session, plan, made, asked["state"])


@pytest.mark.parametrize("attack", LAUNCH_ATTACKS, ids=[a.name for a in LAUNCH_ATTACKS])
def test_is_the_attack_on_the_launch_refused(linked, attack):
    plan, lms = linked
    before = lms.gradebook()
    answer = _attack(plan, lms, attack)
    assert answer.status_code == attack.status and refused_as(attack, answer.text), (answer.status_code,
                                                                                     answer.text[:600])
    assert "/static/css/style.min.css" in answer.text  # styled as the hub's own pages
    assert "jupyterhub-session-id" not in answer.headers.get("Set-Cookie", "") or answer.status_code == 302
    assert not re.search(r"<(img|script)", answer.text) and lms.gradebook() == before
    after = told(plan)  # nothing of another course reaches the course's LMS sync
    assert after.contexts == (CONTEXT,) and {x.context_id for x in after.launches} == {CONTEXT}


def test_is_the_refused_launch_page_accessible(linked, hub_browser):
    """The page another LMS course's instructor is shown (the refusal a person most often meets): no WCAG 2.1 A/AA
    violation (support/axe_audit.py)?"""
    plan, lms = linked
    attack = next(a for a in LAUNCH_ATTACKS if a.name == "other_course_instructor")
    answer = _attack(plan, lms, attack)
    assert answer.status_code == attack.status
    page = hub_browser.new_context(viewport=lab_page.VIEWPORT).new_page()
    try:
        page.goto(f"{plan.url}hub/login")  # the hub's origin: the page's stylesheet loads as a browser would load it
        page.set_content(answer.text, wait_until="load")
        assert page.evaluate("() => document.styleSheets.length") >= 1
        assert_accessible(page, "hub-refused-launch")
    finally:
        page.context.close()


def test_does_the_login_form_take_the_local_admin_only(lms_hub):
    """``/hub/login`` with a form carrying a learner's ``sub`` (upstream's authenticate would take it as a name)
    and with a learner's hub name: refused; the instructor account's password: in."""
    plan, lms = lms_hub
    for form in ({"sub": lms.person("student1").sub, "username": "x", "password": "x"},
                 {"username": student_of(lms, "student1"), "password": ""},
                 {"username": plan.instructor, "password": plan.passwords[plan.instructor]}):
        session = requests.Session()
        session.get(f"{plan.url}hub/login", timeout=30)
        answer = session.post(f"{plan.url}hub/login", data={**form, "_xsrf": session.cookies.get("_xsrf")},
                              allow_redirects=False, timeout=30)
        admin = form.get("username") == plan.instructor
        assert answer.status_code == (302 if admin else 403), (form, answer.status_code)


def test_can_a_learner_neither_get_the_lms_tokens_nor_read_the_tool_key(lms_hub):
    plan, lms = lms_hub
    name = student_of(lms, "student1")
    answer = requests.post(f"{plan.url}hub/{TOKEN_PATH}", json={"scopes": ["x"]}, timeout=30,
                           headers={"Authorization": f"token {user_token(plan, name)}"})
    assert answer.status_code == 403, answer.text[:300]
    key = lti.key_file(plan)
    mode = key.stat()
    assert stat.S_IMODE(mode.st_mode) == 0o600 and mode.st_uid == os.geteuid()  # the hub's own user only
    for who in (name, plan.instructor):
        done = subprocess.run(["cat", str(key)], user=who, capture_output=True, text=True)
        assert done.returncode != 0 and "Permission denied" in done.stderr, who
    answer = requests.post(f"{plan.url}hub/{TOKEN_PATH}", json={"scopes": ["x"]}, timeout=30,
                           headers={"Authorization": f"token {user_token(plan, plan.instructor)}"})
    assert answer.status_code == 200 and json.loads(answer.text)["access_token"]  # the course's own: a token


def test_can_a_learners_own_launch_change_a_score(lms_hub):
    """A genuine launch of a learner carrying claims of their choosing (a score in its custom parameters, an AGS
    claim naming other line items): they are logged in, and nothing of anyone's score moves."""
    plan, lms = lms_hub
    before, state = lms.gradebook(), json.loads((plan.course_dir() / "lms" / "state.json").read_text())
    session = requests.Session()
    asked = _initiate(session, plan, lms, "student1")
    claims = lms.claims(lms.person("student1"), asked["nonce"], **{
        "https://purl.imsglobal.org/spec/lti/claim/custom": {"assignment": "ch04_attention", "score": "20"},
        "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {"lineitems": lms.url("/lineitems?evil=1"),
                                                                  "lineitem": lms.url("/lineitems/9")}})
    assert _post(session, plan, lms.id_token(claims), asked["state"]).status_code == 302
    time.sleep(6)  # three rounds of the LMS sync
    assert lms.gradebook() == before
    assert json.loads((plan.course_dir() / "lms" / "state.json").read_text())["contexts"] == state["contexts"]
    assert state["contexts"][CONTEXT]["lineitems"] == lms.url("/lineitems")

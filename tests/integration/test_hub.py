"""Does the whole course loop work on the hub, in a real browser: one walk of an instructor and two students?

One hub (autograde/hub) with an instructor and two students, each their own Unix user. In
Chromium: the instructor opens the formgrader inside JupyterLab (blank under JupyterHub >= 4.1
unless the frame policy allows it, nbgrader#1870), generates and releases the chapter; each
student fetches it from the Assignment List, has code typed in (through their own server's
contents API: one correct, one with the classic missing-scale bug), validates and submits there;
the instructor collects in the formgrader, grades (``make grade`` in a hub terminal), generates and releases
feedback in the formgrader; each student fetches feedback and opens it, seeing their own score
and the diagnosis. The Assignment List speaks Chinese (nbgrader's English replaced by the course's Lab extension);
the correct student leaves one written question unanswered, which Validate names as a reminder below its success,
not as a failed cell; the feedback page shows the test cells' docstrings in Chinese. Screenshots and the hub's log
land in ``artefacts/hub/``.

Then, on the class the loop graded, the instructor's other documented commands (docs/deploy-hub.md), typed
as written into a JupyterLab terminal of their own server (the terminals API and its websocket, their own
token): the commands found on PATH, ``nbgrader autograde`` for one student (the mistake table's points
again), ``make report`` (the class report in ``~/course/reports/``); then the marking page from the 批改 menu: Enter
saves no score nobody suggested, and the switcher reaches the English edition once it is generated.

Then the grading service, which started paused so that the loop above grades by hand, is resumed by the instructor
(their own command, as their Unix user). The second student, still logged in, types a softmax without the max
subtraction (a row of the mistake table) and presses Submit: their Lab's notification must say their score, with the
page already fetched; its button opens it (the failed hidden checks, the diagnosis naming ``student_softmax``, the
written answers pending). The instructor marks and releases again: the same notification says the new score and the
open tab shows it. The student then resubmits with that page open and the Assignment List in front: the new
feedback replaces the page in its tab, with no click, and the list's new row offers "(view feedback)". One due date
(long past, with an extension for this student, a late policy): the list shows both dates in the student's time zone;
a late submission's feedback first waits (hold_after_due), then comes with the penalised grade, on the notification,
the page and in nbgrader export alike;
and JupyterHub runs the service as a managed one, which it starts again when it ends. Every other policy, a killed
service, a second assignment and the English edition: tests/integration/test_service.py, test_any_assignment.py,
tests/unit/test_service_scheduler.py and test_labextension.py.
"""
import csv
import os
import pathlib
import pwd
import re
import shutil
import sys

import pytest

from coursekit.cell_names import assignment_title, names_in
from coursekit.language import WORDS
from coursekit.paths import COURSE
from coursekit.service import student_status
from coursekit.settings import course_config
from coursekit.settings import course_settings as settings_of
from hub import launch
from support.course_tools import ASSIGNMENT, POINTS, gradebook_scores, released
from support.editions import ASSIGNMENTS as EDITION_ASSIGNMENTS
from support.editions import cell_source, release
from support.hub_page import (
    LONG,
    SHORT,
    TOAST,
    accept,
    assignment_list_button,
    audit_feedback_page,
    audit_log_in_page,
    feedback_stamps,
    fresh_lab,
    lab_says,
    list_label,
    log_in,
    notification,
    notification_text,
    open_feedback,
    open_notebook,
    open_from_nbgrader_menu,
    open_from_notification,
    shot,
    type_code,
    type_unsaved,
)
from support.hub_terminal import COURSE_FOLDER, Terminal, make_grade, nbgrader_autograde
from support.hub_tools import (
    ARTEFACTS,
    CLASS,
    arrived,
    as_user,
    course_settings,
    grading_policy,
    instructor_make,
    instructor_nbgrader,
    loop_by_cli,
    mark_written_answers,
    newest_submission,
    regrades_open,
    start_over,
    student_submits,
)
from support.axe_audit import assert_accessible
from support.lab_page import extension_words, validation_words
from support.marking_page import current, settle
from support.mistakes import BY_NAME, submission
from support.service_tools import wait_for

PENDING = WORDS.say("zh", "feedback.pending")  # 待批改, as the Chinese feedback page says it
# The hub benchmarks time the walk's own steps: here they take them (their smoke in make test, #59 item 10), so a
# change to a page that breaks a bench breaks this walk.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_hub  # noqa: E402
import bench_notify  # noqa: E402

IMPLEMENTATIONS = {kind: BY_NAME[mistake].code for kind, mistake in CLASS.items()}
# What TEST 4 prints for a student whose attention scores deviate (attnkit.diagnose via the master).
DIAGNOSIS = "最先偏离参考实现的是 student_attention_scores"
# The first test cell's one-line docstring as the Chinese edition releases it (its English in the master's metadata)
DOCSTRING = cell_source(release("zh"), "test1").splitlines()[0].strip('"')
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


@pytest.fixture(scope="module")
def sessions(hub_browser):
    """``sessions(plan, user)``: the user's browser session, logged in once for the whole walk; each page's last
    state is kept as a screenshot."""
    opened = {}

    def open_session(plan, user):
        if user not in opened:
            opened[user] = log_in(hub_browser, plan, user)
        return opened[user]

    yield open_session
    for user, page in opened.items():
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

UNANSWERED = {"correct": "q_think4_split"}  # a written question left as released: Validate reminds, does not fail


def fetch_solve_validate(page, plan, student, kind):
    """Fetch, have the code typed in, press Validate (not waiting: the other student's runs alongside)."""
    open_from_nbgrader_menu(page, "Assignment List")
    assignment_list_button(page, "released", "Fetch").click()
    assignment_list_button(page, "fetched", "Submit").wait_for()
    type_code(plan, student, IMPLEMENTATIONS[kind], unanswered=[UNANSWERED[kind]] if kind in UNANSWERED else ())
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
    else:  # its one unanswered question is a reminder below the success, not a failed cell (#47, item 12)
        reminder = dialog.locator(".attention-feedback-reminder").inner_text()
        # as the student's Validate names it, with the chapter's plug-in (思考题 4)
        question = names_in(release("zh"), ASSIGNMENT, course_config(COURSE), "zh")[UNANSWERED[kind]]
        assert reminder.startswith(WORDS.say("zh", "validate.unanswered", n=1)) and question in reminder, reminder
    message = dialog.locator("#validation-message")
    verdict = message.get_attribute("class")
    accept(dialog)
    assignment_list_button(page, "fetched", "Submit").click()
    page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).first.wait_for()
    if kind == "correct":
        assignment_list_in_chinese(page, "student_assignment_list")
    return verdict


def assignment_list_in_chinese(page, name):
    """The Assignment List a student of the Chinese edition reads: nbgrader's words in Chinese, none of its English
    left (#47, item 13); a screenshot."""
    panel = page.locator("#nbgrader-assignment-list")
    chinese = extension_words("zh", "assignmentList")
    panel.get_by_text(chinese["released"]).wait_for()
    shot(page, name)
    shown = panel.inner_text()
    assert [chinese[key] for key in ("released", "downloaded", "submitted") if chinese[key] not in shown] == []
    assert [english for english in extension_words("en", "assignmentList").values() if english in shown] == [], shown


def fetch_and_open_feedback(page, plan, student, kind):
    fresh_lab(page)  # not page.reload(): Lab would restore the tabs open before, in front
    open_from_nbgrader_menu(page, "Assignment List")
    assignment_list_button(page, "submitted", "Fetch Feedback").click()
    page.locator("#submitted_assignments_list", has_text=list_label("(view feedback)")).wait_for()
    shot(page, f"student_{kind.replace(' ', '_')}_feedback_fetched")
    (stamp,) = feedback_stamps(plan, student)
    return open_feedback(page, stamp, f"student_{kind.replace(' ', '_')}_feedback")


def instructor_tools(page) -> set:
    """Which of nbgrader's instructor tools the user's Lab shows: its Create Assignment side panel, the Formgrader item
    of its Nbgrader menu (#59 item 9: students saw them)."""
    found = {"create assignment"} if page.evaluate(
        "() => document.getElementById('nbgrader-create_assignemnt') !== null") else set()  # nbgrader's id, misspelt
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    if page.locator(".lm-Menu-itemLabel").get_by_text("Formgrader", exact=True).count():
        found.add("formgrader")
    page.keyboard.press("Escape")
    return found


# ---------- the loop ----------

def test_does_the_course_loop_work_for_an_instructor_and_two_students(hub, sessions, hub_browser):
    """Release, fetch, validate, submit, collect, grade, feedback: each student sees their own score and diagnosis?"""
    audit_log_in_page(hub_browser, hub)
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
    assert instructor_tools(teacher) == {"create assignment", "formgrader"}
    assert {student: instructor_tools(page) for student, page in pages.items()} == dict.fromkeys(hub.students, set())
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
        # each test cell's docstring in the edition's language, in the notebook and so on the page (#47, item 13)
        assert "Check that" not in text and DOCSTRING in text
        if kind == "correct":
            assert float(shown.group(1)) == sum(POINTS.values()) and DIAGNOSIS not in text
        else:
            assert float(shown.group(1)) < sum(POINTS.values()) and DIAGNOSIS in text
            audit_feedback_page(pages[student], hub, student, feedback_stamps(hub, student)[0])


def test_does_bench_hub_time_a_log_in_and_validate_on_the_walks_hub(hub, hub_browser):
    """benchmarks/bench_hub.py's own steps, at the smallest size, on the class the loop left: a log-in in a new browser
    (the server running), Validate pressed twice on the correct student's submission (both a success), the memory of
    their server; the figures are only sane, not measured."""
    correct = next(s for s, kind in zip(hub.students, IMPLEMENTATIONS) if kind == "correct")
    seconds, page = bench_hub.log_in_seconds(hub_browser, hub, correct)
    try:
        first, again = bench_hub.validate_seconds(page, correct)
    finally:
        page.context.close()
    assert 0 < seconds and 0 < first and 0 < again
    assert bench_hub.memory_of(correct)["server"][0] > 0  # its server's resident MB, read from /proc


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



def _unsuggested_group(page) -> dict:
    """The first answered, unmarked group the rubric suggests nothing for (the walk's answers name no rubric point)."""
    for _ in range(40):
        group = current(page)
        if group and not group["marked"] and group["kind"] != "unanswered" and group["suggestion"] is None:
            return group
        page.keyboard.press("j")
    raise AssertionError(f"no answered group without a suggestion on the marking page: {current(page)}")


def blank_is_done(page, question: str) -> None:
    """#59 item 5: on the page, ``question``, which the correct student left as released (nbgrader scored it 0, the
    feedback showed it so): their blank answer counts as done, not as work left; the focus starts on the other's."""
    for _ in range(len(POINTS) + 8):
        if page.evaluate("() => window.__marking.question") == question:
            break
        before = page.evaluate("() => window.__marking.question")
        page.keyboard.press("]")
        page.wait_for_function("(q) => window.__marking.ready && window.__marking.question !== q", arg=before)
    done, total = page.evaluate("(q) => window.__marking.counts()[q]", question)
    assert (done, total) == (1, 2) and current(page)["kind"] != "unanswered", (done, total, current(page))
    shot(page, "instructor_marking_blank_done")


def test_does_the_marking_page_reach_both_editions_and_enter_save_only_a_suggestion(graded, sessions):
    """#47 items 2 and 6, in the instructor's browser: 批改 › 按题批改书面回答 opens the marking page; on an answer no
    rubric point matches, Enter saves nothing and the page says so; the switcher lists both editions (the English one
    once generated) with their counts, and its English link opens that edition's board."""
    english = EDITION_ASSIGNMENTS["en"]
    done = instructor_nbgrader(graded, "generate_assignment", english)
    assert done.returncode == 0, done.stderr[-2000:]
    teacher = sessions(graded, graded.instructor)
    fresh_lab(teacher)
    teacher.locator(".lm-MenuBar-itemLabel", has_text=WORDS.say("zh", "marking.menu")).click()
    with teacher.context.expect_page() as opened:
        teacher.locator(".lm-Menu-itemLabel").get_by_text(WORDS.say("zh", "marking.menu_item"), exact=True).click()
    page = opened.value
    page.wait_for_function("() => window.__marking && window.__marking.ready", timeout=LONG)
    _unsuggested_group(page)
    page.keyboard.press("Enter")
    settle(page)
    assert not current(page)["marked"] and "Enter 不会替你打分" in page.locator("#notices").inner_text()
    shot(page, "instructor_marking_no_suggestion")
    blank_is_done(page, UNANSWERED["correct"])
    links = page.locator("#assignments a")
    titles = {a: assignment_title(COURSE, a, "zh", course_config(COURSE)) for a in (ASSIGNMENT, english)}
    assert {text.rsplit(" · 已批改", 1)[0] for text in links.all_inner_texts()} == set(titles.values())  # not ids
    links.filter(has_text=titles[english]).click()
    page.wait_for_function("(a) => window.__marking.ready && location.search.includes(a)", arg=english)
    assert page.locator("#assignments a.current").inner_text().startswith(f"{titles[english]} · 已批改")
    shot(page, "instructor_marking_english")
    page.close()

# ---------- the grading service: feedback on Submit, with nobody else acting ----------

BUG = BY_NAME["bug_softmax_no_max"]
BUG_DIAGNOSIS = "最先偏离参考实现的是 student_softmax"
FEEDBACK_WAIT = 180_000  # ms: grading plus feedback on busy cores; idle it is a few seconds
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
    done_by_hand = graded.exists() and graded.read_text().strip() == arrived(plan, name, stamp)  # left, nothing said
    assert WORDS.say(settings_of(course).language, "service.resumed") in _service_command(plan, "resume")
    if stamp is None or done_by_hand:
        return pid
    wait_for(lambda: getattr(_status(plan, name, stamp), "state", None) in (student_status.RELEASED,
                                                                            student_status.WAITING),
             FEEDBACK_WAIT / 1000, f"the service's last word on {name}'s submission of {stamp}")
    return pid


@pytest.fixture(scope="module")
def student(course_hub_plan, service, sessions):
    """(name, page): the last student, logged in (since the loop above, when it ran), their Lab open from here on."""
    name = course_hub_plan.students[-1]
    page = sessions(course_hub_plan, name)
    fresh_lab(page)  # whatever the loop left open in front
    return name, page


def _submissions(page) -> int:
    return page.locator("#submitted_assignments_list .list_item", has_text=ASSIGNMENT).count()


def _submit_in_lab(plan, name, page, saved_first=False) -> str:
    """Submit in the Assignment List, as the student does, with benchmarks/bench_notify.py's probe on the page and its
    own click (the button by its role); ``saved_first``: the notebook had unsaved edits, which the student is told were
    saved first. The submission's timestamp."""
    open_from_nbgrader_menu(page, "Assignment List")
    assignment_list_button(page, "fetched", "Submit").wait_for()
    before = _submissions(page)
    page.evaluate(bench_notify.PROBE_JS)
    bench_notify.submit(page)
    if saved_first:
        notification(page, SAVED_FIRST.format("提交"))
    page.wait_for_function(
        "n => document.querySelectorAll('#submitted_assignments_list .list_item').length > n", arg=before)
    notification(page, RECEIVED, FEEDBACK_WAIT)  # this submission's notice: an earlier "ready" becomes "grading…"
    return newest_submission(plan, name)[0]


def _ready(toast) -> tuple:
    """(score, max score, pending answers) of a "feedback ready" notification."""
    shown = re.fullmatch(READY, notification_text(toast))
    assert shown, notification_text(toast)
    return float(shown.group(1)), float(shown.group(2)), int(shown.group(4) or 0)


def _cell_source(implementations, role: str) -> str:
    """The source of the solution cell ``role`` (student_softmax …) with the mistake table's ``implementations``."""
    return next(c.source for c in submission(release("zh"), *implementations).cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == role)


SAVED_FIRST = r"^ch04_attention\.ipynb 里有没保存的修改：已先保存，再{}。$"  # the Lab extension's texts.ts


def _validate_in_list(page):
    """The Assignment List's Validate pressed (the list's, which validates the file on disk), the notebook's unsaved
    edits saved first and the student told so: its dialog."""
    open_from_nbgrader_menu(page, "Assignment List")
    page.locator("#fetched_assignments_list .assignment-notebooks-link").click()
    assignment_list_button(page, "fetched", "Validate").click()
    notification(page, SAVED_FIRST.format("验证"))
    dialog = page.locator(".jp-Dialog").filter(has=page.locator("#validation-message"))
    dialog.wait_for(timeout=LONG)
    return dialog


LAST_EDIT = "# 提交前最后改的一行（没有保存）"


def test_does_a_student_get_feedback_after_submit_with_nobody_else_acting(course_hub_plan, student):
    """Submit, then only wait: the notification says the score (the page already fetched); its button opens it.
    Typed in the notebook and never saved (#59 items 1 and 2): a softmax without the max subtraction is what the
    Assignment List's Validate checks (saved first, said so), and Validate fails its test cell with the diagnosis's
    warning instead of "全部通过"; a last line typed, not saved, is in what Submit hands in."""
    plan, (name, page) = course_hub_plan, student
    type_code(plan, name, IMPLEMENTATIONS["correct"], over=released(plan.course_dir()))  # saved: the correct code
    open_notebook(page, plan, name)
    type_unsaved(page, "def student_softmax", _cell_source(BUG.code, "student_softmax"))
    dialog = _validate_in_list(page)
    shown = dialog.inner_text()
    shot(page, "service_validate_unsaved")
    assert "validation-failed" in dialog.locator("#validation-message").get_attribute("class"), shown
    assert "TEST 3 · 任务 4：实现 student_softmax" in shown and "注意：自动诊断发现 student_softmax" in shown, shown
    # the Lab, loaded after the Chinese edition was fetched, speaks JupyterLab's own words in Chinese (lab_locale)
    assert accept(dialog) == lab_says(WORDS.say("zh", "locale.jupyterlab"), "Ok")
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=f"{ASSIGNMENT}.ipynb").click()
    type_unsaved(page, "def student_softmax", _cell_source(BUG.code, "student_softmax") + "\n" + LAST_EDIT)
    stamp = _submit_in_lab(plan, name, page, saved_first=True)
    cache = pathlib.Path(plan.homes[name]) / ".local/share/jupyter/nbgrader_cache" / plan.course_id
    assert LAST_EDIT in (cache / f"{name}+{ASSIGNMENT}+{stamp}" / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    shot(page, "service_submitted")
    toast = notification(page, READY, FEEDBACK_WAIT)
    shot(page, "service_notified")
    assert_accessible(page, "lab-notification", ours=TOAST, within=TOAST)
    said = notification_text(toast)  # read now: Lab closes a notification once its button is pressed
    score, max_score, pending = _ready(toast)
    assert score == pytest.approx(sum(BUG.points)) and pending > 0
    assert (pathlib.Path(plan.homes[name]) / ASSIGNMENT / "feedback" / stamp / f"{ASSIGNMENT}.html").exists()
    text = open_from_notification(toast, page, "service_feedback")
    assert re.search(rf"目前得分 {score:g} / {max_score:g} 分；其中 {pending} 道书面题", text), text[:2000]
    assert re.search(r"\[FAIL\] 隐藏检查 \d+:", text), "no failed hidden check on the page"
    assert BUG_DIAGNOSIS in text
    assert f"思考题 1：{PENDING}" in text  # answered, not yet marked: pending, not 0
    # bench_notify's smoke, on this very submission: its probe saw the click and the toast, its figures are sane
    row = bench_notify.measured(plan, name, bench_notify.wait_notified(page))
    assert row["text"] == said and 0 <= row["released"] <= row["notified"], row
    steps = bench_notify.service_steps(plan, [name])
    assert "grade" in steps and bench_notify.report("smoke", [row], steps)[0] == "smoke: 1 students"


def test_is_feedback_already_seen_not_shown_again_at_the_next_log_in(course_hub_plan, student, hub_browser):
    """#59 item 8: the student, told of their feedback, logs in again from another browser (a new one, nothing
    remembered in it): Lab asks their server what is new and shows no notification, the last one included."""
    plan, (name, page) = course_hub_plan, student
    assert _status(plan, name, newest_submission(plan, name)[0]).state == student_status.RELEASED  # told above
    again = log_in(hub_browser, plan, name)
    try:
        again.wait_for_function("() => performance.getEntriesByType('resource')"
                                ".some(entry => entry.name.includes('attention-feedback/status'))")
        again.wait_for_timeout(3000)  # what the Lab does with the answer: a notification would be up by now
        shot(again, "service_log_in_again")
        assert again.locator(TOAST).count() == 0, again.locator(TOAST).all_inner_texts()
    finally:
        again.context.close()


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


def _feedback_tabs(page):
    """The tabs of Lab's main area named as the chapter's feedback page."""
    return page.locator(".lm-DockPanel-tabBar .lm-TabBar-tabLabel", has_text=re.compile(rf"^{ASSIGNMENT}\.html$"))


def test_does_a_resubmissions_feedback_replace_the_open_tab_and_reach_the_assignment_list(course_hub_plan, student):
    """The student resubmits (the correct code now) with the last feedback open in a tab and the Assignment List in
    front. When the new feedback arrives, with no click, the open tab shows the new score, still one tab of that
    name, and the list's new row offers "(view feedback)"; the notification's button then reuses that tab (#47,
    items 10 and 11: the tab kept 9.25 / 20 after the notification said 12 / 20, and a second tab opened)."""
    plan, (name, page) = course_hub_plan, student
    if _feedback_tabs(page).count() == 0:  # alone, without the tests above: the last feedback opened from the list
        open_from_nbgrader_menu(page, "Assignment List")
        open_feedback(page, newest_submission(plan, name)[0], "service_resubmit_before")
    type_code(plan, name, IMPLEMENTATIONS["correct"], over=released(plan.course_dir()))
    stamp = _submit_in_lab(plan, name, page)
    toast = notification(page, READY, FEEDBACK_WAIT)
    score, max_score, _ = _ready(toast)
    row = page.locator("#submitted_assignments_list .nested_list_item", has_text=stamp)
    row.get_by_text(list_label("(view feedback)")).wait_for()  # listed again by itself: no Fetch Feedback pressed
    shot(page, "service_resubmitted_list")
    assert _feedback_tabs(page).count() == 1
    viewer = page.frame_locator(".jp-HTMLViewer iframe").last.locator("body")
    viewer.get_by_text(f"目前得分 {score:g} / {max_score:g} 分").first.wait_for(state="attached")
    text = open_from_notification(toast, page, "service_resubmitted_feedback",
                                  shows=f"目前得分 {score:g} / {max_score:g} 分")
    assert _feedback_tabs(page).count() == 1 and page.locator(".jp-HTMLViewer").count() == 1, text[:500]


PAST_DUE, EXTENDED = "2000-01-01T00:00:00+00:00", "2000-01-02T00:00:00+00:00"  # due long ago; the extension too


def _browser_date(page, iso: str) -> str:
    """``iso`` as the student's browser writes it for the Chinese edition (their time zone: labextension texts.ts)."""
    return page.evaluate("iso => new Intl.DateTimeFormat('zh-CN', {year: 'numeric', month: 'short', day: 'numeric', "
                         "hour: '2-digit', minute: '2-digit', timeZoneName: 'short'}).format(new Date(iso))", iso)


def _exported_score(plan, name) -> float:
    """The student's score as the instructor's `nbgrader export` writes it."""
    out = plan.course_dir() / "grades-late.csv"
    done = instructor_nbgrader(plan, "export", "--to", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [r for r in csv.DictReader(out.open(encoding="utf-8")) if r["student_id"] == name and r["assignment"] ==
            ASSIGNMENT]
    return float(rows[0]["score"])


def test_does_a_late_student_see_their_due_date_and_extension_and_the_penalised_grade(course_hub_plan, student):
    """The instructor sets a due date long past and gives this student an extension (``make due``, ``make extend`` in
    the course folder) under a policy of 50 % off per day late: the Assignment List shows both dates in the student's
    words and time zone. Their next submission is late: with hold_after_due the notice says the feedback waits; put
    back, the feedback comes by itself, the notification and the page showing the penalised grade (its dates in the
    student's time zone), the same number as nbgrader export. Then the dates are taken away again. (Every policy and
    row of the table: tests/integration/test_late_table.py; the other service policies: test_service.py.)"""
    plan, (name, page) = course_hub_plan, student
    late = {"penalty_method": "percent", "percent_per_day": 50.0, "max_percent": 50.0}
    try:
        instructor_make(plan, "due", DUE=PAST_DUE)
        instructor_make(plan, "extend", STUDENT=name, UNTIL=EXTENDED, REASON="hub walk")
        open_from_nbgrader_menu(page, "Assignment List")
        due_line = page.locator("#fetched_assignments_list .attention-due").first
        said = f"截止 {_browser_date(page, PAST_DUE)}；你的延期：到 {_browser_date(page, EXTENDED)}"
        page.wait_for_function("said => [...document.querySelectorAll('#fetched_assignments_list .attention-due')]"
                               ".some(e => e.textContent === said)", arg=said, timeout=FEEDBACK_WAIT)
        shot(page, "service_due_dates")
        assert due_line.inner_text() == said
        with course_settings(plan, "LatePolicy", **late):
            with grading_policy(plan, hold_after_due=True):
                stamp = student_submits(plan, name)
                notification(page, r"^已过截止时间：这次提交不再自动反馈，由老师批改后发布$", FEEDBACK_WAIT)
                shot(page, "service_notice_deadline")
            toast = notification(page, READY, FEEDBACK_WAIT)
            assert _status(plan, name, stamp).state == student_status.RELEASED
            score, max_score, _ = _ready(toast)
            raw = gradebook_scores(plan.course_dir(), name)["total"]
            assert raw > 0 and score == pytest.approx(raw / 2, abs=0.01)  # 50 % a day late, at most 50 % (2 decimals)
            text = open_from_notification(toast, page, "service_feedback_late", shows=f"目前得分 {score:g} / {max_score:g} 分")
            assert f"迟交扣分：-{round(raw - raw / 2, 2):g} 分" in text, text[:2000]
            dates = page.frame_locator(".jp-HTMLViewer iframe").last.locator(".course-dates").inner_text()
            assert _browser_date(page, EXTENDED) in dates and "(UTC+" not in dates, dates  # the student's zone
            assert _exported_score(plan, name) == pytest.approx(score, abs=0.01)
    finally:
        instructor_make(plan, "extend", STUDENT=name, UNTIL="none")
        instructor_make(plan, "due", DUE="none")


def test_does_jupyterhub_run_the_service_as_a_managed_one_it_restarts(course_hub_plan):
    """The hub starts the service itself (a managed service: a command JupyterHub runs, and starts again when it
    ends, at its next look), as the instructor; a service killed mid-job loses nothing: test_service.py."""
    plan = course_hub_plan
    service = launch.api(plan, "services/grading-service")
    assert "coursekit.service" in service["command"] and "run" in service["command"], service
    pid = _service_pid(plan.course_dir())
    assert pid and service["pid"] == pid and os.stat(f"/proc/{pid}").st_uid == _instructor_uid(plan)


# ---------- a regrade request: filed from the feedback page, decided on the marking page, the open page follows ------

REGRADED = "q_think2_mask_order"  # a written answer the first student left pending, another student's marked


def _marking_page(plan, teacher, question):
    page = teacher.context.new_page()
    page.goto(f"{plan.url}user/{plan.instructor}/marking/?assignment={ASSIGNMENT}&question={question}")
    page.wait_for_function("() => window.__marking && window.__marking.ready", timeout=LONG)
    return page


def test_does_a_regrade_request_reach_the_ta_and_its_decision_the_students_open_feedback(graded, sessions):
    """#56: with requests open, the first student opens their feedback and presses 申请复查 in its toolbar: a reason
    with HTML is refused in the dialog and nothing is filed; a plain one is filed. The TA's marking page lists it
    first; q opens its answer, whose suggestion (the same answer marked before) Enter saves, then d records the
    decision. The student's open feedback tab shows the new score by itself, the notification too."""
    plan = graded
    name, teacher = plan.students[0], sessions(graded, graded.instructor)
    with regrades_open(plan):
        ready = _marking_page(plan, teacher, REGRADED)  # publishes the deadline in the exchange
        ready.close()
        page = sessions(plan, name)
        fresh_lab(page)
        open_from_nbgrader_menu(page, "Assignment List")
        stamp = feedback_stamps(plan, name)[-1]
        before = open_feedback(page, stamp, "regrade_feedback_before")
        shown = re.search(r"目前得分 ([\d.]+) / ([\d.]+) 分", before)
        page.locator(".attention-regrade-button:visible").last.click()  # in the viewer's toolbar
        dialog = page.locator("dialog.attention-regrade")
        dialog.locator("select.attention-regrade-question").select_option(REGRADED)
        dialog.locator("textarea.attention-regrade-reason").fill("<b>看这里</b>")
        dialog.locator("button.attention-regrade-send").click()
        refusal = dialog.locator(".attention-regrade-said")
        refusal.get_by_text("不能含 HTML 标记", exact=False).wait_for(timeout=SHORT)
        dialog.locator("textarea.attention-regrade-reason").fill("第二段我写了清零后重新归一化和先加掩码一样，请再看一下。")
        dialog.locator("button.attention-regrade-send").click()
        notification(page, r"^已提交「思考题 2」的复查申请", SHORT)
        shot(page, "regrade_filed")

        marking = _marking_page(plan, teacher, "q_lab1_no_scale")
        listed = marking.evaluate("() => window.__marking.requests()")
        assert [(r["student"], r["question"], r["state"]) for r in listed if r["state"] == "open"] == \
            [(name, REGRADED, "open")]  # the HTML one was never filed
        assert "第二段我写了清零后" in marking.locator("#requests").inner_text()
        marking.keyboard.press("q")
        marking.wait_for_function("(q) => window.__marking.question === q", arg=REGRADED, timeout=LONG)
        group = current(marking)
        assert name in group["students"] and group["requests"] and group["suggestion"]["source"] == "same", group
        marking.keyboard.press("Enter")  # the mark of the same answer, marked before: a suggestion Enter may save
        settle(marking)
        marking.keyboard.press("q")  # Enter moved on: back to the request's answer, now marked
        marking.wait_for_function("(s) => window.__marking.current().students.includes(s)", arg=name)
        assert current(marking)["state"]["score"] == 1.0
        marking.keyboard.press("d")
        marking.keyboard.type("确实写到了第二个要点。")
        marking.keyboard.press("Enter")
        marking.wait_for_function("() => window.__marking.decisions === 1", timeout=LONG)
        shot(marking, "regrade_decided")
        (decided,) = [r for r in marking.evaluate("() => window.__marking.requests()") if r["student"] == name]
        assert decided["state"] == "changed" and decided["score_after"] == 1.0, decided
        marking.close()
    total = gradebook_scores(plan.course_dir(), name)["total"]
    assert shown and total > float(shown.group(1))
    toast = notification(page, rf"^反馈已就绪：{total:g} / {shown.group(2)} 分", FEEDBACK_WAIT)
    viewer = page.frame_locator(".jp-HTMLViewer iframe").last.locator("body")
    viewer.get_by_text(f"目前得分 {total:g} / {shown.group(2)} 分").first.wait_for(timeout=LONG)  # no click
    shot(page, "regrade_feedback_after")
    assert notification_text(toast)

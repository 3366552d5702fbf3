"""Does an instructor mark a class of 300 by question, keyboard only, with every judgement in nbgrader's gradebook?

One JupyterLab (with the marking page turned on as ``make lab`` does, and nbgrader's formgrader)
and one Chromium for the module; the class is :mod:`support.written_answers` (300 students,
8 written questions: correct, partial, blank, copied and reformatted answers).
"""
import json
import os
import pathlib
import re
import subprocess
import sys
from html import escape as html_escape

import pytest
from nbgrader.api import (Comment, Gradebook, Grade, GradeCell, SolutionCell, Student, SubmittedAssignment,
                          SubmittedNotebook)

from coursekit.language import OPEN, PSEUDO, WORDS
from coursekit.marking import enable
from coursekit.marking.comment import parse
from coursekit.marking.rubric import UNIT, load_rubrics, score_of
from support.axe_audit import assert_accessible
from support.lab_page import VIEWPORT, chromium_browser
from support.lab_server import lab_server
from support.marking_page import current, mark_all, open_marking, settle
from support.payloads import ALL, violations
from support.pseudo import STRAY_IN_PAGE
from support.written_answers import ASSIGNMENT, STUB, questions, write_written_class

# benchmarks/bench_marking_page.py times this page's steps: here it takes them on the walk's class of 300 (its smoke
# in make test, #59 item 10), so a change to the page that breaks the bench breaks this module
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_marking_page  # noqa: E402

pytestmark = pytest.mark.timeout(300)


# what the marking page shows as it is: the students' answers and ids, the question and the reference answer, the
# rubric's points, the questions' names (from the notebooks), the link to each language (named in its own); the
# keyboard help, messages with keys inside, is walked as the server sends it (tests/unit/test_pseudo_locale.py)
BOARD_READ = re.compile(r"/marking/api/board\?")  # the page reading a question's groups and suggestions
MARKING_DATA = ".text, .prompt, .reference, .reason, .ids, #questions, .tick, .rubric > li, #languages, #help"


@pytest.fixture(scope="module")
def marked(tmp_path_factory):
    """The running server, the browser, the class, and the presses of marking it all (done once)."""
    base = tmp_path_factory.mktemp("marking")
    course = base / "notebooks" / "course"  # inside the server's root, where the formgrader wants it
    written = write_written_class(course, 300)
    (base / "config").mkdir()
    (base / "config" / "nbgrader_config.py").write_text(  # as the hub writes an instructor's settings
        f"c = get_config()\nload_subconfig({str(course / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n")
    enable.write(base / "config", base / "lab-settings", "/")
    with lab_server(base) as server, chromium_browser(base / "chromium", "the marking page test") as browser:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        open_marking(page, server)
        presses = mark_all(page, {q: written.truth[q] for q in questions()})
        yield {"server": server, "browser": browser, "page": page, "class": written, "presses": presses,
               "course": course}
        context.close()


def _gradebook_marks(written, question):
    """{student: (manual score, manual comment)} of one question, read back with nbgrader.api's tables."""
    with Gradebook(written.url) as gradebook:
        db = gradebook.db
        scores = dict(db.query(Student.id, Grade.manual_score)
                      .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
                      .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                      .join(Student, SubmittedAssignment.student_id == Student.id)
                      .join(GradeCell, Grade.cell_id == GradeCell.id).filter(GradeCell.name == question))
        comments = dict(db.query(Student.id, Comment.manual_comment)
                        .join(SubmittedNotebook, Comment.notebook_id == SubmittedNotebook.id)
                        .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                        .join(Student, SubmittedAssignment.student_id == Student.id)
                        .join(SolutionCell, Comment.cell_id == SolutionCell.id).filter(SolutionCell.name == question))
    return {s: (scores[s], comments[s]) for s in written.students}


def test_does_grouping_keep_the_judgements_under_40_percent_of_2400(marked):
    """Every answer marked by keys only, in fewer than 960 judgements; blank and copied answers are the saving, and
    some of the judgements are suggestions the TA's own earlier marks made, confirmed with Enter?"""
    presses, written = marked["presses"], marked["class"]
    answers = len(written.students) * len(questions())
    print(f"\nmarking {answers} answers: {presses.judgements} judgements ({presses.judgements / answers:.1%}), "
          f"{presses.keys} key presses ({presses.keys / answers:.2f} per answer), {presses.splits} splits, "
          f"{presses.entered} suggestions confirmed with Enter; "
          f"per question: {presses.by_question}")
    assert presses.judgements < 0.4 * answers
    assert presses.entered > 0  # marks the TA's earlier marks suggested, confirmed with Enter (their share: bench_marking)
    own = sum(k in ("correct", "partial") for q in questions() for k in written.kinds[q].values())
    assert presses.judgements <= own + len(questions())  # blank answers: one judgement a question; copies: none


def test_are_the_scores_and_comments_in_the_gradebook_as_the_instructor_meant(marked):
    """Each student's manual score is the rubric score of what they covered, with ✓/✗ points in the comment?"""
    written = marked["class"]
    rubrics = load_rubrics(written.course, ASSIGNMENT).by_question
    for question in questions():
        rubric, texts = rubrics[question], [p.text for p in rubrics[question].points]
        for student, (score, comment) in _gradebook_marks(written, question).items():
            truth = written.truth[question][student]
            if written.answers[question][student] == STUB:  # left as released: nbgrader's own 0 stands, nothing to mark
                assert (score, comment) == (None, None), (question, student)
                continue
            assert score == score_of(rubric, truth, 1.0), (question, student, written.answers[question][student])
            judgement = parse(comment, texts)
            if written.answers[question][student].strip() == STUB:
                assert judgement.unanswered and comment.startswith(WORDS.say("zh", "feedback.comment_unanswered"))
            else:
                assert judgement.ticks == truth, (question, student, comment)


def test_does_the_page_show_progress_and_the_marking_guide(marked):
    """All 2,400 answers counted as marked; the guide shows the master's reference answer and the rubric? In the
    pseudo-locale (a TA's ?lang=), every word the page and its scripts draw comes from the catalogue?"""
    page = marked["page"]
    open_marking(page, marked["server"], "question=q_think2_mask_order")
    mine, of_mine = page.evaluate("() => window.__marking.counts()")["q_think2_mask_order"]
    assert page.locator("#status").inner_text() == WORDS.say("zh", "marking.status", marked=mine, total=of_mine,
                                                             left=0, all_marked=2400, all_total=2400, all_left=0)
    guide = page.locator("#guide").inner_text()
    assert "softmax 是按行归一化的" in guide  # the master's reference answer
    assert "只清零、不重新归一化：每行的和小于 1" in guide  # a rubric point and its share
    assert WORDS.say("zh", "marking.share", points="0.3") in guide
    first = page.locator(".group").first
    assert first.get_attribute("data-kind") == "unanswered"
    assert WORDS.say("zh", "marking.score_of", score="0", max="1") in first.inner_text()
    assert page.locator(".group mark.term").count() > 0  # the rubric's key terms are highlighted
    assert_accessible(page, "marking-page")
    open_marking(page, marked["server"], f"question=q_think2_mask_order&lang={PSEUDO}")
    page.wait_for_function("() => window.__markingDates && window.__markingDates.ready")
    assert page.evaluate(STRAY_IN_PAGE, MARKING_DATA) == []
    assert page.locator("#status").inner_text().startswith(OPEN)
    english = page.locator("#languages a[hreflang='en']").get_attribute("href")
    assert "question=q_think2_mask_order" in english and "lang=en" in english  # the same question, in English


def test_does_the_formgrader_show_the_same_scores(marked):
    """nbgrader's formgrader lists every submission as graded, and its grading form shows the page's scores?"""
    server, browser, written = marked["server"], marked["browser"], marked["class"]
    rubrics = load_rubrics(written.course, ASSIGNMENT).by_question
    expected = {s: {q: score_of(rubrics[q], written.truth[q][s], 1.0) for q in questions()} for s in written.students}
    listed = server.api(f"formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}")
    assert len(listed) == 300 and not any(n["needs_manual_grade"] for n in listed)
    for notebook in listed:  # the 12 autograded points + the written ones
        assert abs(notebook["score"] - 12.0 - sum(expected[notebook["student"]].values())) < 1e-6
    context = browser.new_context(viewport=VIEWPORT)  # the formgrader's own requests carry no token: a header does
    context.set_extra_http_headers({"Authorization": f"token {server.token}"})
    form = context.new_page()
    for notebook in listed[:2]:
        form.goto(f"{server.url}formgrader/submissions/{notebook['id']}/?token={server.token}")
        answers = {q: written.answers[q][notebook["student"]] for q in questions()}
        marked = next(q for q in questions() if answers[q] != STUB)  # the form is drawn once its box shows a mark
        form.wait_for_function("(q) => document.getElementById(q) && document.getElementById(q).value !== ''",
                               arg=marked, timeout=30_000)
        for question in questions():
            shown = form.locator(f"input.score#{question}").input_value()
            if answers[question] == STUB:  # left as released: nbgrader's own 0, no manual score over it
                assert shown == "", (notebook["student"], question, shown)
            else:
                assert float(shown) == expected[notebook["student"]][question]
    context.close()


def test_does_the_feedback_show_the_comments(marked):
    """nbgrader generate_feedback puts the comment and the ticked/missed points beside the answer, in Chinese?"""
    course, written = marked["course"], marked["class"]
    student = next(s for s in written.students if written.kinds["q_lab1_no_scale"][s] == "partial")
    env = dict(os.environ, PATH=os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ["PATH"]]))
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT, "--student", student],
                   cwd=course, env=env, check=True, capture_output=True, timeout=120)
    html = (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
    assert WORDS.say("zh", "feedback.comment_points").strip("*") in html and "✓" in html and "✗" in html
    first_point = load_rubrics(written.course, ASSIGNMENT).by_question["q_lab1_no_scale"].points[0].text
    assert html_escape(first_point) in html or first_point in html  # a rubric point's text, ticked or missed


def test_do_two_markers_at_once_lose_no_write(marked):
    """Two browser contexts judge the same question at once: every write lands, an overwrite is reported?"""
    browser, server, written = marked["browser"], marked["server"], marked["class"]
    question = "q_think4_split"
    pages = [browser.new_context(viewport=VIEWPORT).new_page() for _ in range(2)]
    for page in pages:
        open_marking(page, server, f"question={question}")
    one, two = pages
    for page in pages:  # both start on group 2 and clear it, then tick point 1
        page.keyboard.press("j")
    held, holding = [], [True]  # two's next read of its suggestions after its saves, held: its next mark is made
    two.route(BOARD_READ, lambda route: held.append(route) if holding[0] else route.continue_())  # while it reads
    for key in ("u", "1"):
        one.keyboard.press(key)
        two.keyboard.press(key)
    shared = current(one)["students"]
    for _ in range(3):  # then each judges groups the other does not touch
        one.keyboard.press("j")
        two.keyboard.press("k")
    mine, theirs = current(one)["students"], current(two)["students"]
    one.keyboard.press("f")
    for _ in range(500):
        if held:
            break
        two.wait_for_timeout(20)
    assert held, "page two never read its suggestions again after its saves"
    two.keyboard.press("0")
    holding[0] = False
    for route in held:
        route.continue_()
    for page in pages:
        settle(page)
    two.unroute(BOARD_READ)
    marks = _gradebook_marks(written, question)
    first = load_rubrics(written.course, ASSIGNMENT).by_question[question].points[0].share / UNIT
    assert all(marks[s][0] == first for s in shared)  # both wrote point 1: the same, nothing lost
    assert all(marks[s][0] == 1.0 for s in mine)
    assert all(marks[s][0] == 0.0 for s in theirs), "two's 0, pressed while it read its suggestions, was not saved"
    one.reload()
    one.wait_for_function("() => window.__marking && window.__marking.ready")
    one.keyboard.press("j"), one.keyboard.press("k")
    for page in pages:
        page.context.close()


def test_does_a_reload_in_the_middle_lose_nothing(marked):
    """Keys pressed just before a reload are saved, and the reloaded page shows them?"""
    page, server, written = marked["page"], marked["server"], marked["class"]
    question = "q_lab3_matmul_speed"
    open_marking(page, server, f"question={question}")
    page.keyboard.press("j")
    students = current(page)["students"]
    points = len(load_rubrics(written.course, ASSIGNMENT).by_question[question].points)
    for key in ("u", *(str(i) for i in range(1, points + 1)), "c"):  # every point ticked: full marks
        page.keyboard.press(key)
    page.keyboard.type("重新加载之前写的评语")
    page.keyboard.press("Enter")
    page.reload()  # without waiting for the saves
    page.wait_for_function("() => window.__marking && window.__marking.ready")
    page.wait_for_timeout(500)
    marks = _gradebook_marks(written, question)
    assert all(marks[s][0] == 1.0 and "重新加载之前写的评语" in (marks[s][1] or "") for s in students), \
        ({s: marks[s] for s in students}, marked["server"].log()[-3000:])
    page.reload()
    page.wait_for_function("() => window.__marking && window.__marking.ready")
    state = page.evaluate("(s) => window.__marking.current && true", students[0])
    assert state


def test_is_the_page_reachable_from_the_lab_menu(marked):
    """JupyterLab's menu bar has 批改, whose item opens the marking page in a new tab?"""
    server, browser = marked["server"], marked["browser"]
    context = browser.new_context(viewport=VIEWPORT)
    lab = context.new_page()
    lab.goto(f"{server.url}lab?token={server.token}")
    lab.locator(".lm-MenuBar-itemLabel", has_text="批改").first.click(timeout=60_000)
    with context.expect_page() as opened:
        lab.locator(".lm-Menu-itemLabel", has_text="按题批改书面回答").click()
    marking = opened.value
    marking.wait_for_function("() => window.__marking && window.__marking.ready", timeout=30_000)
    assert marking.url.split("?")[0].endswith("/marking/") and "token=" not in marking.url
    before = current(marking)["state"]
    for key in ("x", "u"):  # saved with the Lab's login cookie and the page's _xsrf cookie, no token
        marking.keyboard.press(key)
    settle(marking)
    assert marking.evaluate("() => [window.__marking.saves, window.__marking.errors]") == [2, 0]
    if before["score"] is not None:  # put the first group's judgement back as it was
        marking.keyboard.press("x" if before["unanswered"] else "f")
        settle(marking)
    context.close()


def test_does_bench_marking_page_time_the_walks_page(marked):
    """benchmarks/bench_marking_page.py's own steps, at its smoke's sizes, on the marked class in a tab of its own: the
    server's warm-up read from its log, two opens, every question in turn, two moves; each figure a time, its lines
    printed?"""
    context = marked["browser"].new_context(viewport=VIEWPORT)
    try:
        measured = bench_marking_page.measure(marked["server"], context.new_page(), opens=2, moves=2)
    finally:
        context.close()
    assert measured["warm"] >= 0 and measured["groups"] > 0
    assert [len(measured[k]) for k in ("opens", "switches", "moves")] == [2, len(questions()) - 1, 2]
    assert all(ms > 0 for k in ("opens", "switches", "moves") for ms in measured[k]), measured
    lines = bench_marking_page.report(len(marked["class"].students), 0.0, 0.0, measured)
    print("\n" + "\n".join(lines))
    assert lines[0].startswith("class: 300 students") and len(lines) == 6


def test_does_the_page_add_up_the_rubric_as_python_does(marked):
    """For every rubric and every combination of ticks, the page's score equals coursekit's (the source of truth)?"""
    page, written = marked["page"], marked["class"]
    for question, rubric in load_rubrics(written.course, ASSIGNMENT).by_question.items():
        combos = [[bool(mask >> i & 1) for i in range(len(rubric.points))] for mask in range(2 ** len(rubric.points))]
        for max_score in (1.0, 3.0):
            shown = page.evaluate("([r, combos, m]) => combos.map(t => window.__marking.scoreOf(r, t, m))",
                                  [rubric.to_dict(), combos, max_score])
            assert shown == [score_of(rubric, t, max_score) for t in combos], question


# What a page shows of a student, as [tag, {attribute: value}] (MathML included); the page's own marks on it (rubric
# terms; the wrapper that keeps MathJax off a student's HTML) left out.
_STUDENTS_ELEMENTS_JS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((e) => !e.matches('mark.term')
    && !(e.matches('div.tex2jax_ignore') && e.parentElement.matches('.text_cell_render, .output_subarea')))
  .map((e) => [e.localName, Object.fromEntries([...e.attributes].map((a) => [a.name, a.value]))])"""
_FOREIGN_LINKS_JS = """() => [...document.querySelectorAll('a[href], area[href]')].map((a) => a.href)
  .filter((h) => new URL(h, location.href).origin !== location.origin)"""


def _shown(page, selector: str) -> list:
    return violations([(tag, tuple(sorted(attrs.items()))) for tag, attrs in page.evaluate(_STUDENTS_ELEMENTS_JS,
                                                                                           selector)])


def _rewritten(path: pathlib.Path, question: str) -> None:
    """The student submits again: ``question``'s answer is the whole payload table, and their first code cell displays
    it as HTML, Markdown and LaTeX, with a script."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == question:
            cell["source"] = ALL
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code["outputs"] = [{"output_type": "display_data", "metadata": {}, "data": {kind: ALL, "text/plain": kind}}
                       for kind in ("text/html", "text/markdown", "text/latex")]
    code["outputs"].append({"output_type": "display_data", "metadata": {},
                            "data": {"application/javascript": "alert('js')", "text/plain": "js"}})
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def test_is_a_rewritten_hostile_answer_refused_its_old_mark_and_shown_inert(marked):
    """A student rewrites an answer with the payload table after the marking page loaded it: the mark pressed for
    the old text is refused, the new text shown; in the marking page and in nbgrader's formgrader no dialog opens,
    no element or attribute is outside the allow-list and no link leads elsewhere?"""
    server, browser, written, course = marked["server"], marked["browser"], marked["class"], marked["course"]
    question = "q_think3_max_trick"
    student = next(s for s in written.students if written.kinds[question][s] == "correct")
    path = course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    original, before = path.read_bytes(), _gradebook_marks(written, question)[student]
    context = browser.new_context(viewport=VIEWPORT)
    context.set_extra_http_headers({"Authorization": f"token {server.token}"})  # the formgrader's own requests
    dialogs = []
    context.on("page", lambda page: page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss())))
    try:
        page = context.new_page()
        open_marking(page, server, f"question={question}")
        for _ in range(len(written.students)):
            if student in current(page)["students"]:
                break
            page.keyboard.press("j")
        _rewritten(path, question)
        page.keyboard.press("f")  # full marks, for the text on the screen
        settle(page)
        page.locator(".variant .text", has_text="参考答案：这份回答满分").first.wait_for(timeout=30_000)
        changed = WORDS.template("zh", "marking.answer_changed").split("{students}")
        assert changed[0] + student in page.locator(".notice.error").last.inner_text()
        assert _gradebook_marks(written, question)[student] == before  # the mark for the old text: not saved
        assert _shown(page, ".variant .text *, #guide .prompt *, #guide .reference *") == []
        assert page.evaluate(_FOREIGN_LINKS_JS) == []
        listed = server.api(f"formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}")
        submission = next(n["id"] for n in listed if n["student"] == student)
        form = context.new_page()
        form.goto(f"{server.url}formgrader/submissions/{submission}/?token={server.token}")
        form.wait_for_function("(q) => document.getElementById(q) && document.getElementById(q).value !== ''",
                               arg=question, timeout=30_000)
        assert form.locator(".text_cell_render", has_text="参考答案：这份回答满分").count() == 1
        assert form.locator(".output_html", has_text="参考答案：这份回答满分").count() == 1
        assert _shown(form, ".text_cell_render *, .output_subarea *") == []
        assert form.evaluate(_FOREIGN_LINKS_JS) == []
        form.wait_for_timeout(300)  # an image's error handler, a refresh or a frame would have fired by now
        assert dialogs == []
    finally:
        path.write_bytes(original)
        context.close()


def test_does_the_due_date_panel_grant_an_extension_and_refuse_one_before_the_due_date(marked):
    """The panel 截止时间与延期 (the page's own dates.js): the due date in the course's zone; an extension ending before
    it refused with the reason, nothing written; a good one recorded by the page's user, listed at once."""
    import datetime

    from coursekit.due import extensions_of, set_due_date

    written, server = marked["class"], marked["server"]
    with Gradebook(written.url) as gradebook:
        set_due_date(gradebook, ASSIGNMENT, datetime.datetime(2027, 1, 15, 15, 59))
        student = sorted(s.id for s in gradebook.students)[0]
    context = marked["browser"].new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        open_marking(page, server, f"assignment={ASSIGNMENT}")
        page.wait_for_function("() => window.__markingDates && window.__markingDates.ready")
        page.locator("#dates summary").click()
        assert page.locator("#dates .due").inner_text() == WORDS.say("zh", "marking.dates.due",
                                                                     due="2027-01-15 23:59 (UTC+08:00)")
        form = page.locator("#dates form")
        form.locator("select").select_option(student)
        form.locator("input[name=until]").fill("2027-01-10 12:00")
        form.locator("button").click()
        refused = WORDS.template("zh", "dates.refused_not_after").split("{due}")[-1]  # the refusal, in the page's words
        page.locator("#dates .said.error", has_text=refused).wait_for()
        with Gradebook(written.url) as gradebook:
            assert extensions_of(gradebook, ASSIGNMENT, history=True) == {}
        form.locator("input[name=until]").fill("2027-01-20 23:59")
        form.locator("input[name=reason]").fill("<b>ill</b>")  # shown as text, as typed
        form.locator("button").click()
        page.locator("#dates td", has_text="<b>ill</b>").wait_for()
        assert page.locator("#dates td", has_text="2027-01-20 23:59 (UTC+08:00)").count() == 1
        with Gradebook(written.url) as gradebook:
            granted = extensions_of(gradebook, ASSIGNMENT)[student]
        assert (granted.until, granted.reason) == (datetime.datetime(2027, 1, 20, 15, 59), "<b>ill</b>")
    finally:
        context.close()
        with Gradebook(written.url) as gradebook:
            set_due_date(gradebook, ASSIGNMENT, None)

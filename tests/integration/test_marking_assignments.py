"""Does the marking page keep its counts and its guide right from question to question, and mark any nbgrader
assignment's manually graded cells — nbgrader's own docs course ``ps1`` beside Chapter 4?

One course folder holds both: Chapter 4's written answers for 3 students (:mod:`support.written_answers`), its
English edition ``ch04_attention_en`` answered by 2 (the English reference answers, and wrong answers of
:mod:`support.wrong_answers`), and ``ps1`` from the installed nbgrader wheel (``nbgrader/docs/source/user_guide``:
the master and the real submissions of bitdiddle and hacker), generated and autograded by nbgrader's own CLI into
the same gradebook.
One JupyterLab with the marking page, one Chromium; keys only, as an instructor marks.
"""
import pathlib
import shutil

import nbgrader
import pytest
from nbgrader.api import Gradebook

from coursekit.marking import enable
from coursekit.marking.board import short_name
from coursekit.marking.rubric import load_rubrics
from coursekit.marking.store import marked_counts
from coursekit.cell_names import assignment_title, names_in_language
from coursekit.settings import course_config
from support.course_tools import run_nbgrader
from support.lab_page import VIEWPORT, chromium_browser
from support.lab_server import lab_server
from support.marking_page import current, open_marking, settle
from support.editions import CJK, master
from support.written_answers import ASSIGNMENT, STUB, add_edition_class, questions, write_written_class
from support.wrong_answers import WRONG

pytestmark = pytest.mark.timeout(300)

USER_GUIDE = pathlib.Path(nbgrader.__file__).parent / "docs" / "source" / "user_guide"
PS1, PS1_STUDENTS = "ps1", ("bitdiddle", "hacker")
# ps1's manually graded cells in master order: (grade_id, kind, points)
PS1_QUESTIONS = [("sum_of_squares_equation", "markdown", 1.0), ("sum_of_squares_application", "code", 2.0),
                 ("cell-938593c4a215c6cc", "task", 4.0), ("part-a", "markdown", 1.0), ("part-b", "markdown", 2.0)]
REMARK = "两个公式都写对了"
PS1_AUTO = {"bitdiddle": 1.5, "hacker": 3.0}  # nbgrader's own autograded results for them (the user guide's)


def _ps1(course: pathlib.Path) -> None:
    """ps1's master and its two real submissions, copied from the installed wheel into the test's course."""
    shutil.copytree(USER_GUIDE / "source" / PS1, course / "source" / PS1)
    for student in PS1_STUDENTS:
        shutil.copytree(USER_GUIDE / "submitted" / student / PS1, course / "submitted" / student / PS1)
    for step in (("generate_assignment", PS1, "--force"), ("autograde", PS1)):
        done = run_nbgrader(*step, cwd=course, timeout=300)
        assert done.returncode == 0 and "ERROR" not in done.stderr, f"nbgrader {step[0]} failed:\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = tmp_path_factory.mktemp("marking-assignments")
    course = base / "notebooks" / "course"
    written = write_written_class(course, 3)
    english = _english_class(course)
    # nbgrader's own settings only (no course plug-ins): ps1 is graded as nbgrader grades it, in the student's kernel.
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = 'marking-two'\nc.ClearSolutions.text_stub = {STUB!r}\n",
        encoding="utf-8")
    _ps1(course)
    (base / "config").mkdir()
    (base / "config" / "nbgrader_config.py").write_text(
        f"c = get_config()\nload_subconfig({str(course / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n")
    enable.write(base / "config", base / "lab-settings", "/")
    with lab_server(base) as server, chromium_browser(base / "chromium", "the marking page test") as browser:
        yield {"server": server, "browser": browser, "course": course, "class": written, "english": english}


def _english_class(course) -> str:
    """The English edition's assignment: one student wrote the reference answers, one the table's wrong answers."""
    right = {c.metadata["nbgrader"]["grade_id"]: c.source for c in master("en").cells
             if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")}
    wrong = {q: next(w.text for w in WRONG if w.question == q and w.lang == "en") for q in right}
    return add_edition_class(course, "en", {"en_right": right, "en_wrong": wrong})


@pytest.fixture
def page(site):
    context = site["browser"].new_context(viewport=VIEWPORT)
    yield context.new_page()
    context.close()


def _mark_question(page) -> None:
    """Every unmarked group of the question on screen judged: unanswered (x) or full marks (f), Enter to the next."""
    for _ in range(50):
        group = current(page)
        if group is None or group["remaining"] == 0:
            return
        if group["marked"]:
            page.keyboard.press("j")
            continue
        page.keyboard.press("x" if group["kind"] == "unanswered" else "f")
        page.keyboard.press("Enter")
    raise AssertionError(f"the question still has unmarked groups after 50 judgements: {current(page)}")


def _go_next(page, question: str) -> None:
    page.keyboard.press("]")
    page.wait_for_function("(q) => window.__marking.question === q", arg=question, timeout=30_000)


def _tab(page, question: str) -> str:
    return page.locator(f"#questions .q[data-question='{question}']").inner_text()


def _python_counts(site, assignment: str) -> dict:
    with Gradebook(f"sqlite:///{site['course'] / 'gradebook.db'}") as gradebook:
        return marked_counts(gradebook.engine, assignment)


def test_does_a_question_left_keep_its_count_and_the_whole_count_follow(site, page):
    """Marked all 3 answers of a question, then ]: its tab (the question's name, not its id) says 3/3 and 全部 counts
    them, without a reload?"""
    first, second = questions()[0], questions()[1]
    open_marking(page, site["server"], f"assignment={ASSIGNMENT}&question={first}")
    _mark_question(page)
    _go_next(page, second)
    settle(page)
    counts = _python_counts(site, ASSIGNMENT)
    assert counts[first] == (3, 3), f"expected all 3 answers of {first} marked in the gradebook, got {counts[first]}"
    short = short_name(names_in_language(site["course"], ASSIGNMENT, "zh", course_config(site["course"]))[first])
    assert _tab(page, first) == f"{short} 3/3", f"the tab of the question just left says {_tab(page, first)!r}"
    marked, total = (sum(counts[q][i] for q in questions()) for i in (0, 1))
    status = page.locator("#status").inner_text()
    assert f"全部 {marked} / {total}" in status, f"expected 全部 {marked} / {total} (the gradebook's), got {status!r}"
    shown = page.evaluate("() => window.__marking.counts()")
    assert shown == {q: list(counts[q]) for q in questions()}, "the page's counts differ from the gradebook's"


def test_does_the_all_marked_notice_leave_with_its_question(site, page):
    """"本题已全部批改" after the last answer of a question; after ] it is not shown over the next, unmarked one?"""
    first, second = questions()[2], questions()[3]
    open_marking(page, site["server"], f"assignment={ASSIGNMENT}&question={first}")
    _mark_question(page)
    page.keyboard.press("Enter")  # nothing left: the page says so
    done = page.locator("#notices .notice", has_text="本题已全部批改")
    assert done.count() >= 1, "expected the all-marked notice once every answer has a score"
    _go_next(page, second)
    assert current(page)["remaining"] > 0, f"{second} should still have unmarked answers"
    assert done.count() == 0, f"the notice of {first} still stands over {second}: {done.first.inner_text()!r}"
    settle(page)


def test_does_the_guide_show_a_question_posed_above_a_code_cell(site, page):
    """q_lab1_no_scale's prompt is a heading and text, then a code cell, then the answer: the guide shows all, its
    heading once, as the guide's title (#59 item 6: it was printed twice), its code wrapped within the guide?"""
    open_marking(page, site["server"], f"assignment={ASSIGNMENT}&question=q_lab1_no_scale")
    guide = page.locator("#guide .prompt")
    title = page.locator("#guide h2").first.inner_text()
    assert title.startswith("实验题 1：不缩放会怎样？") and guide.locator("h1, h2, h3, h4").count() == 0, title
    assert page.locator("#guide").inner_text().count("实验题 1：不缩放会怎样？") == 1
    code = guide.locator("pre").first
    assert code.evaluate("(e) => e.scrollWidth <= e.clientWidth"), "the prompt's code is clipped at the right edge"
    text = guide.inner_text()
    assert "softmax 得到的权重是不是接近 one-hot" in text and "default_rng(6)" in text, text
    assert "4.13 问题与思考题" not in text, "the section's introduction is not the question"


def test_are_ps1s_manually_graded_cells_marked_by_question(site, page):
    """ps1: a written answer, manually graded code and a task, in master order, each marked with keys into nbgrader's
    gradebook; the formgrader's totals are nbgrader's auto scores plus the marks?"""
    course = site["course"]
    open_marking(page, site["server"], f"assignment={PS1}")
    tabs = page.locator("#questions .q").evaluate_all("(tabs) => tabs.map(t => t.dataset.question)")
    assert tabs == [q for q, _, _ in PS1_QUESTIONS], f"expected ps1's 5 manually graded cells in order, got {tabs}"
    for n, (question, kind, points) in enumerate(PS1_QUESTIONS):
        if n:
            _go_next(page, question)
        answers = page.locator("#answers .group .text")
        if kind == "code":  # shown as code; bitdiddle's untouched release stub: left blank, done already (nbgrader's 0)
            assert "def hypotenuse" in answers.locator("pre code").all_inner_texts()[-1]
            assert page.evaluate("(q) => window.__marking.counts()[q]", question) == [1, 2]
            assert current(page)["kind"] != "unanswered" and "bitdiddle" not in current(page)["students"]
            assert "代码" in page.locator("#guide h2").first.inner_text()
        if kind == "task":  # the work written below the task, and the task itself as the question
            assert page.locator("#answers .group math").count() >= 1, "the task's answer (LaTeX) should show as maths"
            assert "State the formulae for an arithmetic and geometric sum" in page.locator("#guide .prompt").inner_text()
            page.keyboard.press("c")
            page.keyboard.type(REMARK)
            page.keyboard.press("Enter")
        _mark_question(page)
    settle(page)
    counts = _python_counts(site, PS1)
    assert {q: counts[q] for q, _, _ in PS1_QUESTIONS} == {q: (2, 2) for q, _, _ in PS1_QUESTIONS}, counts
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in PS1_STUDENTS:
            submission = gradebook.find_submission(PS1, student)
            expected = PS1_AUTO[student] + sum(points for q, kind, points in PS1_QUESTIONS
                                               if not (kind == "code" and student == "bitdiddle"))
            assert not submission.needs_manual_grade and submission.score == pytest.approx(expected), \
                (student, submission.score, expected)
            task = "cell-938593c4a215c6cc"
            assert gradebook.find_grade(task, "problem1", PS1, student).manual_score == 4.0
            comment = gradebook.find_comment(task, "problem1", PS1, student).comment
            assert REMARK in (comment or ""), f"the remark should be the task cell's comment, found {comment!r}"
    listed = site["server"].api(f"formgrader/api/submitted_notebooks/{PS1}/problem1")
    assert sorted(n["student"] for n in listed) == list(PS1_STUDENTS) and not any(n["needs_manual_grade"] for n in listed)


def test_does_the_english_edition_show_its_english_rubric(site, page):
    """ch04_attention_en in Chromium: the guide lists the points of rubrics/ch04_attention_en.toml in English and the
    English reference answer, none of the Chinese rubric; the right answer's key phrases are highlighted and its
    hint ticks every point, yet no mark is suggested before a TA marks one (hints are never marks); the wrong answer
    gets neither?"""
    english, question = site["english"], "q_lab2_neg_inf"
    open_marking(page, site["server"], f"assignment={english}&question={question}")
    guide = page.locator("#guide").inner_text()
    points = load_rubrics(site["course"], english).by_question[question].points
    assert all(p.text in guide for p in points), guide
    assert "As long as every row keeps at least one position unblocked" in guide
    chinese = load_rubrics(site["course"], ASSIGNMENT).by_question[question].points
    assert not [p.text for p in chinese if p.text in guide]
    assert not CJK.search(page.locator("#guide ol.rubric li").first.inner_text().split("（")[0])
    seen = {}
    for _ in range(current(page)["count"]):
        group = current(page)
        seen[tuple(group["students"])] = group
        page.keyboard.press("j")
    right, wrong = seen[("en_right",)], seen[("en_wrong",)]
    assert right["hint"]["ticks"] == [True] * len(points)  # every point's phrase found and shown ...
    assert right["suggestion"] is None  # ... but a hint is never offered as a mark: nothing is marked yet
    assert wrong["suggestion"] is None and not any((wrong["hint"] or {}).get("ticks", []))
    right = page.locator("#answers .group", has_text="As long as every row keeps at least one position unblocked")
    assert right.locator("mark.term").count() >= len(points), "the right answer's key phrases are highlighted"


def test_does_the_switcher_reach_every_assignment_and_enter_save_only_a_suggestion(site, page):
    """Opened with no assignment named: the switcher lists the chapter, its English edition and ps1, each with its
    counts; its English link opens that edition's board. There, on the wrong answer (no rubric point found: no
    suggestion), Enter saves nothing and says so?"""
    open_marking(page, site["server"])
    links = page.locator("#assignments a")
    titles = {a: assignment_title(site["course"], a, "zh", course_config(site["course"]))
              for a in (ASSIGNMENT, site["english"], PS1)}  # each by its notebook's title (ps1's has none: its id)
    listed = {link.rsplit(" · 已批改", 1)[0] for link in links.all_inner_texts()}
    assert listed == set(titles.values()) and ASSIGNMENT not in "".join(listed) and len(listed) == 3
    page.screenshot(path=str(site["course"].parent / "switcher.png"))
    links.filter(has_text=titles[site["english"]]).click()
    page.wait_for_function("(a) => window.__marking.ready && location.search.includes(a)", arg=site["english"])
    for _ in range(10):  # the group of the wrong answer (the blank groups and the right one come first or after)
        group = current(page)
        if group["students"] == ["en_wrong"] and group["suggestion"] is None:
            break
        page.keyboard.press("j")
    assert group["students"] == ["en_wrong"] and group["suggestion"] is None, group
    page.keyboard.press("Enter")
    settle(page)
    assert not current(page)["marked"] and "Enter 不会替你打分" in page.locator("#notices").inner_text()

"""Does the course's feedback page name each graded cell and show unmarked answers as pending?

coursekit/plugins/feedback_page.py, pending.py and release_feedback.py on a small synthetic notebook and
gradebook, exported the way ``generate_feedback`` exports (nbgrader's own GenerateFeedback config, no CLI);
and does the release tell the student's Lab what the page shows (coursekit/service/student_status.py)?
"""
import logging
import re

import pytest
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from nbgrader.api import Gradebook
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory

from attnkit.edition import CJK
from coursekit.plugins import CourseFeedbackExporter, GetGradesForFeedback, ReleaseFeedbackTellingPending
from coursekit.language import WORDS
from coursekit.plugins.feedback_page import page_score, page_tally
from coursekit.grades import class_pending
from coursekit.plugins.pending import RELEASE, Tally, total_line
from coursekit.service import student_status
from support.course_tools import visible_text
from support.synthetic_class import gradebook_of

A = "ch04_attention"
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")  # 1×1
QUESTIONS = {"q_think1": "思考题 1", "q_think2": "思考题 2", "q_think3": "思考题 3"}
IMAGE_ALT = WORDS.say("zh", "feedback.image_alt")
PENDING = WORDS.say("zh", "feedback.pending")  # 待批改


def _meta(cell, grade_id, grade, solution, points=0):
    cell.metadata["nbgrader"] = {"grade": grade, "solution": solution, "locked": not solution, "grade_id": grade_id,
                                 "points": points, "schema_version": 3}
    return cell


def _notebook(lang="zh"):
    """The synthetic chapter; in English (``lang="en"``) its headings and metadata are the English edition's."""
    english = lang == "en"
    test = _meta(new_code_cell("_score"), "test1_scores", True, False, 4)
    test.outputs = [new_output("execute_result", data={"text/plain": "4.0"}, execution_count=1)]
    task = "Task 4.2: implement `student_attention_scores`" if english else "任务 4.2：实现 `student_attention_scores`"
    cells = [new_markdown_cell(f"### {task}"),
             _meta(new_code_cell("def student_attention_scores(): ..."), "student_attention_scores", False, True),
             test]
    for n, (grade_id, heading) in enumerate(QUESTIONS.items(), 1):
        answer = _meta(new_markdown_cell("An answer" if english else "回答"), grade_id, True, True, 1)
        cells += [new_markdown_cell(f"### {f'Question {n}' if english else heading}\n\n{'?' if english else '题目'}"),
                  answer]
    return new_notebook(cells=cells, metadata={"edition": {"language": "en"}} if english else {})


@pytest.fixture
def gradebook(tmp_path):
    """s1: TEST 1 autograded 4/4; q_think1 marked 0.5; q_think2 answered, unmarked; q_think3 left as released."""
    url = gradebook_of(_notebook(), tmp_path / "gradebook.db", A)
    with Gradebook(url) as gb:
        gb.find_grade("test1_scores", A, A, "s1").auto_score = 4.0
        gb.find_grade("q_think1", A, A, "s1").manual_score = 0.5
        gb.find_grade("q_think3", A, A, "s1").auto_score = 0.0  # what nbgrader gives an untouched stub
        gb.find_comment("q_think3", A, A, "s1").auto_comment = "No response."
        gb.db.commit()
    return url


def _page(url, notebook=None, exporter_class=CourseFeedbackExporter, plugin="attnkit.course"):
    """The page generate_feedback would write for s1 (GenerateFeedback's own HTMLExporter settings), the assignment
    declared with the chapter's plug-in as the course config declares it (``plugin`` None: a plain assignment)."""
    config = GenerateFeedback(coursedir=CourseDirectory()).config
    if plugin:
        config.CourseKit.assignments = {A: {"plugin": plugin}}
    exporter = exporter_class(config=config)
    exporter.register_preprocessor(GetGradesForFeedback, enabled=True)
    resources = {"nbgrader": {"db_url": url, "assignment": A, "notebook": A, "student": "s1"}}
    return exporter.from_notebook_node(notebook or _notebook(), resources=resources)[0]


class NbconvertsPage(CourseFeedbackExporter):
    """The same page through nbconvert's own HTMLExporter.from_notebook_node (its BeautifulSoup pass)."""
    from_notebook_node = HTMLExporter.from_notebook_node


def test_is_the_page_nbconverts_own_but_for_the_chinese_image_description(gradebook):
    """Text and images as HTMLExporter's page; an image without a description gets the Chinese one, one with keeps its?"""
    nb = _notebook()
    figure = new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})
    nb.cells[2].outputs.append(figure)
    nb.cells.insert(0, new_markdown_cell('<img src="x.png" alt="作者的说明"> 和 <img src="y.png"/>'))
    ours, theirs = _page(gradebook, nb), _page(gradebook, nb, NbconvertsPage)
    assert visible_text(ours).split() == visible_text(theirs).split()  # BeautifulSoup re-spaces what it prints
    images = re.findall(r"<img\b[^>]*>", ours)
    assert len(images) == len(re.findall(r"<img\b[^>]*>", theirs)) == 3
    assert [re.search(r'alt="([^"]*)"', tag).group(1) for tag in images] == ["作者的说明", IMAGE_ALT, IMAGE_ALT]
    assert re.findall(r'src="([^"]*)"', " ".join(images)) == re.findall(r'src="([^"]*)"', " ".join(
        re.findall(r"<img\b[^>]*>", theirs)))


def test_are_cells_named_and_unmarked_answers_pending_never_zero(gradebook, caplog):
    """TOC by the chapter's names; marked scores as scores; the answered, unmarked answer 待批改, never 0; the one
    left as released 0 with 未作答, not waiting for anybody?"""
    with caplog.at_level(logging.WARNING):
        page = _page(gradebook)
    text = visible_text(page)
    assert "TEST 1 · 任务 4.2：实现 student_attention_scores：4 / 4 分" in text
    assert "思考题 1：0.5 / 1 分" in text
    assert re.search(f"思考题 2：{PENDING} （1 分）", text) and not re.search("思考题 2：0", text)
    assert "思考题 3：0 / 1 分" in text and not re.search(f"思考题 3：{PENDING}", text)
    assert re.search(rf"目前得分 4\.5 / 7 分；其中 1 道书面题（1 分）还\s+{PENDING}", text)
    assert not [word for word in ("Test cell", "Written response", "Student's answer", "Score:") if word in text]
    assert "未作答：这里还是发下来时的样子。" in text  # nbgrader's "No response." comment, in the page's language
    assert page_tally(page) == Tally(1, 1.0)
    assert "ch04_attention：全班有 1 名学生共 1 道书面题待批改（1 分）" in caplog.text
    assert "s1：ch04_attention 还有 1 道书面题待批改（1 分）" in caplog.text


def test_is_the_english_editions_page_in_english_only(gradebook):
    """An English notebook's page: the same scores and pending answers, every word English ("awaiting marking",
    nbgrader's "No response." in English, the image description), the page marked lang="en", no Chinese at all?"""
    nb = _notebook("en")
    nb.cells[2].outputs.append(new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}))
    page = _page(gradebook, nb)
    text = visible_text(page)
    assert "TEST 1 · Task 4.2: implement student_attention_scores: 4 / 4 points" in text
    assert "Question 1: 0.5 / 1 points" in text
    assert re.search("Question 2: awaiting marking \\(1 point\\)", text) and not re.search("Question 2: 0", text)
    assert "Question 3: 0 / 1 points" in text
    assert re.search(r"Your score so far: 4\.5 / 7 points; 1 written answer \(1 point\) still\s+awaiting marking", text)
    assert "Not answered: this is still the text you were given." in text
    assert f'alt="{WORDS.say("en", "feedback.image_alt")}"' in page and 'lang="en"' in page
    assert not CJK.findall(text), CJK.findall(text)
    assert page_tally(page) == Tally(1, 1.0) and page_score(page) == (4.5, 7.0)  # what the Lab is told: the same


def test_is_a_plain_assignments_cell_named_by_its_heading_alone(gradebook):
    """Without the chapter's plug-in, the test cell is called by the heading above it, with no TEST number?"""
    text = visible_text(_page(gradebook, plugin=None))
    assert "任务 4.2：实现 student_attention_scores：4 / 4 分" in text and "TEST 1" not in text


def test_does_marking_the_answers_end_pending_everywhere(gradebook, caplog):
    """Once both are marked: scores on the page, nothing pending in page, gradebook or log?"""
    with Gradebook(gradebook) as gb:
        for grade_id in ("q_think2", "q_think3"):
            gb.find_grade(grade_id, A, A, "s1").manual_score = 1.0
        gb.db.commit()
        assert class_pending(gb, A) == {}
    with caplog.at_level(logging.INFO):  # nothing pending: news, not a warning
        page = _page(gradebook)
    assert PENDING not in visible_text(page).split("第")[0] and "思考题 3：1 / 1 分" in visible_text(page)
    assert page_tally(page) == Tally(0, 0.0)
    assert "ch04_attention：全班没有待批改的书面题。" in caplog.text and "s1：" not in caplog.text


def test_are_only_answered_answers_without_a_score_pending(gradebook):
    """class_pending: never the autograded test, the marked answer or the one left as released (nbgrader's 0)? Asked
    of some students, of them alone?"""
    with Gradebook(gradebook) as gb:
        assert [a.grade_id for a in class_pending(gb, A)["s1"]] == ["q_think2"]
        assert class_pending(gb, A, ["s1"]) == class_pending(gb, A) and class_pending(gb, A, ["s2"]) == {}


def test_does_the_total_line_count_students_and_points_and_skip_students_with_none():
    line, news = total_line(A, {"a": Tally(8, 8.0), "b": Tally(0, 0.0), "c": Tally(2, 1.5)}, "zh", scope=RELEASE)
    assert line.startswith("ch04_attention：本次发布的反馈里有 2 名学生共 10 道书面题待批改（9.5 分）") and news
    assert "nbgrader generate_feedback ch04_attention --force" in line
    english, _ = total_line(A, {"a": Tally(1, 0.5)}, "en", scope=RELEASE)  # an English course: a plural chosen
    assert "1 student has 1 written answer awaiting marking (0.5 points)" in english


def test_is_nothing_pending_good_news_in_the_courses_language(gradebook, tmp_path, caplog):
    """An English course's release with nothing pending says so in English, as information, not a warning (it
    warned 「本次发布的反馈里没有待批改的书面题。」)?"""
    (tmp_path / "nbgrader_config.py").write_text("")
    coursedir = CourseDirectory(root=str(tmp_path), assignment_id=A, db_url=gradebook)
    release = ReleaseFeedbackTellingPending(coursedir=coursedir)
    release.init_src()
    with caplog.at_level(logging.INFO):
        release._tell_pending("en")
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.INFO, "ch04_attention: no written answer in the feedback released now is awaiting marking.")]


def test_does_release_feedback_read_the_released_page_and_name_one_generated_before_the_marking(
        gradebook, tmp_path, caplog):
    """ReleaseFeedbackTellingPending: the page's pending answer per student and in total; marked since: named?"""
    page = _page(gradebook)
    folder = tmp_path / "feedback" / "s1" / A
    folder.mkdir(parents=True)
    (folder / f"{A}.html").write_text(page, encoding="utf-8")
    with Gradebook(gradebook) as gb:  # the instructor marks one answer after generating the page
        gb.find_grade("q_think2", A, A, "s1").manual_score = 1.0
        gb.db.commit()
    coursedir = CourseDirectory(root=str(tmp_path), assignment_id=A, db_url=gradebook)
    release = ReleaseFeedbackTellingPending(coursedir=coursedir)
    release.init_src()
    with caplog.at_level(logging.WARNING):
        release._tell_pending("zh")
    assert "s1：ch04_attention 还有 1 道书面题待批改（1 分）" in caplog.text
    assert "s1 的反馈是在批改之前生成的：页面上 1 道待批改，成绩册里只剩 0 道" in caplog.text
    assert f"nbgrader generate_feedback {A} --student s1 --force" in caplog.text
    assert "ch04_attention：本次发布的反馈里有 1 名学生共 1 道书面题待批改（1 分）" in caplog.text


def test_does_release_feedback_tell_the_student_what_the_released_page_shows(gradebook, tmp_path):
    """Released through nbgrader's own start(): the page lands in the exchange, and beside it the student's
    status says released, 4.5 / 7 with 1 answer pending, exactly the page's score line; named by the secret."""
    page = _page(gradebook)
    assert page_score(page) == (4.5, 7.0) and re.search(r"目前得分 <b>4\.5 / 7</b>", page)
    folder = tmp_path / "course" / "feedback" / "s1" / A
    folder.mkdir(parents=True)
    (folder / f"{A}.html").write_text(page, encoding="utf-8")
    (folder / "timestamp.txt").write_text("2026-12-01 10:00:01.000000 UTC")
    (folder / "submission_secret.txt").write_text("5e" * 64)
    coursedir = CourseDirectory(root=str(tmp_path / "course"), assignment_id=A, db_url=gradebook, course_id="c1")
    (tmp_path / "exchange").mkdir(mode=0o777)  # nbgrader's exchange root: everybody writes
    (tmp_path / "exchange").chmod(0o777)
    ReleaseFeedbackTellingPending(coursedir=coursedir, root=str(tmp_path / "exchange")).start()
    assert len(list((tmp_path / "exchange" / "c1" / "feedback").glob("*.html"))) == 1
    told = student_status.read(tmp_path / "exchange", "c1", "5e" * 64)
    assert (told.state, told.timestamp, told.graded, told.score, told.max_score, told.pending) == \
        (student_status.RELEASED, "2026-12-01 10:00:01.000000 UTC", True, 4.5, 7.0, 1)


def _practice_cell(grade_id: str, checks: list):
    """A practice exercise's test cell (0 points) as grading leaves it: the grader's record among its outputs."""
    from coursekit.record import MIME, Check, CellRecord
    cell = _meta(new_code_cell("_result"), grade_id, True, False, 0)
    found = CellRecord(grade_id, 1, 0.0, 0.0, "graded", "", tuple(Check(f"{grade_id}.{n}", False, "a check", ok)
                                                                 for n, ok in enumerate(checks)))
    cell.outputs = [new_output("display_data", data={MIME: found.to_dict()}),
                    new_output("execute_result", data={"text/plain": "0.0"}, execution_count=2)]
    cell.metadata["coursekit"] = {"grader": {"kernel_agreed": True}}
    return cell


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_a_practice_exercise_show_passed_not_passed_or_not_done_and_no_points(tmp_path, lang):
    """Three practice cells (0 points): their outcome in words, as their records say, never '0 / 0'; the total is the
    same as without them?"""
    nb = _notebook(lang)
    outcomes = {"ex_passed": [True, True], "ex_failed": [True, False], "ex_untried": []}
    for n, (grade_id, checks) in enumerate(outcomes.items(), 1):
        nb.cells += [new_markdown_cell(f"### {'Exercise' if lang == 'en' else '练习'} {n}"),
                     _practice_cell(grade_id, checks)]
    url = gradebook_of(nb, tmp_path / "gradebook.db", A)
    with Gradebook(url) as gb:
        gb.find_grade("test1_scores", A, A, "s1").auto_score = 4.0
        for grade_id in outcomes:
            gb.find_grade(grade_id, A, A, "s1").auto_score = 0.0
        gb.db.commit()
    text = visible_text(_page(url, nb))
    said = {"zh": ("练习 1：选做，不计分：通过", "练习 2：选做，不计分：未通过", "练习 3：选做，不计分：没有做"),
            "en": ("Exercise 1: practice, not graded: passed", "Exercise 2: practice, not graded: not passed",
                   "Exercise 3: practice, not graded: not done")}[lang]
    assert all(words in text for words in said), text[:2000]
    assert "0 / 0" not in text
    assert page_score(_page(url, nb))[1] == 7.0  # the practice cells add nothing to the maximum


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_is_the_page_titled_by_its_notebooks_title_not_its_id(gradebook, lang):
    """The page's heading and its <title>: the notebook's own title (its first top-level heading) with the page's
    word for feedback, never the assignment's id; a notebook without a title keeps its file's name?"""
    nb = _notebook(lang)
    title = "Chapter 4 · Attention" if lang == "en" else "第 4 章 · 注意力"
    nb.cells.insert(0, new_markdown_cell(f"# {title}\n\nintroduction"))
    page = _page(gradebook, nb)
    expected = WORDS.say(lang, "feedback.title", title=title)
    assert f"<h4>{expected}</h4>" in page and f"<title>{expected}</title>" in page
    assert f"<title>{A}</title>" not in page and f"{A} · " not in page
    untitled = _page(gradebook, _notebook(lang))
    assert f"<title>{WORDS.say(lang, 'feedback.title', title=A)}</title>" in untitled


def test_does_the_page_say_only_the_catalogues_words_in_the_pseudo_locale(gradebook):
    """A notebook of the pseudo-locale's edition: every word of the page around the notebook's own (scores, pending
    answers, the total, nbgrader's "No response.", the image description, the title) is a message of the catalogue?"""
    import json

    from coursekit.language import PSEUDO
    from support.pseudo import Known, stray_in_html

    nb = _notebook("en")
    nb.metadata["edition"] = {"language": PSEUDO}
    nb.cells[2].outputs.append(new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}))
    page = _page(gradebook, nb)
    assert WORDS.say(PSEUDO, "feedback.pending") in page
    # the notebook's own words, the student, the lab's TEST n (verify.c's label in every edition)
    shown = Known.of(json.dumps(nb, ensure_ascii=False), "s1", A, "TEST")
    stray = stray_in_html(page, (), shown)
    assert stray == [], stray

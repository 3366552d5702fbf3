"""Does one question's board join answers, saved judgements, groups, the rubric and hints correctly?"""
import shutil

import pytest
from nbgrader.api import Gradebook

from coursekit.marking.board import MISSING_TEXT, question_board
from coursekit.marking.course import MarkingCourse
from coursekit.marking.splits import add_split, read_splits
from coursekit.marking.store import write_judgement
from test_marking_store import _template
from coursekit.paths import COURSE, source_notebook
from coursekit.stubs import text_stub
from coursekit.settings import course_config
from support.editions import ASSIGNMENTS, master
from support.written_answers import ASSIGNMENT, STUB, add_edition_class, questions
from support.wrong_answers import MOST, WRONG

Q = "q_lab2_neg_inf"


@pytest.fixture
def course(tmp_path_factory, tmp_path, monkeypatch):
    monkeypatch.delenv("DB_URL", raising=False)
    written = _template(tmp_path_factory.getbasetemp() / "written-12")
    shutil.copytree(written.course, tmp_path / "course")
    marking = MarkingCourse(tmp_path / "course")
    yield written, marking
    marking.close()


def test_are_the_questions_in_master_order_with_the_reference_and_the_prompt(course):
    written, marking = course
    board = question_board(marking, ASSIGNMENT, Q)
    assert [q["grade_id"] for q in board["questions"]] == questions()
    assert "-1e9" in board["question"]["reference_html"] and "NaN" in board["question"]["prompt_html"]
    # the page heads the guide with the question's name: the prompt no longer repeats it (#59 item 6)
    assert board["question"]["name"].startswith("实验题 2") and "实验题 2" not in board["question"]["prompt_html"]
    assert len(board["rubric"]["points"]) == 3 and board["warnings"] == []
    assert sum(len(v["students"]) for g in board["groups"] for v in g["variants"]) == 12


def test_do_the_tabs_show_the_chapters_names_in_the_courses_language(course, tmp_path):
    """Question tabs by the chapter's names (实验题 1, not q_lab1_no_scale); with c.CourseKit.language = "en" the
    English edition's names (Lab question 1) for the same submissions, read from its source?"""
    written, marking = course
    board = question_board(marking, ASSIGNMENT, Q)
    assert [q["short"] for q in board["questions"]] == ["实验题 1", "实验题 2", "实验题 3", "实验题 4",
                                                         "思考题 1", "思考题 2", "思考题 3", "思考题 4"]
    assert board["question"]["name"] == "实验题 2：把 -1e9 换成 -inf" and board["language"] == "zh"
    folder = tmp_path / "course"
    english_source = source_notebook(COURSE, ASSIGNMENTS["en"])
    (folder / english_source.relative_to(COURSE)).parent.mkdir(parents=True)
    shutil.copy(english_source, folder / english_source.relative_to(COURSE))
    with open(folder / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.CourseKit.language = "en"\n')
    english = MarkingCourse(folder)
    try:
        board = question_board(english, ASSIGNMENT, Q)
    finally:
        english.close()
    assert [q["short"] for q in board["questions"]] == [
        "Lab question 1", "Lab question 2", "Lab question 3", "Lab question 4",
        *(f"Reflection question {n}" for n in range(1, 5))]
    assert board["question"]["name"] == "Lab question 2: replace -1e9 with -inf" and board["language"] == "en"


def test_is_the_unanswered_group_first_with_a_suggested_zero_not_saved(course):
    """Blank answers come first: those left exactly as released, which nbgrader scored 0 by itself, already done (0,
    not answered, as the feedback shows them: no work left); a blank nbgrader did not score (a stub with a space
    added) in a group of its own, a 0 suggested and nothing saved?"""
    written, marking = course
    board = question_board(marking, ASSIGNMENT, Q)
    blanks = [g for g in board["groups"] if g["kind"] == "unanswered"]
    assert board["groups"][:len(blanks)] == blanks and blanks
    views = {s: board["students"][s] for g in blanks for v in g["variants"] for s in v["students"]}
    untouched = {s for s in views if written.answers[Q][s] == STUB}
    assert untouched and all(views[s]["automatic"] and views[s]["score"] == 0.0 and views[s]["unanswered"]
                             for s in untouched)
    assert all(views[s]["score"] is None and not views[s]["automatic"] for s in set(views) - untouched)
    assert all(g["suggestion"]["score"] == 0.0 and "未作答" in g["suggestion"]["reason"] for g in blanks)
    with Gradebook(marking.url) as gradebook:  # shown as done, nothing written: nbgrader's own 0 stands
        assert all(gradebook.find_grade(Q, ASSIGNMENT, ASSIGNMENT, s).manual_score is None for s in views)


def test_is_an_answer_judged_apart_from_its_group_shown_apart(course):
    written, marking = course
    board = question_board(marking, ASSIGNMENT, Q)
    group = next(g for g in board["groups"] if sum(len(v["students"]) for v in g["variants"]) > 1)
    one = group["variants"][0]["students"][0]
    write_judgement(marking.engine, ASSIGNMENT, ASSIGNMENT, Q, {one: (1.0, None)}, {})
    again = question_board(marking, ASSIGNMENT, Q)
    alone = next(g for g in again["groups"] if [s for v in g["variants"] for s in v["students"]] == [one])
    others = [s for v in group["variants"] for s in v["students"] if s != one]
    assert again["students"][one]["score"] == 1.0 and alone["variants"][0]["students"] == [one]
    assert any([s for v in g["variants"] for s in v["students"]] == others for g in again["groups"])


def test_does_a_split_survive_a_reload(course):
    written, marking = course
    board = question_board(marking, ASSIGNMENT, Q)
    group = next(g for g in board["groups"] if sum(len(v["students"]) for v in g["variants"]) > 1)
    student = group["variants"][0]["students"][-1]
    add_split(marking.folder, ASSIGNMENT, Q, student)
    assert read_splits(marking.folder, ASSIGNMENT) == {Q: {student}}
    groups = question_board(marking, ASSIGNMENT, Q)["groups"]
    assert any([s for v in g["variants"] for s in v["students"]] == [student] for g in groups)


def test_are_a_missing_rubric_and_a_missing_notebook_said_in_one_line_each(course):
    written, marking = course
    (marking.folder / "rubrics" / f"{ASSIGNMENT}.toml").unlink()
    shutil.rmtree(marking.folder / "autograded" / written.students[0])
    board = question_board(marking, ASSIGNMENT, Q)
    assert board["rubric"] is None and len(board["warnings"]) == 1 and "没有评分要点文件" in board["warnings"][0]
    htmls = [v["html"] for g in board["groups"] for v in g["variants"] if written.students[0] in v["students"]]
    assert MISSING_TEXT in htmls[0]


def test_does_an_unknown_question_name_the_questions_there_are(course):
    written, marking = course
    with pytest.raises(KeyError, match="q_lab1_no_scale"):
        question_board(marking, ASSIGNMENT, "q_nope")


def test_does_the_english_edition_get_its_english_rubric_and_hints(course):
    """ch04_attention_en on the board: the rubric of rubrics/ch04_attention_en.toml (English points, the same shares),
    the English reference answer; the reference answer's group has every point suggested, a wrong answer at most 25 %,
    the untouched stub none?"""
    written, marking = course
    reference = {c.metadata["nbgrader"]["grade_id"]: c.source for c in master("en").cells
                 if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")}
    wrong = {q: next(w.text for w in WRONG if w.question == q and w.lang == "en") for q in reference}
    stub = text_stub(ASSIGNMENTS["en"], course_config(marking.folder), {"metadata": {"edition": {"language": "en"}}})
    assignment = add_edition_class(marking.folder, "en", {"right": reference, "wrong": wrong,
                                                          "blank": {q: stub for q in reference}})
    board = question_board(marking, assignment, Q)
    points = [p["text"] for p in board["rubric"]["points"]]
    assert points[0].startswith("When a whole row is blocked, -inf - (-inf) = NaN") and board["warnings"] == []
    assert "As long as every row keeps at least one position unblocked" in board["question"]["reference_html"]
    by_student = {v["students"][0]: v["suggestion"] for g in board["groups"] for v in g["variants"]}
    assert by_student["right"]["ticks"] == [True] * 3 and by_student["right"]["score"] == 1.0
    wrong = by_student["wrong"]  # no point found: no suggestion at all
    assert (wrong is None or wrong["score"] <= MOST) and by_student["blank"]["score"] == 0.0


def test_is_an_answer_that_finds_no_rubric_point_given_no_suggestion(course):
    """An answer in which no point of the rubric is found gets no suggestion at all (never a 0 that Enter would
    save); the blank answer keeps its suggested 0?"""
    written, marking = course
    assignment = add_edition_class(marking.folder, "en", {"unrelated": {Q: "I think this is about the weather."},
                                                          "blank": {Q: ""}})
    board = question_board(marking, assignment, Q)
    by_student = {v["students"][0]: v["suggestion"] for g in board["groups"] for v in g["variants"]}
    assert by_student["unrelated"] is None and by_student["blank"]["score"] == 0.0


def test_does_the_board_list_every_assignment_with_written_answers_and_its_counts(course):
    """The page's switcher: each assignment with manually graded cells, its answers marked and in all?"""
    written, marking = course
    other = add_edition_class(marking.folder, "en", {"s9": {Q: "an answer"}})
    board = question_board(marking, ASSIGNMENT, Q)
    listed = {a["id"]: (a["marked"], a["total"]) for a in board["assignments"]}
    assert set(listed) == {ASSIGNMENT, other} and listed[other][0] == 0 < listed[other][1]
    assert listed[ASSIGNMENT][1] == 12 * len(questions()) >= listed[ASSIGNMENT][0]


def test_are_students_and_assignments_named_not_shown_by_id(course):
    """The board names each student as the gradebook does (an LMS's roster: first and last name, the id beside it
    where two share a name; no name: the id) and each assignment of the switcher by its notebook's title, the
    English edition said so (not ch04_attention_en)?"""
    from nbgrader.api import Gradebook

    written, marking = course
    other = add_edition_class(marking.folder, "en", {"s9": {Q: "an answer"}})
    board = question_board(marking, ASSIGNMENT, Q)
    first, second, third = sorted(board["students"])[:3]
    with Gradebook(marking.url) as gradebook:
        gradebook.update_or_create_student(first, first_name="Wei", last_name="Li")
        gradebook.update_or_create_student(second, first_name="伟", last_name="李")
        gradebook.update_or_create_student(third, first_name="伟", last_name="李")
    fresh = MarkingCourse(marking.folder)
    try:
        board = question_board(fresh, ASSIGNMENT, Q)
    finally:
        fresh.close()
    assert board["names"][first] == "Wei Li"
    assert (board["names"][second], board["names"][third]) == (f"李伟 ({second})", f"李伟 ({third})")
    unnamed = sorted(board["students"])[3]
    assert board["names"][unnamed] == unnamed and set(board["names"]) == set(board["students"])
    titles = {a["id"]: a["title"] for a in board["assignments"]}
    assert titles[ASSIGNMENT].startswith("第 4 章") and titles[other].endswith("（英文版）")
    assert ASSIGNMENT not in titles[ASSIGNMENT] and other not in titles[other]

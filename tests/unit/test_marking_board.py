"""Does one question's board join answers, saved judgements, groups, the rubric and hints correctly?"""
import json
import shutil

import pytest
from nbgrader.api import Gradebook

from coursekit.language import WORDS
from coursekit.marking.board import question_board
from coursekit.marking.course import MarkingCourse
from coursekit.marking.splits import add_split, read_splits
from coursekit.marking.store import write_judgement
from test_marking_store import _template
from coursekit.paths import COURSE, source_notebook
from coursekit.record import GRADED, MIME, CellRecord, Check
from coursekit.stubs import text_stub
from coursekit.settings import course_config
from support.editions import ASSIGNMENTS, master
from support.written_answers import ASSIGNMENT, STUB, add_edition_class, questions
from support.reviewer_answers import rows_of
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
    chinese = MarkingCourse(folder)  # a TA reading the Chinese course's page in English: the course unchanged
    try:
        switched = question_board(chinese, ASSIGNMENT, Q, "en")
    finally:
        chinese.close()
    assert chinese.language == "zh" and switched["language"] == "en"
    assert switched["question"]["name"] == "Lab question 2: replace -1e9 with -inf"
    assert [g["suggestion"]["reason"] for g in switched["groups"] if g["kind"] == "unanswered" and g["suggestion"]] \
        in ([], [WORDS.say("en", "marking.reason.unanswered")])
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
    to_confirm = [g for g in blanks if not all(views[s]["automatic"] for v in g["variants"] for s in v["students"])]
    assert all(g["suggestion"]["score"] == 0.0 and g["suggestion"]["reason"] == WORDS.say("zh", "marking.reason.unanswered")
               for g in to_confirm)
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
    missing = WORDS.template("zh", "marking.no_rubric_file").split("{path}")
    assert board["rubric"] is None and len(board["warnings"]) == 1
    assert board["warnings"][0].startswith(missing[0]) and board["warnings"][0].endswith(missing[1])
    htmls = [v["html"] for g in board["groups"] for v in g["variants"] if written.students[0] in v["students"]]
    assert WORDS.say("zh", "marking.missing_notebook") in htmls[0]


def test_does_an_unknown_question_name_the_questions_there_are(course):
    """An unknown question is refused as data (its id and values), said in whichever language the page reads?"""
    from coursekit.marking.board import UnknownQuestion

    written, marking = course
    with pytest.raises(UnknownQuestion) as refused:
        question_board(marking, ASSIGNMENT, "q_nope")
    assert refused.value.msgid == "marking.no_question" and "q_lab1_no_scale" in refused.value.values["questions"]
    assert "q_nope" in refused.value.said("zh") and refused.value.said("zh") != refused.value.said("en")


def test_does_the_english_edition_get_its_english_rubric_and_hints(course):
    """ch04_attention_en on the board: the rubric of rubrics/ch04_attention_en.toml (English points, the same shares),
    the English reference answer; the reference answer's hints find every point, each with its phrase, a wrong
    answer's at most 25 %, the untouched stub's none?"""
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
    by_student = {v["students"][0]: v["hint"] for g in board["groups"] for v in g["variants"]}
    right = by_student["right"]
    assert right["ticks"] == [True] * 3 and {h["point"] for h in right["hits"]} == {0, 1, 2}
    assert all(h["phrase"] in reference[Q] for h in right["hits"])
    assert sum(share for share, tick in zip((0.5, 0.25, 0.25), by_student["wrong"]["ticks"]) if tick) <= MOST
    assert not any(by_student["blank"]["ticks"])


def test_is_nothing_suggested_before_the_ta_has_marked_anything_but_a_blank_answers_zero(course):
    """With nothing marked, an answer gets no suggestion at all (a hint, however many points it finds, is no mark
    Enter would save), and the blank answer keeps its suggested 0?"""
    written, marking = course
    reference = {c.metadata["nbgrader"]["grade_id"]: c.source for c in master("en").cells
                 if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")}
    assignment = add_edition_class(marking.folder, "en", {"unrelated": {Q: "I think this is about the weather."},
                                                          "right": {Q: reference[Q]}, "blank": {Q: ""}})
    board = question_board(marking, assignment, Q)
    by_student = {v["students"][0]: g for g in board["groups"] for v in g["variants"]}
    assert by_student["unrelated"]["suggestion"] is None and by_student["right"]["suggestion"] is None
    assert all(by_student["right"]["hint"]["ticks"])
    assert by_student["blank"]["suggestion"]["score"] == 0.0 and by_student["blank"]["suggestion"]["enter"]


def test_does_a_mark_carry_to_the_same_answer_written_otherwise_and_not_to_one_with_a_wrong_conclusion(course):
    """Once the TA has marked a right answer, another student's same answer with a filler and other spacing is suggested
    that mark (Enter may save it), its nearest marked answer named with its mark and the passages they share; the
    same right answer followed by a wrong conclusion is not, alone or proposed in one group with that copy; the
    groups Enter cannot settle are asked for first?"""
    written, marking = course
    right = ("As long as every row still has an unblocked position both give the same weights, since exp(-inf) is 0. "
             "When all positions of a row are blocked its maximum is -inf and -inf - (-inf) is NaN. -1e9 is finite, "
             "so such a row still gets finite weights.")
    assignment = add_edition_class(marking.folder, "en", {
        "a": {Q: right}, "b": {Q: "I think " + right.replace(", ", " , ").replace("finite weights.", "finite weights")},
        "c": {Q: right + " But numpy turns that NaN into 0 anyway, so -inf is just as safe."},
        **{f"r{n}": {Q: row.text} for n, row in enumerate(rows_of(Q, "en"))}})
    write_judgement(marking.engine, assignment, assignment, Q, {"a": (1.0, None)}, {})
    together = {v["students"][0]: g for g in question_board(marking, assignment, Q)["groups"] for v in g["variants"]}
    assert together["b"]["id"] == together["c"]["id"] and together["b"]["suggestion"] is None  # proposed as one
    add_split(marking.folder, assignment, Q, "c")  # the TA splits it out (s)
    board = question_board(marking, assignment, Q)
    by_student = {v["students"][0]: g for g in board["groups"] for v in g["variants"]}
    copy, added = by_student["b"], by_student["c"]
    assert copy["suggestion"]["score"] == 1.0 and copy["suggestion"]["enter"]
    assert copy["neighbours"][0]["group"] == by_student["a"]["id"] and copy["neighbours"][0]["score"] == 1.0
    assert any(len(passage) > 40 and passage in right for passage in copy["shared"])
    assert added["suggestion"] is None and added["neighbours"][0]["similarity"] < copy["neighbours"][0]["similarity"]
    assert added["ask"] < copy["ask"] and by_student["a"]["ask"] is None


def test_does_the_board_list_every_assignment_with_written_answers_and_its_counts(course):
    """The page's switcher: each assignment with manually graded cells, its answers marked and in all?"""
    written, marking = course
    other = add_edition_class(marking.folder, "en", {"s9": {Q: "an answer"}})
    board = question_board(marking, ASSIGNMENT, Q)
    listed = {a["id"]: (a["marked"], a["total"]) for a in board["assignments"]}
    assert set(listed) == {ASSIGNMENT, other} and listed[other][0] == 0 < listed[other][1]
    assert listed[ASSIGNMENT][1] == 12 * len(questions()) >= listed[ASSIGNMENT][0]


def test_does_the_board_name_a_student_whose_cells_may_be_hard_coded(course, tmp_path):
    """A student whose TEST 1 record passes every visible check and fails every hidden one (no canary ran: every
    hidden check counts): one line for them, naming the cell as the page does, from the class report's function;
    nobody else?"""
    written, marking = course
    student = written.students[0]
    path = tmp_path / "course" / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "test1_scores")
    checks = (Check("verify.1", True, "", True), Check("test1.random_rect", False, "", False))
    cell["metadata"]["coursekit"] = {"grader": {"kernel_agreed": True}}  # as the grading process writes it
    cell["outputs"] = [{"output_type": "display_data", "metadata": {}, "data": {
        MIME: CellRecord("test1_scores", 1, 4.0, 0.25, GRADED, "", checks).to_dict()}}]
    path.write_text(json.dumps(nb), encoding="utf-8")
    board = question_board(marking, ASSIGNMENT, Q)
    assert board["hard_coded"] == {student: WORDS.say("zh", "marking.hard_coded", cells="TEST 1 · 任务 2")}


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

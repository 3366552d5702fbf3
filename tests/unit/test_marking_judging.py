"""Is a mark bound to the text it was given for: is a judgement refused, nothing saved, when the answer it names
is another text than the marker's page read (the student submitted again since)?

The refusal in the page (its notice, the new text shown): tests/integration/test_marking_page.py.
"""
import shutil
import types

import pytest
from nbgrader.api import Gradebook
from tornado import web

from coursekit.marking.answers import text_fingerprint
from coursekit.marking.board import question_board
from coursekit.marking.course import MarkingCourse
from coursekit.marking.handlers import JudgeHandler, _Marking
from coursekit.language import WORDS
from coursekit.marking.judging import AnswerChanged, check_texts, parse_request
from support.written_answers import ASSIGNMENT
from test_marking_store import _template

Q = "q_think1_scale"


@pytest.fixture
def course(tmp_path_factory, tmp_path):
    """A copy of the 12-student written class, its marking course, and one student whose answer is their own."""
    template = _template(tmp_path_factory.getbasetemp() / "written-12")
    shutil.copytree(template.course, tmp_path / "course")
    marking = MarkingCourse(tmp_path / "course")
    student = next(s for s in template.students if template.kinds[Q][s] in ("correct", "partial"))
    yield marking, student, template.answers[Q][student]
    marking.close()


def _rewrite(marking, student, old, new):
    """The student submits again: the answer's text in their autograded notebook becomes ``new``."""
    path = marking.folder / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(old, new), encoding="utf-8")


def _save(marking, body, lang=None):
    """The marking page's save as its handler does it (JudgeHandler._save), without the server around it; the page
    in ``lang`` (None: the course's)."""
    page = types.SimpleNamespace(marking=marking, lang=lambda: lang or marking.language)
    page.refused = lambda refusal: _Marking.refused(page, refusal)
    return JudgeHandler._save(page, ASSIGNMENT, parse_request(body))


def _score(marking, student):
    with Gradebook(marking.url) as gradebook:
        return gradebook.find_grade(Q, ASSIGNMENT, ASSIGNMENT, student).manual_score


def test_does_the_board_give_each_answers_fingerprint(course):
    marking, student, text = course
    board = question_board(marking, ASSIGNMENT, Q)
    assert board["texts"][student] == text_fingerprint(text) != text_fingerprint(text + " ")
    assert set(board["texts"]) == set(board["students"])


def test_is_a_mark_for_the_text_read_saved(course):
    marking, student, text = course
    seen = question_board(marking, ASSIGNMENT, Q)["texts"]
    saved = _save(marking, {"question": Q, "students": [student], "score": 1.0, "texts": {student: seen[student]}})
    assert saved["students"][student]["score"] == 1.0 and _score(marking, student) == 1.0


def test_is_a_mark_for_a_text_rewritten_since_the_page_read_it_refused(course):
    """"不知道。" resubmitted after the page loaded a good answer: the good answer's full mark is refused, not saved?"""
    marking, student, text = course
    seen = question_board(marking, ASSIGNMENT, Q)["texts"]
    _rewrite(marking, student, text, "不知道。")
    with pytest.raises(web.HTTPError) as refused:
        _save(marking, {"question": Q, "students": [student], "score": 1.0, "texts": {student: seen[student]}})
    assert refused.value.status_code == 409 and student in refused.value.log_message
    assert refused.value.log_message == WORDS.say(marking.language, "marking.answer_changed", students=student)
    assert _score(marking, student) is None
    now = question_board(marking, ASSIGNMENT, Q)  # what the page shows again: the new text, its fingerprint
    assert now["texts"][student] == text_fingerprint("不知道。")
    assert any("不知道。" in v["html"] for g in now["groups"] for v in g["variants"] if student in v["students"])


def test_is_a_group_judgement_with_one_changed_answer_refused_whole(course):
    marking, student, text = course
    board = question_board(marking, ASSIGNMENT, Q)
    others = [s for s in board["students"] if s != student][:2]
    seen = {s: board["texts"][s] for s in [student, *others]}
    _rewrite(marking, student, text, text + "（改过）")
    with pytest.raises(web.HTTPError):
        _save(marking, {"question": Q, "students": [student, *others], "score": 0.0, "texts": seen})
    assert [_score(marking, s) for s in [student, *others]] == [None, None, None]


def test_is_a_judgement_without_the_texts_it_was_given_for_refused():
    request = parse_request({"question": Q, "students": ["a", "b"], "score": 1.0, "texts": {"a": "x"}})
    with pytest.raises(AnswerChanged) as refused:
        check_texts(request, {"a": "x", "b": "y"})
    assert refused.value.students == ("b",)
    check_texts(parse_request({"question": Q, "students": ["a"], "texts": {"a": "x"}}), {"a": "x"})


def test_does_the_refusal_speak_both_languages():
    changed = AnswerChanged(["s1", "s2"])
    for lang in ("zh", "en"):
        students = WORDS.say(lang, "locale.list_separator").join(["s1", "s2"])
        assert changed.message(lang) == WORDS.say(lang, "marking.answer_changed", students=students)
    assert changed.message("zh") != changed.message("en")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_is_a_score_out_of_range_refused_in_the_pages_language(course, lang):
    """A score above the question's points, or ticks that are not the rubric's: 400, said in the page's language
    (its ?lang=), whatever the course speaks; nothing saved?"""
    marking, student, _ = course
    questions = marking.questions(ASSIGNMENT)
    most = next(q for q in questions if q.grade_id == Q).max_score
    points = len(marking.rubrics(ASSIGNMENT, questions).by_question[Q].points)
    texts = {student: question_board(marking, ASSIGNMENT, Q)["texts"][student]}
    with pytest.raises(web.HTTPError) as refused:
        _save(marking, {"question": Q, "students": [student], "score": most + 1, "texts": texts}, lang)
    assert refused.value.status_code == 400
    assert refused.value.log_message == WORDS.say(lang, "refused.score", score=f"{most + 1:g}",
                                                  most=f"{most:g}", question=Q)
    with pytest.raises(web.HTTPError) as refused:
        _save(marking, {"question": Q, "students": [student], "ticks": [True] * (points + 1), "texts": texts}, lang)
    assert refused.value.status_code == 400
    assert refused.value.log_message == WORDS.say(lang, "refused.tick_count", question=Q, ticks=points + 1,
                                                  points=points)
    assert _score(marking, student) is None


@pytest.mark.parametrize("course_lang", ["zh", "en"])
def test_is_a_language_no_catalogue_speaks_refused_in_the_courses(course_lang):
    """?lang=fr: 400 in the course's language, naming what was asked and what the catalogues speak?"""
    page = types.SimpleNamespace(marking=types.SimpleNamespace(language=course_lang),
                                 get_argument=lambda name, default="": "fr" if name == "lang" else default)
    with pytest.raises(web.HTTPError) as refused:
        _Marking.lang(page)
    assert refused.value.status_code == 400
    assert refused.value.log_message == WORDS.say(course_lang, "refused.lang", lang="fr",
                                                  languages="zh, en, qps")
    assert "'fr'" in refused.value.log_message


def _board(marking, question, lang):
    """The board as the marking API's handler asks for it (_Marking.board), the page in ``lang``."""
    page = types.SimpleNamespace(marking=marking, lang=lambda: lang, log=None)
    return _Marking.board(page, ASSIGNMENT, question)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_is_an_unknown_question_a_404_in_the_pages_language(course, lang):
    """A board or a save for a question the assignment does not have: 404, said in the page's language, naming the
    questions there are?"""
    from coursekit.marking.board import unknown_question

    marking, student, _ = course
    expected = unknown_question(ASSIGNMENT, "q_nope", marking.questions(ASSIGNMENT)).said(lang)
    with pytest.raises(web.HTTPError) as missing:
        _board(marking, "q_nope", lang)
    assert (missing.value.status_code, missing.value.log_message) == (404, expected)
    with pytest.raises(web.HTTPError) as missing:
        _save(marking, {"question": "q_nope", "students": [student], "score": 1, "texts": {student: "x"}}, lang)
    assert (missing.value.status_code, missing.value.log_message) == (404, expected)
    assert Q in expected and "q_nope" in expected


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_is_a_broken_rubric_a_500_that_says_it_is_the_courses_to_fix(course, lang):
    """The course's rubric file broken: 500, in the page's language, saying the course's rubric is what to fix, with
    the file and the entry?"""
    from coursekit.marking.rubric import rubric_file

    marking, _, _ = course
    path = rubric_file(marking.folder, ASSIGNMENT)
    path.write_text(f"[[{Q}.points]]\ntext = '一'\nshare = 0.5\n", encoding="utf-8")
    with pytest.raises(web.HTTPError) as broken:
        _board(marking, Q, lang)
    fault = WORDS.template(lang, "marking.rubric_fault").split("{error}")
    shares = WORDS.say(lang, "rubric.shares", path=str(path), question=Q, total=0.5)
    assert broken.value.status_code == 500 and broken.value.log_message == fault[0] + shares + fault[1]

"""Do the rubric's hints find every point of a right answer, and offer little or nothing for a wrong one, in both
editions' rubrics?

The hint is the marking page's suggestion (coursekit.marking.rubric.suggest): the points whose terms or patterns
an answer hits. The reference answers are the master's, in each edition's language; the wrong answers are the
table tests/support/wrong_answers.py.
"""
import pytest

from coursekit.marking.rubric import Point, Rubric, load_rubrics, score_of, suggest
from coursekit.paths import COURSE
from support.editions import ASSIGNMENTS, EDITIONS, master
from support.wrong_answers import MOST, NEAR_MISSES, WRONG


def rubrics(lang: str) -> dict:
    return load_rubrics(COURSE, ASSIGNMENTS[lang]).by_question


def answers(lang: str) -> dict:
    """{grade_id: the master's reference answer in ``lang``}."""
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in master(lang).cells
            if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")}


def offered(question: str, lang: str, text: str) -> float:
    """The share of the question's points the suggestion offers for ``text``."""
    rubric = rubrics(lang)[question]
    return score_of(rubric, suggest(rubric, text), 1.0)


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_each_reference_answer_get_every_point_suggested(lang):
    """The reference answer of each of the 8 questions hits every point of its rubric, in each edition?"""
    found = {q: suggest(rubrics(lang)[q], text) for q, text in answers(lang).items()}
    assert len(found) == 8 and {q: s for q, s in found.items() if not all(s)} == {}


@pytest.mark.parametrize("row", WRONG, ids=lambda w: f"{w.lang}-{w.question}-{w.text[:12]}")
def test_is_a_wrong_answer_offered_no_more_than_a_quarter(row):
    """A wrong answer from the table: the suggestion offers at most 25 % of the question's points?"""
    assert offered(row.question, row.lang, row.text) <= MOST, row.why


@pytest.mark.parametrize("question, lang, text, why, point", NEAR_MISSES, ids=lambda v: str(v)[:20])
def test_does_a_near_miss_get_only_the_point_it_has(question, lang, text, why, point):
    """A wrong answer with one minor point right: that point is suggested, no other, and it is worth ≤ 25 %?"""
    rubric = rubrics(lang)[question]
    assert suggest(rubric, text) == [i == point for i in range(len(rubric.points))], why
    assert offered(question, lang, text) <= MOST


def test_does_the_table_hold_two_wrong_answers_per_question_and_language():
    counts = {(q, lang): sum(w.question == q and w.lang == lang for w in WRONG) for q in answers("zh") for lang in EDITIONS}
    assert len(counts) == 16 and min(counts.values()) >= 2, counts
    assert all(w.question in answers("zh") and w.why for w in WRONG)


def test_would_hints_of_single_common_words_be_caught():
    """Control: hints of one common word each (方差, 指数 …) offer a wrong answer of the table more than 25 %?"""
    words = Rubric("q_think1_scale", (Point("a", 5000, ("方差",)), Point("b", 3000, ("指数",)), Point("c", 2000, ("温度",))))
    wrong = [w for w in WRONG if w.question == "q_think1_scale" and w.lang == "zh"]
    assert max(score_of(words, suggest(words, w.text), 1.0) for w in wrong) > MOST


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_no_hint_come_from_the_question_itself(lang):
    """A term or pattern the question's own text hits would be suggested for an answer that restates it: none is?"""
    rubric_of, prompts = rubrics(lang), prompts_of(lang)
    assert len(prompts) == 8
    hits = {q: [i for i, hit in enumerate(suggest(rubric_of[q], prompt)) if hit] for q, prompt in prompts.items()}
    assert {q: h for q, h in hits.items() if h} == {}


def prompts_of(lang: str) -> dict:
    """{grade_id: the question as the student reads it}: from the last ``###`` heading above the answer cell down to
    it (the prompt, and any demo cell the question asks to run)."""
    found, above = {}, []
    for cell in master(lang).cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and meta.get("solution"):
            found[meta["grade_id"]], above = "\n".join(above), []
        elif "### " in cell.source:
            above = [cell.source[cell.source.rindex("### "):]]
        else:
            above.append(cell.source)
    return found


def test_is_a_hint_the_prompt_contains_caught():
    """Control: a term taken from the question (Lab 2 asks about NaN) is reported by the same search?"""
    rubric = Rubric("q_lab2_neg_inf", (Point("a", 10000, ("NaN",)),))
    assert suggest(rubric, prompts_of("en")["q_lab2_neg_inf"]) == [True]


@pytest.mark.parametrize("lang", EDITIONS)
def test_does_pasting_one_answer_into_the_other_question_earn_at_most_half(lang):
    """Lab 1 asks for the observation, reflection 1 for the derivation: each one's reference answer, pasted as the other's,
    is offered at most half of that question's points?"""
    reference = answers(lang)
    assert offered("q_lab1_no_scale", lang, reference["q_think1_scale"]) <= 0.5
    assert offered("q_think1_scale", lang, reference["q_lab1_no_scale"]) <= 0.5


def test_would_the_same_points_in_both_questions_be_caught():
    """Control: a rubric asking reflection 1 for lab 1's observation offers lab 1's answer more than half?"""
    observation = rubrics("zh")["q_lab1_no_scale"]
    assert score_of(observation, suggest(observation, answers("zh")["q_lab1_no_scale"]), 1.0) > 0.5


CONTRADICTION = {"zh": "回答的其他地方没有和它矛盾", "en": "nothing else in the answer contradicts it"}


@pytest.mark.parametrize("lang", EDITIONS)
def test_do_the_students_and_the_markers_read_the_rule_for_contradictions(lang):
    """4.13's introduction tells students, and the master rubric's header tells markers, that a point counts only when
    it is stated correctly and nothing else in the answer contradicts it?"""
    intro = next(c.source for c in master(lang).cells if c.get("id") == "s411-questions")
    assert CONTRADICTION[lang] in intro
    header = "".join(line for line in (COURSE / "rubrics" / f"{ASSIGNMENTS['zh']}.toml").read_text(encoding="utf-8")
                     .splitlines() if line.startswith("#"))
    assert CONTRADICTION["zh"] in header


def test_does_another_well_argued_reason_earn_a_point_in_reflection_4():
    """Reflection 4 is open: a reason the reference does not give (one new idea at a time) has a point of its own?"""
    for lang, text in (("zh", "这样一次只面对一个新概念，不会同时被形状和数值稳定两件事压住。"),
                       ("en", "You meet one new idea at a time instead of shapes and stability together.")):
        assert offered("q_think4_split", lang, text) > 0

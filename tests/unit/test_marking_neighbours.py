"""Which marked answers are nearest an unmarked one, and which answer should the TA mark first?

The answers are a few of the reviewer's table (support/reviewer_answers.py), reworded as another student would
hand them in; coursekit.marking.neighbours is asked as the page asks it.
"""
from coursekit.marking.neighbours import Space, grams, nearest, shared_passages, teaching_order
from coursekit.marking.suggestions import ENTER_CONFIDENCE
from support.reviewer_answers import RIGHT, rows_of

Q = "q_think1_scale"


def _rows(lang):
    rows = rows_of(Q, lang)
    return next(r for r in rows if r.kind == RIGHT), next(r for r in rows if r.kind == "wrong_conclusion")


def test_is_a_reworded_copy_nearest_and_a_wrong_conclusion_added_not_near_enough():
    """Marked: a right answer and a wrong one. The right one with a filler and other punctuation is aligned with
    it enough for Enter; the right one with a wrong conclusion added is not, in either language?"""
    for lang, filler in (("zh", "我认为"), ("en", "I think ")):
        right, wrong = _rows(lang)
        texts = {"right": right.text, "wrong": wrong.text, "copy": filler + right.text.replace("，", ",", 2),
                 "added": right.text + wrong.text.split("；")[-1].split("; ")[-1],
                 **{f"other{n}": row.text for n, row in enumerate(rows_of(Q, lang))}}
        space = Space(texts)
        found = nearest(space, ["copy", "added"], ["right", "wrong"])
        assert [n.key for n in found["copy"]][0] == "right" and found["copy"][0].similarity >= ENTER_CONFIDENCE
        assert found["added"][0].key == "right" and found["added"][0].similarity < ENTER_CONFIDENCE, found["added"]


def test_is_an_answer_unlike_its_own_negation():
    """"会随 head_dim 变大" and "不会随 head_dim 变大" share every character but the cue: apart, as a negation should be?"""
    for affirmed, negated, reworded, most in (
            ("点积的方差会随 head_dim 变大。", "点积的方差不会随 head_dim 变大。", "点积的方差会随着 head_dim 变大。", 0.5),
            ("The variance of the dot product grows with head_dim.",
             "The variance of the dot product never grows with head_dim.",
             "The dot product's variance grows with head_dim.", 0.9)):
        space = Space({"a": affirmed, "n": negated, "r": reworded, "x": "无关的回答。 Something else entirely."})
        assert space.similarity("a", "n") < most * space.similarity("a", "r")  # without the ¬ grams: as near as r, nearer
        assert any(gram.startswith("¬") for gram in grams(negated))


def test_does_the_page_ask_first_for_the_answer_that_stands_for_most():
    """Nothing marked: the answer most others resemble (weighted by its group's size) first; once it is marked, an
    answer unlike anything marked comes before another copy of the marked one?"""
    right, wrong = _rows("en")
    texts = {"big": right.text, "copy": "Answer: " + right.text, "odd": wrong.text, "small": "I think " + right.text}
    space = Space(texts)
    assert teaching_order(space, list(texts), [], {"big": 30, "copy": 1, "odd": 5, "small": 1})[0] == "big"
    after = teaching_order(space, ["copy", "odd", "small"], ["big"], {"copy": 1, "odd": 5, "small": 1})
    assert after[0] == "odd"


def test_are_the_shared_passages_found_in_both_answers():
    right, _ = _rows("en")
    shared = shared_passages("I think " + right.text, right.text + " We saw it in class.")
    assert shared and all(passage in right.text for passage in shared) and len(shared[0]) > 100
    assert shared_passages("完全不同的两句话", "毫无关系的另一句") == ()

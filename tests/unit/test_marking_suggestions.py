"""When may Enter save a mark the page suggests, and when does the page only show what it found?

One table of situations, each a small question (answers, the TA's marks so far) and what the page must offer for
one unmarked answer: its source ("" for no suggestion) and the ticks. coursekit.marking.suggestions decides; the
page and the benchmark read the same function.
"""
from dataclasses import dataclass

import pytest

from coursekit.marking.rubric import Point, Rubric
from coursekit.marking.suggestions import ENTER_CONFIDENCE, Mark, suggest_question

RUBRIC = Rubric("q", (Point("the variance is about head_dim", 5000, (), (r"variance[^.]{0,20}head_dim",)),
                      Point("the largest weight goes to 1", 3000, ("goes to 1",)),
                      Point("scaling brings it back", 2000, ("back to about 1",))))
RIGHT = ("A dot product sums head_dim products, so its variance grows like head_dim; with big gaps the largest "
         "weight goes to 1. Scaling brings the variance back to about 1.")
PARTIAL = "The dot product's variance grows with head_dim, and nothing else changes."
FULL, ONE = Mark((True, True, True), 1.0), Mark((True, False, False), 0.5)
OTHERS = {"o1": "Softmax is a function.", "o2": "I do not know.", "o3": "Matrices are fast."}


@dataclass(frozen=True)
class Case:
    name: str
    answer: str
    marked: dict          # {key: (text, Mark)}
    source: str           # "" : no suggestion
    ticks: tuple | None = None
    blank: bool = False


CASES = [
    Case("blank: the 0 of an unanswered answer", "", {}, "unanswered", (False, False, False), blank=True),
    Case("nothing marked: hints, no mark", RIGHT, {}, ""),
    Case("the same answer marked", RIGHT.replace(", ", " , "), {"m": (RIGHT, FULL)}, "same", (True, True, True)),
    Case("the same words with a filler: the nearest agree", "In short, " + RIGHT, {"m": (RIGHT, FULL)}, "neighbours",
         (True, True, True)),
    Case("two near copies marked differently: no suggestion", "In short, " + RIGHT,
         {"m": (RIGHT, FULL), "n": ("Answer: " + RIGHT, ONE)}, ""),
    Case("a wrong conclusion added to a marked right answer", RIGHT + " But softmax then evens the gaps out again.",
         {"m": (RIGHT, FULL)}, ""),
    Case("a negated point, unlike the marked answers", RIGHT.replace("weight goes to 1", "weight never goes to 1"),
         {"m": (RIGHT, FULL)}, ""),
    Case("a negated point the TA marked in the same words", "Answer: " + PARTIAL + " The weight never goes to 1.",
         {"m": (PARTIAL + " The weight never goes to 1.", ONE)}, "neighbours", (True, False, False)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_is_a_suggestion_offered_only_when_the_tas_marks_stand_behind_it(case):
    texts = {"u": case.answer, **OTHERS, **{key: text for key, (text, _) in case.marked.items()}}
    marks = {key: mark for key, (_, mark) in case.marked.items()}
    found, order = suggest_question(texts, marks, RUBRIC, 1.0, ["u"] if case.blank else [])
    suggestion = found["u"]
    assert suggestion.source == case.source, (suggestion.source, suggestion.confidence, suggestion.neighbours)
    assert suggestion.enter == bool(case.source)  # a suggestion is what Enter saves, and nothing else is
    if case.source:
        assert tuple(suggestion.ticks) == case.ticks
        assert suggestion.source in ("same", "unanswered") or suggestion.confidence >= ENTER_CONFIDENCE
    assert set(order) == set(texts) - set(marks)


def test_does_a_hint_show_its_phrase_and_a_negated_one_its_cue():
    """Nothing marked: the hints of an answer name each point's phrase, and a point said the other way round is
    contradicted, with the cue that turns it (never suggested)?"""
    text = "The variance grows like head_dim, but the largest weight never goes to 1."
    found, _ = suggest_question({"u": text}, {}, RUBRIC, 1.0)
    hint = found["u"].hint
    assert [(h.point, h.phrase, h.negation) for h in hint.hits] == [(0, "variance grows like head_dim", ""),
                                                                    (1, "goes to 1", "never")]
    assert hint.contradicted == (False, True, False) and found["u"].contradicted == (1,) and not found["u"].enter


def test_does_a_question_without_a_rubric_vote_on_the_score():
    """No rubric: the nearest marked answers' scores are the suggestion (no ticks)?"""
    texts = {"u": "In short, " + RIGHT, "m": RIGHT, **OTHERS}
    found, _ = suggest_question(texts, {"m": Mark(None, 2.0)}, None, 3.0)
    assert (found["u"].source, found["u"].ticks, found["u"].score) == ("neighbours", None, 2.0)

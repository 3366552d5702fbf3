"""What the marking page suggests for each unmarked answer of a question: a mark Enter may save, and hints.

One function, :func:`suggest_question`, read by the page (:mod:`.board`), its tests and the marking benchmark
(benchmarks/bench_marking.py), so that what is measured is what the TA gets. A **suggestion** is a mark the TA's
own marks stand behind, and Enter saves it; there is one only when, in order,

1. the answer is **unanswered** (blank, or the release's stub): 0, nothing to judge;
2. it is **the same as a marked answer** (similarity 1: the same words up to spacing and punctuation): that mark;
3. **the nearest marked answers agree**: the :data:`.neighbours.K` marked answers most like it
   (:mod:`.neighbours`) that are about as near as the nearest one (:data:`CLOSE`) vote, each by its similarity
   squared, point by point (or on the score, without a rubric); the *confidence* is the share of that vote agreeing
   with the result exactly times the nearest one's similarity, and it must reach :data:`ENTER_CONFIDENCE`.

Whatever else is found is shown, never saved by Enter: the nearest marked answers with their marks and
similarities, and the rubric's **hints** (:func:`.rubric.hint`), each with the phrase that triggered it. A phrase
cannot tell a right conclusion from a wrong one, so a hint alone suggests no mark: the TA ticks what they read.
An answer that contradicts a point (a hint under a negation: "不会接近 1", "does not change") gets no suggestion
either; the rubric's rule for contradictions is the TA's to apply (:func:`.rubric.contradiction_cap`). Nothing here
writes a mark: the TA's keys do.
"""
from dataclasses import dataclass, field

from .neighbours import Space, nearest, teaching_order
from .rubric import hint, score_of

__all__ = ["ENTER_CONFIDENCE", "Mark", "Suggestion", "suggest_question"]

# Enter saves a suggestion of the nearest marked answers from this confidence on: on benchmarks/bench_marking.py's
# classes (both languages, 300 answers a question) such suggestions agreed with the true mark 95 % of the time or
# more at every stage of marking (benchmarks/HISTORY.md, "Marking suggestions").
ENTER_CONFIDENCE = 0.8
SAME = 0.999                    # a similarity this high is the same answer, written otherwise
CLOSE = 0.8                     # the neighbours that vote: at least this share of the nearest one's similarity


@dataclass(frozen=True)
class Mark:
    ticks: tuple | None     # the ticked rubric points (None: marked without them)
    score: float


@dataclass
class Suggestion:
    source: str                         # "unanswered", "same", "neighbours", or "" (no suggestion)
    ticks: tuple | None = None
    score: float | None = None
    enter: bool = False                 # may Enter save it? (a suggestion always may)
    confidence: float = 0.0
    neighbours: list = field(default_factory=list)   # .neighbours.Neighbour, most similar first
    hint: object = None                 # .rubric.Hint, or None without a rubric
    contradicted: tuple = ()            # points the answer says the opposite of

    @property
    def offered(self) -> float | None:
        """The score it puts forward (None: none)."""
        return self.score if self.source else None


def _vote(neighbours: list, marks: dict, rubric, max_score: float):
    """(ticks or None, score, agreement) of the neighbours' marks, each weighted by its similarity squared."""
    weights = [n.similarity ** 2 for n in neighbours]
    total = sum(weights) or 1.0
    given = [marks[n.key] for n in neighbours]
    if rubric is not None and all(m.ticks is not None for m in given):
        votes = [sum(w for w, m in zip(weights, given) if m.ticks[i]) / total for i in range(len(rubric.points))]
        ticks = tuple(v >= 0.5 for v in votes)
        agree = sum(w for w, m in zip(weights, given) if tuple(m.ticks) == ticks) / total
        return ticks, score_of(rubric, ticks, max_score), agree
    by_score = {}
    for w, m in zip(weights, given):
        by_score[m.score] = by_score.get(m.score, 0.0) + w
    score = max(sorted(by_score), key=lambda s: by_score[s])
    return None, score, by_score[score] / total


def _contradicted(found) -> tuple:
    return tuple(i for i, c in enumerate(found.contradicted) if c) if found is not None else ()


def _one(text: str, neighbours: list, marks: dict, rubric, max_score: float, texts: dict,
         enter_confidence: float) -> Suggestion:
    found = hint(rubric, text) if rubric is not None else None
    contradicted = _contradicted(found)
    # An answer that says the opposite of a point follows only a marked answer that says the same opposite.
    seen = not contradicted or (neighbours and
                                _contradicted(hint(rubric, texts[neighbours[0].key])) == contradicted)
    if neighbours and seen:
        close = [n for n in neighbours if n.similarity >= CLOSE * neighbours[0].similarity]
        ticks, score, agree = _vote(close, marks, rubric, max_score)
        top = neighbours[0].similarity
        if top >= SAME and agree == 1.0:
            return Suggestion("same", ticks, score, True, 1.0, neighbours, found, contradicted)
        confidence = round(float(agree * top), 4)
        if confidence >= enter_confidence:
            return Suggestion("neighbours", ticks, score, True, confidence, neighbours, found, contradicted)
    return Suggestion("", neighbours=neighbours, hint=found, contradicted=contradicted)


def suggest_question(texts: dict, marks: dict, rubric=None, max_score: float = 1.0, unanswered=(), sizes=None,
                     space=None, enter_confidence: float = ENTER_CONFIDENCE):
    """``({key: Suggestion}, [key, …])`` for the unmarked answers of one question, and the order to mark them in.

    ``texts``: {key: answer text} of every answer (a key is a group of identical answers on the page);
    ``marks``: {key: Mark} of the marked ones; ``unanswered``: keys of blank answers; ``sizes``: {key: students};
    ``space``: the answers' :class:`.neighbours.Space`, when the caller keeps it (made from ``texts`` otherwise);
    ``enter_confidence``: the benchmark tries others than the page's.
    """
    space = space if space is not None else Space(texts)
    marked = [key for key in texts if key in marks]
    unmarked = [key for key in texts if key not in marks]
    blank = set(unanswered)
    close = nearest(space, [k for k in unmarked if k not in blank], marked)
    suggestions = {}
    for key in unmarked:
        if key in blank:
            ticks = (False,) * len(rubric.points) if rubric is not None else None
            suggestions[key] = Suggestion("unanswered", ticks, 0.0, True, 1.0)
        else:
            suggestions[key] = _one(texts[key], close[key], marks, rubric, max_score, texts, enter_confidence)
    waiting = [k for k in unmarked if not suggestions[k].enter]
    order = [*(k for k in unmarked if k in blank), *teaching_order(space, waiting, marked, sizes or {}),
             *(k for k in unmarked if k not in blank and suggestions[k].enter)]
    return suggestions, order

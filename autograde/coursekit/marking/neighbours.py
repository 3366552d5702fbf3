"""How alike two answers to one question are, which marked answers are nearest an unmarked one, what to mark first.

**The measure** is the class report's fingerprints, made to read negations: an answer's character 5-grams after
:func:`.normalise.normalise` (NFKC, case folded, spaces and formatting punctuation dropped: Chinese and English
alike, no word segmentation), a gram under a negation (:mod:`.negation`: "不会接近 1", "does not change") kept apart
from the same gram affirmed, so an answer and its negation are not near. Two answers are as similar as the
Jaccard index of their grams, 0…1: a copy with a filler or an aside stays near, an answer that adds a sentence
(a wrong conclusion) drops by that sentence's share. On benchmarks/bench_marking.py it needs fewer marks by hand
than the cosine of TF-IDF vectors or clause-by-clause alignment, and as few as the report's fingerprints while
telling negations apart (benchmarks/HISTORY.md, "Marking suggestions").

**Nearest marked answers** (:func:`nearest`): the :data:`K` marked answers most like an unmarked one, each with its
similarity. **What to mark first** (:func:`teaching_order`): the answer whose mark would bring the most unmarked
answers nearer a marked one (Powergrading's idea, Basu, Jacobs and Vanderwende, TACL 2013: mark what stands for
many, and what nothing marked resembles yet), greedily, each group weighted by its size.

numpy only; a question of 300 answers takes a few tens of milliseconds.
"""
import difflib
import functools
import unicodedata
from dataclasses import dataclass

import numpy as np

from .negation import negated_spans
from .normalise import normalise

__all__ = ["K", "GRAM", "Neighbour", "grams", "Space", "nearest", "teaching_order", "shared_passages"]

K = 5               # marked answers a suggestion listens to
GRAM = 5            # characters of normalised text: a Chinese phrase, an English word and a half (as the report's)
NEGATED = "¬"       # prefix of a gram under a negation
SHARED_MIN = (4, 10)  # the shortest passage worth highlighting: characters of Chinese text, of other text


@dataclass(frozen=True)
class Neighbour:
    key: str            # the marked answer's key (a group's id on the board)
    similarity: float   # 0…1


@functools.lru_cache(maxsize=50_000)
def grams(text: str) -> frozenset:
    """The answer's fingerprints (module docstring): its normalised character 5-grams, ``¬`` before a negated one
    (one whose last character stands under a negation)."""
    text = text or ""
    negated = np.zeros(len(text) + 1, dtype=bool)
    for start, end in negated_spans(text):
        negated[start:end] = True
    kept = [(c, negated[i]) for i, char in enumerate(text) for c in normalise(char)]
    form = "".join(c for c, _ in kept)
    if len(form) < GRAM:
        return frozenset([form]) if form else frozenset()
    return frozenset((NEGATED if kept[i + GRAM - 1][1] else "") + form[i:i + GRAM]
                     for i in range(len(form) - GRAM + 1))


class Space:
    """One question's answers ({key: text}) and the similarity of every two (:meth:`similarities`)."""

    def __init__(self, texts: dict):
        self.keys, self.texts = list(texts), texts
        self.index = {key: i for i, key in enumerate(self.keys)}
        sets = [grams(texts[key]) for key in self.keys]
        vocabulary = {}
        for found in sets:
            for gram in found:
                vocabulary.setdefault(gram, len(vocabulary))
        self._has = np.zeros((len(sets), len(vocabulary)), dtype=np.float32)
        for row, found in enumerate(sets):
            self._has[row, [vocabulary[g] for g in found]] = 1.0
        self._sizes, self._jaccard = self._has.sum(axis=1), None

    def similarities(self, rows, columns) -> np.ndarray:
        """The Jaccard index of every answer of ``rows`` with every one of ``columns`` (keys): (rows, columns)."""
        if self._jaccard is None:
            shared = self._has @ self._has.T
            union = self._sizes[:, None] + self._sizes[None, :] - shared
            self._jaccard = np.where(union > 0, shared / np.where(union > 0, union, 1.0), 1.0)
        return self._jaccard[np.ix_([self.index[k] for k in rows], [self.index[k] for k in columns])]

    def similarity(self, a: str, b: str) -> float:
        return float(self.similarities([a], [b])[0, 0])


def nearest(space, unmarked: list, marked: list, k: int = K) -> dict:
    """{unmarked key: [Neighbour, …]}: the ``k`` most similar marked answers, most similar first (none alike: [])."""
    if not unmarked or not marked:
        return {key: [] for key in unmarked}
    sims = space.similarities(unmarked, marked)
    found = {}
    for row, key in enumerate(unmarked):
        order = np.argsort(-sims[row], kind="stable")[:k]
        found[key] = [Neighbour(marked[j], round(float(sims[row, j]), 4)) for j in order if sims[row, j] > 0]
    return found


def teaching_order(space, unmarked: list, marked: list, sizes: dict, greedy: int = 20) -> list:
    """``unmarked`` keys, the one whose mark teaches most first (module docstring): greedy coverage gain for the
    first ``greedy`` (the page asks again after each mark), then the others by the gain each would bring then."""
    if not unmarked:
        return []
    within = space.similarities(unmarked, unmarked)
    covered = space.similarities(unmarked, marked).max(axis=1) if marked else np.zeros(len(unmarked))
    weight = np.array([sizes.get(key, 1) for key in unmarked], dtype=float)
    order, left = [], np.ones(len(unmarked), dtype=bool)
    for _ in range(min(greedy, len(unmarked))):
        gains = np.where(left, (np.maximum(0.0, within - covered) * weight).sum(axis=1), -1.0)
        best = int(np.argmax(gains))
        order.append(unmarked[best])
        covered, left[best] = np.maximum(covered, within[best]), False
    gains = (np.maximum(0.0, within - covered) * weight).sum(axis=1)
    return order + [unmarked[i] for i in sorted(np.flatnonzero(left), key=lambda i: (-gains[i], i))]


@functools.lru_cache(maxsize=20_000)
def shared_passages(text: str, other: str) -> tuple:
    """The passages of ``text`` that ``other`` holds too, as written in ``text``, longest first (what to highlight)."""
    matcher = difflib.SequenceMatcher(None, text, other, autojunk=False)
    found = []
    for block in matcher.get_matching_blocks():
        passage = text[block.a:block.a + block.size].strip()
        wide = any(unicodedata.east_asian_width(c) in "WF" for c in passage)
        if len(passage) >= SHARED_MIN[0 if wide else 1] and any(c.isalnum() for c in passage):
            found.append(passage)
    return tuple(sorted(set(found), key=lambda p: (-len(p), p)))

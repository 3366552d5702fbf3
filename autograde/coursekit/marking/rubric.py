r"""The marking guide's rubric: key points per written answer, their share of the points, key terms.

It lives in one file the instructor edits, ``<course>/rubrics/<assignment>.toml`` — outside
``source/``, whose every file nbgrader releases to students. One table per answer cell
(its ``grade_id``), one ``[[<grade_id>.points]]`` entry per key point::

    [[q_think1_scale.points]]
    text = "点积的方差约为 head_dim，维度越大分数差距越大"   # shown to the marker and in the feedback
    share = 0.5                                          # part of the cell's points; a cell's shares add up to 1
    terms = ["乘积之和"]                                  # phrases, matched as written (case aside)
    patterns = ['方差[^。]{0,8}约为 *`?head_dim']         # regular expressions (case aside)

A term or pattern found in an answer is a **hint** (:func:`hint`): the page shows the phrase that triggered it
and suggests the point (never saved by itself). A hit under a negation or denied in its clause ("不会接近 1",
"does not change", :mod:`.negation`) is no hint: it says the opposite of the point. A point found only so is
*contradicted*, and the rubric's rule for contradictions applies (:func:`contradiction_cap`, said in one line in the
rubric file's header): a contradicted point is not given, and the answer gets at most :data:`CONTRADICTION_CAP` of
the question. A pattern uses only what Python's ``re`` and the page's
JavaScript ``RegExp`` read alike (no inline flags, named groups, ``\A`` or ``\Z``) and cannot match
nothing. A score is ``points × (sum of the ticked shares)``. Shares are kept as integer
ten-thousandths so that the page's JavaScript and this module add them up to the same number.
A rubric may carry how another language's answers are matched (``en.terms``, ``en.patterns``); with each point's
words in that language from the marking guide's catalogue, :mod:`.rubric_edition` writes another edition's rubric;
this module reads a point's own keys only.
"""
import functools
import pathlib
import re
import tomllib
from dataclasses import dataclass, field

from ..language import Refusal, Worded, marked
from .negation import denial_after, negation_before, negation_within

__all__ = ["RubricError", "Point", "Rubric", "Hit", "Hint", "CONTRADICTION_CAP", "rubric_file", "load_rubrics",
           "score_of", "find_hits", "hits", "suggest", "hint", "contradiction_cap"]

UNIT = 10_000  # shares in ten-thousandths
CONTRADICTION_CAP = 0.25  # the largest share of a question an answer that contradicts a point of it gets


class RubricError(Worded, ValueError):
    """The rubric file is not what :mod:`coursekit.marking.rubric` expects (names the file and the entry): the
    course's to fix, said in the reader's language (:class:`coursekit.language.Worded`; the marking page's 500)."""


@dataclass(frozen=True)
class Point:
    text: str
    share: int                      # ten-thousandths of the cell's points
    terms: tuple = ()
    patterns: tuple = ()            # regular expressions, matched case-insensitively


@dataclass(frozen=True)
class Rubric:
    question: str                   # the answer cell's grade_id
    points: tuple = ()              # Point, in the order the keys 1…9 tick them

    def to_dict(self) -> dict:
        return {"question": self.question, "unit": UNIT,
                "points": [{"text": p.text, "share": p.share, "terms": list(p.terms), "patterns": list(p.patterns)}
                           for p in self.points]}


@dataclass
class Rubrics:
    path: pathlib.Path
    by_question: dict = field(default_factory=dict)   # {grade_id: Rubric}
    missing_file: bool = False


def rubric_file(course, assignment: str) -> pathlib.Path:
    return pathlib.Path(course) / "rubrics" / f"{assignment}.toml"


def _point(path, question, index, entry) -> Point:
    where = f"{path}: [[{question}.points]] #{index + 1}"
    if not isinstance(entry, dict) or not isinstance(entry.get("text"), str) or not entry["text"].strip():
        raise RubricError(marked("rubric.bad_text"), where=where)
    share = entry.get("share")
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise RubricError(marked("rubric.bad_share"), where=where, share=share)
    terms, patterns = entry.get("terms", []), entry.get("patterns", [])
    for name, value in (("terms", terms), ("patterns", patterns)):
        if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
            raise RubricError(marked("rubric.bad_list"), where=where, name=name, value=value)
    for pattern in patterns:
        _check_pattern(where, pattern)
    return Point(entry["text"].strip(), round(share * UNIT), tuple(t.strip() for t in terms), tuple(patterns))


# What Python's re reads one way and the page's JavaScript RegExp another (or not at all).
_NOT_PORTABLE = re.compile(r"\(\?[aiLmsux]|\(\?P|\(\?#|\(\?>|\\[AZ]|[*+?}][+]")


def _check_pattern(where: str, pattern: str) -> None:
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error as error:
        raise RubricError(marked("rubric.bad_pattern"), where=where, pattern=pattern, error=str(error)) from None
    if _NOT_PORTABLE.search(pattern):
        raise RubricError(marked("rubric.unportable_pattern"), where=where, pattern=pattern)
    if compiled.fullmatch(""):
        raise RubricError(marked("rubric.empty_pattern"), where=where, pattern=pattern)


def _rubric(path, question, table) -> Rubric:
    entries = table.get("points") if isinstance(table, dict) else None
    if not isinstance(entries, list) or not entries:
        raise RubricError(marked("rubric.no_points"), path=str(path), question=question)
    if len(entries) > 9:
        raise RubricError(marked("rubric.too_many_points"), path=str(path), question=question, count=len(entries))
    points = tuple(_point(path, question, i, e) for i, e in enumerate(entries))
    total = sum(p.share for p in points)
    if total != UNIT:
        raise RubricError(marked("rubric.shares"), path=str(path), question=question, total=total / UNIT)
    return Rubric(question, points)


def load_rubrics(course, assignment: str, questions=()) -> Rubrics:
    """Every rubric of ``assignment``; a missing file gives an empty :class:`Rubrics` (``missing_file``).

    ``questions`` (grade ids), when given, must contain every table of the file: a typo in a
    grade id would otherwise leave that question without its rubric, silently.
    """
    path = rubric_file(course, assignment)
    if not path.is_file():
        return Rubrics(path, {}, missing_file=True)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise RubricError(marked("rubric.not_toml"), path=str(path), error=str(error)) from None
    unknown = sorted(set(data) - set(questions)) if questions else []
    if unknown:
        raise RubricError(marked("rubric.unknown_question"), path=str(path), unknown=", ".join(unknown),
                          assignment=assignment, questions=", ".join(questions))
    return Rubrics(path, {q: _rubric(path, q, t) for q, t in data.items()})


def score_of(rubric: Rubric, ticked, max_score: float) -> float:
    """The score of the ticked points (``ticked``: one bool per point)."""
    if len(ticked) != len(rubric.points):
        raise Refusal(marked("refused.tick_count"), question=rubric.question, ticks=len(ticked),
                      points=len(rubric.points))
    shares = sum(p.share for p, tick in zip(rubric.points, ticked) if tick)
    return round(max_score * shares / UNIT, 4)


@functools.lru_cache(maxsize=None)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.IGNORECASE)


@dataclass(frozen=True)
class Hit:
    point: int          # the rubric point's index
    phrase: str         # the answer's words that matched a term or pattern
    start: int
    negation: str = ""  # the cue or verdict that says the opposite (不会, not, 是错的 …); "" for an affirmed hit

    def to_dict(self) -> dict:
        return {"point": self.point, "phrase": self.phrase, "negation": self.negation}


def _matches(point: Point, text: str):
    """``(start, phrase, inner negation)`` of every term and pattern of ``point`` in ``text``."""
    folded = text.lower()
    for term in point.terms:
        at = folded.find(term.lower())
        while at != -1:
            yield at, text[at:at + len(term)], ""   # a cue inside a term is the term's own word (参数量不变)
            at = folded.find(term.lower(), at + 1)
    for pattern in point.patterns:
        for match in _compiled(pattern).finditer(text):
            if match.group(0):
                yield match.start(), match.group(0), negation_within(text, match.start(), match.end(), pattern) or ""


def find_hits(rubric: Rubric, text: str) -> list:
    """Every term or pattern of ``rubric`` found in ``text``, as :class:`Hit` s in the answer's order, each saying
    whether a negation or a denial in its clause turns it round (:mod:`.negation`)."""
    text, found = text or "", {}
    for index, point in enumerate(rubric.points):
        for start, phrase, inside in _matches(point, text):
            turned = inside or negation_before(text, start) or denial_after(text, start + len(phrase)) or ""
            found.setdefault((index, start), Hit(index, phrase, start, turned))
    return sorted(found.values(), key=lambda h: (h.start, h.point))


def hits(point: Point, text: str) -> bool:
    """Does ``text`` affirm the point: one of its terms or patterns found (case-insensitive), not under a negation?"""
    return any(h.point == 0 and not h.negation for h in find_hits(Rubric("", (point,)), text))


def suggest(rubric: Rubric, text: str) -> list:
    """One bool per point: is it suggested for ``text`` (affirmed, :func:`hits`, under the rule for contradictions)?
    A hint, never saved by itself."""
    return list(hint(rubric, text).ticks)


@dataclass(frozen=True)
class Hint:
    found: tuple                # one bool per point: affirmed by a hit
    contradicted: tuple         # one bool per point: found only under a negation or a denial
    ticks: tuple                # what it suggests: the affirmed points, the rule for contradictions applied
    hits: tuple = ()            # every Hit, affirmed or not (the page shows each phrase)

    def to_dict(self) -> dict:
        return {"ticks": list(self.ticks), "contradicted": [i for i, c in enumerate(self.contradicted) if c],
                "hits": [h.to_dict() for h in self.hits]}


@functools.lru_cache(maxsize=20_000)
def hint(rubric: Rubric, text: str) -> Hint:
    """What the rubric's terms and patterns find in ``text`` (:class:`Hint`)."""
    found = find_hits(rubric, text)
    affirmed = tuple(any(h.point == i and not h.negation for h in found) for i in range(len(rubric.points)))
    turned = tuple(not affirmed[i] and any(h.point == i for h in found) for i in range(len(rubric.points)))
    return Hint(affirmed, turned, contradiction_cap(rubric, affirmed, any(turned)), tuple(found))


def contradiction_cap(rubric: Rubric, ticks, contradicts: bool) -> tuple:
    """``ticks`` under the rubric's rule for an answer that contradicts one of its points: the smallest ticked points
    kept while they add up to at most :data:`CONTRADICTION_CAP` of the question, the others dropped."""
    ticks = tuple(bool(t) for t in ticks)
    if not contradicts:
        return ticks
    kept, total = [False] * len(ticks), 0
    for index in sorted((i for i, t in enumerate(ticks) if t), key=lambda i: (rubric.points[i].share, i)):
        if total + rubric.points[index].share <= CONTRADICTION_CAP * UNIT:
            kept[index], total = True, total + rubric.points[index].share
    return tuple(kept)

"""Which words of an answer stand under a negation: "不会接近 1" is not "接近 1", "does not change" not "changes".

A written answer is cut into clauses at sentence and clause punctuation (。；，：, ; : ! ?, a full stop before a space,
line breaks) and before
the words that turn an argument round (但 / 但是 / 可是 / 然而; but / however / although / whereas / yet). Inside a
clause, a **negation cue** scopes over what follows it: 不 / 没(有) / 并非 / 未必 / 无法 …, not / no / never / n't /
cannot / rather than / instead of …. A phrase after a cue in its clause is *negated* (:func:`negation_before`); one
followed in its clause by a verdict such as 是错的 / 不成立 / "is wrong" / "is not true" is *denied*
(:func:`denial_after`).

What is not a negation, though it looks like one: words that merely hold the character (不同, 不仅, 差不多, 未来,
无论, 不过是 …), "not only" / "no matter", and a cue that only states a condition (不缩放时 …, 没有缩放的话 …,
"if it is not scaled …", "when … not …"): the condition does not deny the clause it opens.

Used by the rubric's hints (:mod:`.rubric`) and by the similarity of answers (:mod:`.neighbours`), which keeps a
negated phrase apart from the same phrase affirmed.
"""
import bisect
import functools
import re
from dataclasses import dataclass

__all__ = ["Clause", "clauses", "negation_before", "negation_within", "denial_after", "negated_spans"]

# Where one clause ends: punctuation, and the words that turn an argument round (kept with the clause they open).
_BOUNDARY = re.compile(r"[。；;！!？?\n，,：:]|\.(?=\s|$)|(?<![A-Za-z])(?:but|however|although|though|whereas|yet)(?![A-Za-z])"
                       r"|但是|但|可是|然而", re.IGNORECASE)
# Negation cues. Chinese: 不 and 没 unless part of a word that is no negation; English: whole words.
_NOT_A_CUE_ZH = ("不同", "不管", "不论", "不仅", "不只", "不但", "不断", "不少", "不久", "不过", "差不多", "不一定是",
                 "了不起", "不得不", "不光")
_CUE = re.compile(r"并非|并不|并没有?|不是|不会|不能|不再|不必|未必|未曾|尚未|并未|未能|未被|无法|毫无|并无|从不|绝不|而不是|"
                  r"没有|没|不"
                  r"|(?<![A-Za-z])(?:not|no|never|cannot|neither|nor|none|hardly|rather than|instead of)(?![A-Za-z])"
                  r"|n[’']t(?![A-Za-z])", re.IGNORECASE)
_NOT_A_CUE_EN = re.compile(r"\b(?:not only|not just|no matter|no longer than)\b", re.IGNORECASE)
# A cue that only states a condition: the condition's end (时 / 的话 …) comes before the phrase in question.
_CONDITION_END_ZH = re.compile(r"(?<![同及随有按暂准])时|的话|以前|之前")
_CONDITION_START_EN = re.compile(r"\b(?:if|when|whenever|unless|once|while|as long as)\b", re.IGNORECASE)
# A verdict after a claim, in the claim's clause: the claim is denied.
_DENIAL = re.compile(r"是错的|是错误的|错了|不对|不成立|并不成立|是误解|不正确|站不住|"
                     r"\b(?:is|are) (?:wrong|false|incorrect|a myth|a misconception|not true|not the case)\b|"
                     r"\bisn't (?:true|the case)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int


@functools.lru_cache(maxsize=20_000)
def _bounds(text: str) -> tuple:
    """The start offsets of the clauses of ``text`` (the first is 0)."""
    return (0, *(m.start() if m.group(0)[0].isalpha() else m.end() for m in _BOUNDARY.finditer(text)))


def clauses(text: str) -> list:
    """The clauses of ``text``, in order (:class:`Clause` s; blank stretches between them left out)."""
    starts = sorted(set(_bounds(text)))
    return [Clause(a, b) for a, b in zip(starts, [*starts[1:], len(text)]) if text[a:b].strip()]


def _clause_of(text: str, index: int) -> Clause:
    starts = sorted(set(_bounds(text)))
    at = bisect.bisect_right(starts, index) - 1
    return Clause(starts[at], starts[at + 1] if at + 1 < len(starts) else len(text))


def _is_cue(text: str, match: re.Match) -> bool:
    if match.group(0)[0].isascii():
        return not any(m.start() <= match.start() < m.end() for m in _NOT_A_CUE_EN.finditer(text))
    at = match.start()
    for word in _NOT_A_CUE_ZH:
        found = text.find(word, max(0, at - len(word) + 1), at + len(word))
        if found != -1 and found <= at < found + len(word):
            return False
    return True


def _only_a_condition(text: str, clause_start: int, cue: re.Match, phrase_start: int) -> bool:
    if cue.group(0)[0].isascii():
        return bool(_CONDITION_START_EN.search(text, clause_start, cue.start()))
    return bool(_CONDITION_END_ZH.search(text, cue.end(), phrase_start))


def negation_before(text: str, start: int) -> str | None:
    """The negation cue scoping over the phrase at ``text[start:]`` (in its clause, before it), or None."""
    clause = _clause_of(text, start)
    for cue in _CUE.finditer(text, clause.start, start):
        if _is_cue(text, cue) and not _only_a_condition(text, clause.start, cue, start):
            return cue.group(0)
    return None


def negation_within(text: str, start: int, end: int, written: str = "") -> str | None:
    """A negation cue inside ``text[start:end]`` (a pattern's match that spans a gap), unless the cue is written in
    ``written`` (the pattern itself: "does not depend" says "not" on purpose), or None."""
    for cue in _CUE.finditer(text, start, end):
        if cue.group(0).lower() not in written.lower() and _is_cue(text, cue) \
                and not _only_a_condition(text, _clause_of(text, cue.start()).start, cue, end):
            return cue.group(0)
    return None


def denial_after(text: str, end: int) -> str | None:
    """A verdict after the phrase ending at ``end`` that denies it (是错的, "is not true" …) in its clause, or None."""
    clause = _clause_of(text, max(0, end - 1))
    found = _DENIAL.search(text, end, clause.end)
    return found.group(0) if found else None


def negated_spans(text: str) -> list:
    """``(start, end)`` of every stretch of ``text`` under a negation cue: from the cue's end to its clause's end."""
    spans = []
    for clause in clauses(text):
        for cue in _CUE.finditer(text, clause.start, clause.end):
            if _is_cue(text, cue) and not _only_a_condition(text, clause.start, cue, clause.end):
                if cue.end() < clause.end:
                    spans.append((cue.end(), clause.end))
                break
    return spans

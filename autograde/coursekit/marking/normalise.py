"""What counts as "the same answer": text normalised for comparison, and the untouched release stub.

Two answers are the same when they differ only in whitespace, punctuation, letter case or the
width of their characters (full-width ``，（Ａ）`` against half-width ``,(A)``): NFKC folds the
widths, then every whitespace, punctuation and symbol character is dropped. Digits, letters, CJK
characters and the maths symbols that carry meaning in this chapter (``√``, ``×``, ``=``…) stay,
since ``4 × 64²`` and ``4 + 64`` are different answers.
"""
import functools
import unicodedata

__all__ = ["normalise", "is_unanswered"]

# Symbols that change what an answer says; every other punctuation/symbol is formatting.
_MEANINGFUL = set("+-−×*/÷=<>≤≥≈≠√^²³·∑∞%")


def _kept(char: str) -> bool:
    if char in _MEANINGFUL:
        return True
    category = unicodedata.category(char)
    return not (category[0] in "PSZC")  # punctuation, symbols, separators (spaces), control/format


@functools.lru_cache(maxsize=50_000)
def normalise(text: str) -> str:
    """``text`` as compared for grouping: NFKC, lower case, no whitespace or formatting punctuation."""
    folded = unicodedata.normalize("NFKC", text or "").lower()
    return "".join(char for char in folded if _kept(char))


def is_unanswered(text: str, stub: str) -> bool:
    """Is ``text`` empty or the release stub (``在这里写你的回答。``), up to normalisation?"""
    key = normalise(text)
    return key == "" or key == normalise(stub)

"""Fingerprints of what a student wrote, and the regions two students share: copydetect's, over code and text.

Only what the student wrote counts: the lines the release gave in the cell (its stub, its given code or
text) are taken out first (:func:`own_part`). **Code** is then tokenised by copydetect (pygments): every
name becomes ``V``, a function's name ``F``, a string ``S``; comments and whitespace are dropped. Renamed
variables, other comments and other spacing leave the tokens as they were. **Text** (a written answer) is
first brought to one form: NFKC (full- and half-width characters alike), case folded, only letters and
digits kept (a Chinese character is a letter), so punctuation and spacing count for nothing; its
fingerprints are k-grams of *characters*, which works alike for Chinese, written without spaces, and English.

A fingerprint is the hash of a k-gram (copydetect's ``get_document_fingerprints``). Its winnowing window is 1:
every k-gram is kept. An answer is a few hundred tokens, so keeping all costs nothing, and copydetect hashes
with Python's ``hash``, salted anew in each process: a wider window would keep other k-grams in every run,
and the scores would change between two runs of ``make report``.
"""
import html
import io
import unicodedata
from collections import Counter

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import highlight_overlap

from ..sanitise import clean
from .solutions import CODE

__all__ = ["K_CODE", "K_TEXT", "MARK", "own_part", "normalised", "fingerprint", "highlighted"]

K_CODE = 8    # characters of copydetect's filtered code (a name is one): half a short line
K_TEXT = 5    # characters of normalised text: a Chinese phrase, or an English word and a half
MARK = ("<mark>", "</mark>")


def own_part(source: str, released: str) -> tuple:
    """``(text, where)``: ``source`` without the lines the release gave in this cell (each given line once: the
    stub, the given code or text), and for each character of ``text`` the index in ``source`` it came from."""
    given = Counter(line.strip() for line in released.splitlines() if line.strip())
    kept, where, start = [], [], 0
    for line in source.splitlines(keepends=True):
        if line.strip() and given[line.strip()] > 0:
            given[line.strip()] -= 1
        else:
            kept.append(line)
            where.extend(range(start, start + len(line)))
        start += len(line)
    return "".join(kept), where


def normalised(text: str) -> tuple:
    """``(form, where)``: ``text`` as it is fingerprinted (module docstring), and for each character of that form
    the index in ``text`` it came from."""
    chars, where = [], []
    for index, char in enumerate(text):
        for kept in unicodedata.normalize("NFKC", char).casefold():
            if kept.isalnum():
                chars.append(kept)
                where.append(index)
    return "".join(chars), where


def _form(source: str, kind: str, released: str) -> tuple:
    """``(form, where)``: what is fingerprinted of a cell, and where each of its characters lies in ``source``."""
    own, where = own_part(source, released)
    if kind == CODE:
        return own, where
    form, inner = normalised(own)
    return form, [where[i] for i in inner]


def fingerprint(source: str, kind: str, language: str = "python", ignored=(), released: str = "") -> CodeFingerprint:
    """copydetect's fingerprint of a cell of ``kind`` (code in ``language``, or text) without the lines of its
    ``released`` version, and without the hashes in ``ignored`` (its boilerplate)."""
    form = _form(source, kind, released)[0]
    boilerplate = np.fromiter(ignored, dtype=np.int64) if len(ignored) else None
    if kind == CODE:
        return CodeFingerprint("cell", K_CODE, 1, boilerplate, language=language, fp=io.StringIO(form))
    return CodeFingerprint("answer", K_TEXT, 1, boilerplate, filter=False, fp=io.StringIO(form))


def _marked(text: str, slices) -> str:
    """``text`` as HTML with ``slices`` (copydetect's 2×N array of starts and ends) in ``<mark>``: copydetect escapes
    and marks, the course's allow-list checks what it built (:func:`coursekit.sanitise.clean`)."""
    if not np.size(slices):
        return html.escape(text)
    return clean(highlight_overlap(text, slices, *MARK, escape_html=True)[0])


def _mapped(slices, where: list) -> np.ndarray:
    """copydetect's slices of a cell's fingerprinted form as slices of the cell's source (``where``: :func:`_form`)."""
    if not len(slices) or not np.size(slices[0]):
        return np.zeros((2, 0), dtype=np.int64)
    starts, ends = np.asarray(slices, dtype=np.int64)
    return np.array([[where[s] for s in starts], [where[e - 1] + 1 for e in ends]], dtype=np.int64)


def highlighted(first: str, second: str, kind: str, ignored: frozenset, language: str = "python",
                released: str = "") -> tuple:
    """Both versions of a cell as HTML, what they share in ``<mark>``: beyond the ``released`` cell's own lines
    and the ``ignored`` hashes (what the release gave elsewhere; the class's common ground)."""
    one, two = (fingerprint(source, kind, language, (), released) for source in (first, second))
    noise = ignored & (one.hashes | two.hashes)
    one, two = (fingerprint(source, kind, language, noise, released) for source in (first, second))
    slices = compare_files(one, two)[2]
    return tuple(_marked(source, _mapped(part, _form(source, kind, released)[1]))
                 for source, part in zip((first, second), slices))

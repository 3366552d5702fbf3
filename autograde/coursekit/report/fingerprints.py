"""Fingerprints of what a student wrote, and the regions two students share: copydetect's, over code and text.

Only what the student wrote counts: the lines the release gave in the cell (its stub, its given code or
text) are taken out first (:func:`own_part`), and from code the statements without effect (``_ = 0``,
``pass``, a bare constant or docstring: :mod:`.statements`), so junk lines neither dilute a copy nor break
its runs of tokens. What lies wholly in statements the release spells out is told apart (:func:`fingerprints`).
**Code** is then tokenised by copydetect (pygments): every
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
from .statements import spans

__all__ = ["K_CODE", "K_TEXT", "MARK", "own_part", "normalised", "fingerprint", "fingerprints", "highlighted"]

K_CODE = 8    # characters of copydetect's filtered code (a name is one): half a short line
K_TEXT = 5    # characters of normalised text: a Chinese phrase, or an English word and a half
MARK = ("<mark>", "</mark>")


def own_part(source: str, released: str, dropped=()) -> tuple:
    """``(text, where)``: ``source`` without the lines the release gave in this cell (each given line once: the
    stub, the given code or text) and without the ``dropped`` spans (``(start, end)`` indexes, in order), and for
    each character of ``text`` the index in ``source`` it came from."""
    given = Counter(line.strip() for line in released.splitlines() if line.strip())
    pieces, start = [], 0  # (start, end) of what is kept, in order
    for line in source.splitlines(keepends=True):
        if line.strip() and given[line.strip()] > 0:
            given[line.strip()] -= 1
        else:
            pieces.append((start, start + len(line)))
        start += len(line)
    for cut_start, cut_end in dropped:
        pieces = [part for begin, end in pieces
                  for part in ((begin, min(end, cut_start)), (max(begin, cut_end), end)) if part[0] < part[1]]
    text = "".join(source[begin:end] for begin, end in pieces)
    return text, [index for begin, end in pieces for index in range(begin, end)]


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
    if kind == CODE:  # without its leading newlines, which pygments drops: copydetect's offsets count from there
        own, where = own_part(source, released, spans(source))
        lead = len(own) - len(own.lstrip("\n"))
        return own[lead:], where[lead:]
    own, where = own_part(source, released)
    form, inner = normalised(own)
    return form, [where[i] for i in inner]


def _copydetect(form: str, kind: str, language: str, ignored=()) -> CodeFingerprint:
    boilerplate = np.fromiter(ignored, dtype=np.int64) if len(ignored) else None
    if kind == CODE:
        return CodeFingerprint("cell", K_CODE, 1, boilerplate, language=language, fp=io.StringIO(form))
    return CodeFingerprint("answer", K_TEXT, 1, boilerplate, filter=False, fp=io.StringIO(form))


def fingerprint(source: str, kind: str, language: str = "python", ignored=(), released: str = "") -> CodeFingerprint:
    """copydetect's fingerprint of a cell of ``kind`` (code in ``language``, or text) without the lines of its
    ``released`` version and (code) its statements without effect, and without the hashes in ``ignored`` (its
    boilerplate)."""
    return _copydetect(_form(source, kind, released)[0], kind, language, ignored)


def _spelled(found: CodeFingerprint, form: str, where: list, ground_spans) -> frozenset:
    """The hashes of ``found`` (a code cell's fingerprint of ``form``) whose k-gram lies wholly in ``ground_spans``
    of the cell's source (``where``: :func:`_form`), read off copydetect's own tokens and their offsets."""
    filtered = found.filtered_code
    if not ground_spans or len(filtered) < K_CODE:
        return frozenset()
    inside = np.zeros(max(where, default=0) + 1, dtype=bool)
    for start, end in ground_spans:
        inside[start:min(end, len(inside))] = True
    # copydetect's table, in the order it wrote it (its first row a placeholder): at each token it shortened or
    # dropped, where in the filtered code and how many characters it had removed before; a character's offset is
    # that of the first row at or after it. The last row: all it removed.
    table = np.vstack([np.reshape(found.offsets, (-1, 2))[1:], [[len(filtered), len(form) - len(filtered)]]])
    at = np.arange(len(filtered))
    at = at + table[:, 1][np.searchsorted(table[:, 0], at)]
    outside = ~inside[np.asarray(where)[np.clip(at, 0, len(where) - 1)]]
    count = np.concatenate([[0], np.cumsum(outside)])
    whole = np.flatnonzero(count[K_CODE:] == count[:-K_CODE])  # k-grams with no character outside
    return frozenset(hash(filtered[p:p + K_CODE]) for p in whole)


def fingerprints(source: str, kind: str, language: str = "python", released: str = "", ground=None) -> tuple:
    """``(work, spelled)``: the hashes of :func:`fingerprint`, and (code, given ``ground``, a
    :class:`.statements.Ground`) those of them that lie wholly in statements the release spells out; runs that
    reach into the student's own lines are not among those."""
    form, where = _form(source, kind, released)
    found = _copydetect(form, kind, language)
    if kind != CODE or ground is None:
        return frozenset(found.hashes), frozenset()
    return frozenset(found.hashes), _spelled(found, form, where, spans(source, ground))


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
                released: str = "", ground=None) -> tuple:
    """Both versions of a cell as HTML, what they share in ``<mark>``: beyond the ``released`` cell's own lines,
    the statements the release spells out (``ground``) and the ``ignored`` hashes (what the release gave
    elsewhere; the class's common ground)."""
    (one, spelled_one), (two, spelled_two) = (fingerprints(source, kind, language, released, ground)
                                              for source in (first, second))
    noise = (ignored | spelled_one | spelled_two) & (one | two)
    one, two = (fingerprint(source, kind, language, noise, released) for source in (first, second))
    slices = compare_files(one, two)[2]
    return tuple(_marked(source, _mapped(part, _form(source, kind, released)[1]))
                 for source, part in zip((first, second), slices))

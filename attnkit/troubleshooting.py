"""§4.10's troubleshooting table as data: each row's symptom and the verify lines it FAILs.

The chapter's table (cell ``s410-troubleshooting``, written by hand in each edition) has one row per
kind of mistake: the symptom a student reads (:func:`symptom`, the first column, code marks
dropped) and the FAIL lines that kind of mistake makes verify print (:data:`ROWS`: verify's check
numbers, 1-22). tests/unit/test_chapter_text.py holds the prose to this table in both editions.

:func:`row_of` answers which row a set of lab functions belongs to, by running verify on them
silently: the row whose FAIL lines are exactly the ones verify prints (two rows FAIL the same
lines and differ only in the row sums verify prints: :attr:`Row.zero_sums`). The diagnosis
(:mod:`attnkit.diagnose`) names that row, and only that row (:func:`pointer`). Numpy only.
"""
import contextlib
import io
import re
import warnings
from dataclasses import dataclass

import numpy as np

from . import lab, verify
from .language import WORDS, marked

__all__ = ["SYMPTOMS", "symptom", "Row", "ROWS", "row_of", "stage_row", "pointer", "stage_pointer"]

# The symptom column, one entry per row, in the chapter's words (code marks dropped), by edition.
# The symptom column, one entry per row, in the chapter's words (code marks dropped): a message per row.
SYMPTOMS = {
    "scores_scale": marked("troubleshooting.scores_scale"),
    "scores_unwritten": marked("troubleshooting.scores_unwritten"),
    "scores_return": marked("troubleshooting.scores_return"),
    "mask": marked("troubleshooting.mask"),
    "softmax_zeros": marked("troubleshooting.softmax_zeros"),
    "softmax_sum": marked("troubleshooting.softmax_sum"),
    "softmax_axis": marked("troubleshooting.softmax_axis"),
    "softmax_whole": marked("troubleshooting.softmax_whole"),
    "softmax_nan": marked("troubleshooting.softmax_nan"),
    "pipeline": marked("troubleshooting.pipeline"),
    "verify_blind": marked("troubleshooting.verify_blind"),
}


def symptom(key: str, lang: str) -> str:
    """Row ``key``'s symptom as the edition in ``lang`` writes it in its table's first column."""
    return WORDS.say(lang, SYMPTOMS[key])


@dataclass(frozen=True)
class Row:
    """One row of the table: the check numbers verify FAILs for it, and (for the two rows that FAIL the same
    lines) whether the row sums verify prints in TEST 3 are all 0."""
    key: str
    fails: frozenset
    zero_sums: bool | None = None


ROWS = (
    Row("scores_scale", frozenset({3, 6})),
    Row("scores_unwritten", frozenset({3, 6, 8})),
    Row("scores_return", frozenset({1, 7, 20})),
    Row("mask", frozenset({11, 12, 14, 22})),
    Row("softmax_zeros", frozenset({16, 17, 18, 19, 21}), zero_sums=True),
    Row("softmax_sum", frozenset({16, 17, 18, 19, 21}), zero_sums=False),
    Row("softmax_axis", frozenset({17, 18, 19, 21})),
    Row("softmax_whole", frozenset({16, 21})),
    Row("softmax_nan", frozenset({21})),
    Row("pipeline", frozenset({22})),
    Row("verify_blind", frozenset()),
)
_SUM = re.compile(r"row \d+ sum = (\S+)")

def pointer(key: str, lang: str) -> str:
    """How a message points at a row: by the symptom the student reads there."""
    return WORDS.say(lang, "troubleshooting.row", symptom=symptom(key, lang))


def stage_pointer(stage: str, lang: str) -> str:
    """A pointer at every row whose "Check first" column names the stage's function."""
    return WORDS.say(lang, "troubleshooting.rows_of", role=lab.ROLE[stage])


def _zero_sums(report) -> bool:
    """Are the row sums TEST 3 printed all 0 (nothing written), rather than some other number?"""
    sums = [m.group(1) for note in report.tests[2].notes for m in _SUM.finditer(note)]
    return bool(sums) and all(s.lstrip("-") == "0.000000" for s in sums)


def _quiet_report(fns: tuple):
    """verify on ``fns``, printing nothing (nor anything a student function prints or warns)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return verify.run_all(*fns, file=io.StringIO(), lang="en")


def row_of(fns: tuple) -> str | None:
    """The key of the row whose FAIL lines are exactly what verify prints for ``fns`` (None: no row)."""
    report = _quiet_report(fns)
    fails = frozenset(c.number for c in report.checks if not c.passed)
    zero = _zero_sums(report)
    return next((r.key for r in ROWS if r.fails == fails and r.zero_sums in (None, zero)), None)


def stage_row(stage: str, fn) -> str | None:
    """The row of ``fn`` as the only mistake: the lab's reference for the two other stages."""
    fns = tuple(fn if s == stage else ref for s, ref in zip(lab.STAGES, lab.REFERENCE))
    return row_of(fns)

"""§4.10's troubleshooting table as data: each row's symptom and the verify lines it FAILs.

The chapter's table (cell ``s410-troubleshooting``, written by hand in each edition) has one row per
kind of mistake: the symptom a student reads (:data:`TABLE_ROW`, the first column, code marks
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
from .glossary import term

__all__ = ["TABLE_ROW", "Row", "ROWS", "row_of", "stage_row", "pointer", "stage_pointer"]

# The symptom column, one entry per row, in the chapter's words (code marks dropped), by edition.
TABLE_ROW = {
    "zh": {
        "scores_scale": "对角线上的 0.5 不对，I @ I 却对了",
        "scores_unwritten": "对角线全不对，连 I @ I 也不对",
        "scores_return": "三个「调用成功」都 FAIL，数值却对",
        "mask": "上三角没有变成 -1e9",
        "softmax_zeros": "softmax 的结果全是 0",
        "softmax_sum": "每行的和不是 1，也不是 0",
        "softmax_axis": "[1,1,1] 不是 1/3，全 0 那一项却 PASS",
        "softmax_whole": "全 0 那一项 FAIL，[1,1,1] 三项却 PASS",
        "softmax_nan": "TEST 1–3 全 PASS，TEST 4 的行和是 nan",
        "pipeline": "TEST 1–3 全 PASS，TEST 4 的上三角不是 0",
        "verify_blind": "22 项全 PASS，诊断格子却有发现",
    },
    "en": {
        "scores_scale": "The 0.5 on the diagonal is wrong, but I @ I is right",
        "scores_unwritten": "The whole diagonal is wrong, I @ I included",
        "scores_return": "The three success checks FAIL, but the values are right",
        "mask": "The upper triangle did not become -1e9",
        "softmax_zeros": "softmax gives all zeros",
        "softmax_sum": "Rows sum to neither 1 nor 0",
        "softmax_axis": "[1,1,1] does not give 1/3, but the all-zero line PASSes",
        "softmax_whole": "The all-zero line FAILs, but the three [1,1,1] lines PASS",
        "softmax_nan": "TEST 1–3 all PASS, but TEST 4's row sums are nan",
        "pipeline": "TEST 1–3 all PASS, but TEST 4's upper triangle is not 0",
        "verify_blind": "All 22 PASS, but the diagnosis cell finds something",
    },
}


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

# How a message points at one row, and at the rows of one function when no single row fits.
_POINTER = {
    "zh": ("排查表“{symptom}”这一行", "排查表里「先检查」一栏写着 {role} 的几行"),
    "en": ("the {table}'s row \"{symptom}\"", "the rows of the {table} whose \"Check first\" column names {role}"),
}


def pointer(key: str, lang: str) -> str:
    """How a message points at a row: by the symptom the student reads there."""
    return _POINTER[lang][0].format(symptom=TABLE_ROW[lang][key], table=term("table", lang))


def stage_pointer(stage: str, lang: str) -> str:
    """A pointer at every row whose "Check first" column names the stage's function."""
    return _POINTER[lang][1].format(role=lab.ROLE[stage], table=term("table", lang))


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

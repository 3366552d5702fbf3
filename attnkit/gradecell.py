"""What the chapter's four graded test cells show a student before submitting.

Each test cell calls :func:`run` with its TEST number and the student functions it grades:
the lab's TEST n runs exactly as in ``verify.c`` (its lines printed), the visible score is
``points × passed / total``, and when the diagnosis (:mod:`attnkit.diagnose`) finds the
function wrong on inputs verify never uses, a warning says so right under the score, so
that a full verify does not promise full marks; under nbgrader's Validate the warning also goes to stderr, which
makes Validate report the cell as failed with it (never "Success!" beside a warning). Under grading the course's grader
(instructor-only, ``autograde/grader``) runs in a process of its own, calls these functions from
there, adds its hidden checks, and the cell shows the grader's verdict instead (:data:`GRADED`). Everything is printed in the chapter's language (``lang``, default the
notebook's: :mod:`attnkit.language`).

:data:`TEST_CELLS` is the one place for each cell's grade id, stages and points; the
master notebook's nbgrader metadata and the README are checked against it.
"""
import contextlib
import io
import json
import os
import sys
from dataclasses import dataclass

from coursekit.environ import GRADED

from . import verify
from .lab import ROLE, STAGES
from .language import resolve
from .static import validating

__all__ = ["TestCell", "TEST_CELLS", "cell", "run"]


@dataclass(frozen=True)
class TestCell:
    """One graded test cell: its TEST, nbgrader grade id, points, stages, and what hidden checks add."""
    number: int
    grade_id: str
    points: float
    stages: tuple
    hidden_topics: dict  # {language: what the hidden checks feed, in a few words}

    @property
    def roles(self) -> tuple:
        return tuple(ROLE[stage] for stage in self.stages)

    def topics(self, lang: str | None = None) -> str:
        return self.hidden_topics[resolve(lang)]


TEST_CELLS = (
    TestCell(1, "test1_scores", 4.0, ("scores",), {
        "zh": "不对称的随机 Q、K，seq_q ≠ seq_k，其它 head_dim、scale 和 dtype，以及非法输入",
        "en": "random, unsymmetric Q and K, seq_q ≠ seq_k, other head_dims, scales and dtypes, and invalid input"}),
    TestCell(2, "test2_mask", 3.0, ("mask",), {
        "zh": "随机的 scores、任意的加性掩码、不同 dtype、数组切片上的原地修改等",
        "en": "random scores, any additive mask, other dtypes, writing in place into a slice of a larger array"}),
    TestCell(3, "test3_softmax", 3.0, ("softmax",), {
        "zh": "随机输入、很大的 logits、被 -1e9 屏蔽的行、1-D 与 3-D 输入、不修改 inp 等",
        "en": "random input, very large logits, rows masked with -1e9, 1-D and 3-D input, leaving inp unchanged"}),
    TestCell(4, "test4_end_to_end", 2.0, STAGES, {
        "zh": "随机 Q≠K 配因果掩码、padding 掩码与 seq_q ≠ seq_k、很大的分数、整行被屏蔽、多头切片",
        "en": "random Q ≠ K with a causal mask, a padding mask with seq_q ≠ seq_k, very large scores, "
              "a fully masked row, slices of several heads"}),
)

# What a test cell prints under verify's lines, by language: the same keys, the same placeholders.
TEXT = {
    "zh": {
        "note": "\n说明：上面 {total} 项与 C 实验的 verify 完全相同。提交后评分时，这里还会追加隐藏检查："
                "{topics}。本格满分 {points:g} 分，得分 = {points:g} × 通过项数 / 总项数。",
        "warning": "\n注意：自动诊断发现 {role} 在 verify 没有用到的输入上出错。\n"
                   "  {first}\n"
                   "verify 全部通过也不代表满分：提交后的隐藏检查会用这类输入，很可能扣分。详见下面的「自动诊断」一节。",
    },
    "en": {
        "note": "\nNote: the {total} lines above are the same checks as the C lab's verify. When your work is graded after "
                "submitting, hidden checks are added here: {topics}. This cell is worth {points:g} points; "
                "score = {points:g} × lines passed / all lines.",
        "warning": "\nWarning: the diagnosis finds {role} wrong on inputs verify does not use.\n"
                   "  {first}\n"
                   "Passing all of verify does not mean full marks: the hidden checks after submitting use such "
                   "inputs and will likely take points off. See the \"Diagnosis\" section below.",
    },
}


def cell(number: int) -> TestCell:
    """The test cell of TEST ``number`` (1-4)."""
    if number not in range(1, len(TEST_CELLS) + 1):
        raise ValueError(f"TEST number must be 1-{len(TEST_CELLS)}, got {number!r}")
    return TEST_CELLS[number - 1]



def run(number: int, *fns, lang: str | None = None) -> float:
    """Print TEST ``number`` as verify does, the note and any warning; return the visible score.

    Under grading the grader (a process of its own) has already graded the cell, hidden checks
    included: the cell shows its verdict and returns its score instead.
    """
    graded = os.environ.get(GRADED)
    if graded:
        verdict = json.loads(graded)
        print(verdict["text"], end="")
        return float(verdict["points"])
    text, report, warning = _shown(number, fns, lang)
    print(text + warning, end="")
    if warning and validating():  # nbgrader's Validate fails a cell that writes stderr, and shows what it wrote
        print(warning.strip(), file=sys.stderr)
    return round(cell(number).points * report.passed / report.total, 2)


def render(number: int, fns: tuple, lang: str | None = None):
    """``(what the test cell shows, verify's report)``: TEST ``number`` as verify prints it, the note about the
    hidden checks and the diagnosis's warning, if any."""
    text, report, warning = _shown(number, fns, lang)
    return text + warning, report


def _shown(number: int, fns: tuple, lang: str | None):
    """``(verify's lines and the note, verify's report, the diagnosis's warning or "")``."""
    test, lang = cell(number), resolve(lang)
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(shown):  # a test cell must not write stderr
        report = getattr(verify, f"run_test{number}")(*fns, lang=lang)
        print(TEXT[lang]["note"].format(total=report.total, topics=test.topics(lang), points=test.points))
        warning = _warning(test, fns, lang)
    return shown.getvalue(), report, warning + "\n" if warning else ""


def _warning(test: TestCell, fns: tuple, lang: str) -> str:
    """The diagnosis of this cell's functions, as a warning under the score ('' when nothing is found)."""
    from .diagnose import diagnose, diagnose_stage, format_findings  # numpy-only callers of this module never need it

    if len(test.stages) > 1:
        findings = diagnose(*fns)
        return "" if not findings else "\n" + format_findings(findings, lang)
    findings = diagnose_stage(test.stages[0], fns[0])
    if not findings:
        return ""
    first = findings[0].text(lang).splitlines()[0]  # in words: the finding's id is for the instructor's report
    return TEXT[lang]["warning"].format(role=test.roles[0], first=first)

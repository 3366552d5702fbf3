"""What the chapter's four graded test cells show a student before submitting.

Each test cell calls :func:`run` with its TEST number and the student functions it grades:
the lab's TEST n runs exactly as in ``verify.c`` (its lines printed), the visible score is
``points × passed / total``, and when the diagnosis (:mod:`attnkit.diagnose`) finds the
function wrong on inputs verify never uses, a warning says so right under the score, so
that a full verify does not promise full marks. Under nbgrader the hidden region of the
same cell then runs the course's grader (instructor-only, ``autograde/grader``), whose
score replaces this one.

:data:`TEST_CELLS` is the one place for each cell's grade id, stages and points; the
master notebook's nbgrader metadata and the README are checked against it.
"""
import contextlib
import sys
from dataclasses import dataclass

from . import verify
from .lab import ROLE, STAGES

__all__ = ["TestCell", "TEST_CELLS", "cell", "run"]


@dataclass(frozen=True)
class TestCell:
    """One graded test cell: its TEST, nbgrader grade id, points, stages, and what hidden checks add."""
    number: int
    grade_id: str
    points: float
    stages: tuple
    hidden_topics: str

    @property
    def roles(self) -> tuple:
        return tuple(ROLE[stage] for stage in self.stages)


TEST_CELLS = (
    TestCell(1, "test1_scores", 4.0, ("scores",),
             "不对称的随机 Q、K，seq_q ≠ seq_k，其它 head_dim、scale 和 dtype，以及非法输入"),
    TestCell(2, "test2_mask", 3.0, ("mask",),
             "随机的 scores、任意的加性掩码、不同 dtype、数组切片上的原地修改等"),
    TestCell(3, "test3_softmax", 3.0, ("softmax",),
             "随机输入、很大的 logits、被 -1e9 屏蔽的行、1-D 与 3-D 输入、不修改 inp 等"),
    TestCell(4, "test4_end_to_end", 2.0, STAGES,
             "随机 Q≠K 配因果掩码、padding 掩码与 seq_q ≠ seq_k、很大的分数、整行被屏蔽、多头切片"),
)


def cell(number: int) -> TestCell:
    """The test cell of TEST ``number`` (1-4)."""
    if number not in range(1, len(TEST_CELLS) + 1):
        raise ValueError(f"TEST number must be 1-{len(TEST_CELLS)}, got {number!r}")
    return TEST_CELLS[number - 1]


def run(number: int, *fns) -> float:
    """Print TEST ``number`` as verify does, the note and any warning; return the visible score."""
    test = cell(number)
    with contextlib.redirect_stderr(sys.stdout):  # a student's warnings land here: a test cell must not write stderr
        report = getattr(verify, f"run_test{number}")(*fns)
    score = test.points * report.passed / report.total
    print(f"\n说明：上面 {report.total} 项与 C 实验的 verify 完全相同。提交后评分时，这里还会追加隐藏检查："
          f"{test.hidden_topics}。本格满分 {test.points:g} 分，得分 = {test.points:g} × 通过项数 / 总项数。")
    warning = _warning(test, fns)
    if warning:
        print(warning)
    return round(score, 2)


def _warning(test: TestCell, fns: tuple) -> str:
    """The diagnosis of this cell's functions, as a warning under the score ('' when nothing is found)."""
    # imported here, not with the module: the grader loads a private copy of this module in every test
    # cell (grader.integrity.pristine), which never asks for a diagnosis and would load all of it again
    from .diagnose import diagnose, diagnose_stage, format_findings

    if len(test.stages) > 1:
        findings = diagnose(*fns)
        return "" if not findings else "\n" + format_findings(findings)
    findings = diagnose_stage(test.stages[0], fns[0])
    if not findings:
        return ""
    names = "、".join(dict.fromkeys(f.bug for f in findings))
    first = findings[0].message.splitlines()[0]
    return (f"\n注意：自动诊断发现 {test.roles[0]} 在 verify 没有用到的输入上出错（{names}）。\n"
            f"  {first}\n"
            "verify 全部通过也不代表满分：提交后的隐藏检查会用这类输入，很可能扣分。详见下面的「自动诊断」一节。")

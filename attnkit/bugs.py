"""The catalogue of well-known mistakes: how each one shows on the probes, what to say.

A :class:`Rule` looks at one :class:`ProbeRun` (a student call on one probe, next to
the reference's output) and answers ``True`` (this deviation is what the bug
produces), ``False`` (it is not) or ``None`` (this probe cannot show the bug, e.g.
``K @ Q^T`` does not fit a non-square ``out``). Messages are Chinese and follow the
chapter's troubleshooting table (4.10): what was observed, the likely cause, what to
check. They describe the mistake; they never print the reference solution. A message that
belongs to a row of that table names the row by its symptom (:data:`TABLE_ROW`), as the
chapter writes it, so that the student finds it there.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .attention import softmax as _softmax
from .lab import ROLE, TOLERANCE
from .probes import Probe
from .safecall import Call

# The symptom column of §4.10's table, one entry per row, in the chapter's words (code marks dropped).
# tests/unit/test_chapter_text.py: these are exactly the table's rows, and each row lists exactly the
# FAIL lines its mistakes (tests/support/mistakes.py: TROUBLESHOOTING) make verify print.
TABLE_ROW = {
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
}


def row(key: str) -> str:
    """How a message points at a row of §4.10's table: by the symptom the student reads there."""
    return f"排查表“{TABLE_ROW[key]}”这一行"


def rows_of(stage: str) -> str:
    """A pointer at every row whose 先检查 column names the stage's function (no single row fits)."""
    return f"排查表里「先检查」一栏写着 {ROLE[stage]} 的几行"


@dataclass(frozen=True)
class ProbeRun:
    """One student call on one probe, with the reference's result for the same input."""
    probe: Probe
    before: tuple      # pristine copies of the arguments
    args: tuple        # the arguments as the student left them
    out_index: int     # which argument the function writes
    reference: np.ndarray
    expected_rc: object
    call: Call

    @property
    def out(self) -> np.ndarray:
        return self.args[self.out_index]

    @property
    def unchanged(self) -> bool:
        return bool(np.array_equal(self.out, self.before[self.out_index], equal_nan=True))

    @property
    def ok(self) -> bool:
        return self.call.error is None and close(self.out, self.reference, exact_float64=True)


@dataclass(frozen=True)
class Rule:
    """A named mistake: ``fits(outcome) -> True/False/None`` and ``explain(outcome) -> message``."""
    bug: str
    fits: Callable[[ProbeRun], bool | None]
    explain: Callable[[ProbeRun], str]


def close(a, b, exact_float64: bool = False) -> bool:
    """Equal up to float32 rounding; with ``exact_float64``, a float64 ``b`` must match to float64 precision."""
    tight = exact_float64 and np.asarray(b).dtype == np.float64
    tol = TOLERANCE["float64" if tight else "float32"]  # the grader's tolerances (attnkit.lab)
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))


def _lost_precision(o: ProbeRun) -> bool | None:
    """float64 in, float32-grade out: right up to float32 rounding, wrong at float64 precision."""
    if o.reference.dtype != np.float64:
        return None
    return close(o.out, o.reference) and not close(o.out, o.reference, exact_float64=True)


def _precision_rule(stage: str, written: str) -> Rule:
    return Rule(f"{stage}_lost_precision", _lost_precision, lambda o: say(
        f"{at(o)}，输入是 float64，{written} 却只精确到 float32 的程度（相对误差约 1e-7，而不是 1e-16）。",
        "计算中途把数组转成了 float32（例如 astype(np.float32)、np.float32(...) 或 float32 的临时数组）。",
        f"{ROLE[stage]} 保持输入的 dtype：临时数组用 np.empty_like / np.zeros_like，或直接在原数组上运算。"))


def factor(out, base) -> float | None:
    """The ``c`` with ``out ≈ c * base`` (least squares), or None when out is no multiple of base."""
    out, base = np.asarray(out, np.float64), np.asarray(base, np.float64)
    if out.shape != base.shape or not np.any(base):
        return None
    with np.errstate(all="ignore"):
        c = float(np.sum(out * base) / np.sum(base * base))
    return c if np.isfinite(c) and close(out, c * base) else None


def say(seen: str, cause: str, check: str) -> str:
    return f"现象：{seen}\n可能原因：{cause}\n检查：{check}"


def at(o: ProbeRun) -> str:
    return f"在探针「{o.probe.purpose}」上"


def _square(o: ProbeRun) -> bool:
    return o.before[0].shape[0] == o.before[1].shape[0]


def _new_array_note(o: ProbeRun, name: str) -> str:
    if o.call.rebound:
        return f"函数把参数 {name} 重新指向了一个新数组"
    return "函数返回了一个新数组"


def _rebound(o: ProbeRun) -> bool:
    return o.unchanged and (o.call.rebound or isinstance(o.call.returned, np.ndarray))


# --- scores ---------------------------------------------------------------------------

def _scale_hint(c: float, scale: float, head_dim: int) -> str:
    if abs(c * np.sqrt(head_dim) - 1) < 1e-3:
        return f"；{c:.4g} 正好是 1/sqrt(head_dim)，像是在函数里自己重算了缩放"
    if abs(c * scale - 1) < 1e-3:
        return "；正好是 1/scale：乘法写成了除法"
    if abs(c - scale * scale) < 1e-3 * scale * scale:
        return "；正好是 scale²：scale 乘了两次"
    return ""


def _wrong_scale_message(o: ProbeRun) -> str:
    q, k, scale = o.before[:3]
    c = factor(o.out, q @ k.T)
    # A scale recomputed as 1/sqrt(head_dim) also breaks verify's I @ I (scale 1.0, head_dim 3); a scale
    # divided or squared does not, since 1.0 stays 1.0: two different rows of the table.
    recomputed = abs(c * np.sqrt(q.shape[1]) - 1) < 1e-3
    return say(
        f"{at(o)}，out ≈ {c:.4g} × (Q @ K^T)，而传入的 scale = {scale:g}{_scale_hint(c, scale, q.shape[1])}。",
        f"缩放用的不是参数 scale（对应{row('scores_unwritten' if recomputed else 'scores_scale')}）。",
        "student_attention_scores 直接使用传入的 scale，不要在函数里重新计算或变换它。",
    )


SCORES_RULES = (
    Rule("scores_out_rebound", _rebound, lambda o: say(
        f"{at(o)}，调用后 out 仍然全是 0，而{_new_array_note(o, 'out')}（对应{row('scores_unwritten')}）。",
        "out = ... 只让局部名字 out 指向新数组，调用方传入的数组没有变。",
        "student_attention_scores 要把结果写进传入的数组本身：out[...] = ... 或逐个 out[i, j] = ...。")),
    Rule("scores_out_not_written", lambda o: o.unchanged, lambda o: say(
        f"{at(o)}，调用后 out 仍然全是 0（对应{row('scores_unwritten')}）。",
        "结果没有写进 out：TODO 还没完成，或者算出的值留在了局部变量里。",
        "student_attention_scores 是否给每个 (i, j) 都写了 out[i, j]。")),
    Rule("scores_k_qt", lambda o: factor(o.out, o.before[1] @ o.before[0].T) is not None if _square(o) else None,
         lambda o: say(
             f"{at(o)}，out 与 K @ Q^T 成正比，是正确结果的转置；verify 用 Q = K = 单位矩阵，看不出这一点。",
             "Q 与 K 的角色对调了：out[i, j] 应是第 i 个 query 与第 j 个 key 的点积。",
             "student_attention_scores 的行下标 i 取 Q 的行，列下标 j 取 K 的行（读 K[j, d]）。")),
    Rule("scores_q_qt", lambda o: factor(o.out, o.before[0] @ o.before[0].T) is not None if _square(o) else None,
         lambda o: say(
             f"{at(o)}，out 与 Q @ Q^T 成正比：K 根本没有参与计算；verify 里 Q = K，所以看不出来。",
             "点积的两边都用了 Q（多半是复制粘贴后忘了改成 K）。",
             "student_attention_scores 的内层求和应是 Q[i, d] 乘 K[j, d]。")),
    Rule("scores_missing_scale", lambda o: close(o.out, o.before[0] @ o.before[1].T), lambda o: say(
        f"{at(o)}，out 恰好等于 Q @ K^T，没有乘 scale = {o.before[2]:g}。",
        f"忘了乘缩放因子（对应{row('scores_scale')}）。",
        "student_attention_scores 里每个点积都要乘上传入的 scale。")),
    Rule("scores_wrong_scale", lambda o: factor(o.out, o.before[0] @ o.before[1].T) is not None,
         _wrong_scale_message),
)


# --- mask -----------------------------------------------------------------------------

MASK_RULES = (
    Rule("mask_not_in_place", _rebound, lambda o: say(
        f"{at(o)}，调用后 scores 没有变化，而{_new_array_note(o, 'scores')}（对应{row('mask')}）。",
        "scores = scores + mask 得到的是新数组，只改变了局部名字；调用方的 scores 没有加上 mask。",
        "student_apply_mask 必须原地修改传入的 scores（+= 或逐元素赋值），不要重新绑定它。")),
    Rule("mask_lost_on_view", lambda o: o.unchanged and not o.out.flags.c_contiguous, lambda o: say(
        f"{at(o)}，调用后 scores 没有变化；在普通（连续）的数组上却是对的。",
        "加法写进了一份副本而不是调用方的数组（不是原地修改）：对非连续视图，reshape(-1)、ravel()、"
        "np.ascontiguousarray 等会悄悄复制，写进副本的结果随之丢失。",
        "student_apply_mask 直接对传入的 scores 做原地运算（scores += mask 或逐元素赋值），不要经过 reshape/复制。")),
    Rule("mask_not_applied", lambda o: o.unchanged, lambda o: say(
        f"{at(o)}，调用后 scores 完全没变，被遮住的位置没有变成极小值（对应{row('mask')}）。",
        "mask 没有加进 scores：TODO 还没完成，或者 np.add(scores, mask) 之类的结果没有存回 scores。",
        "student_apply_mask 是否真的改写了传入的 scores。")),
    Rule("mask_multiplied", lambda o: close(o.out, o.before[0] * o.before[1]), lambda o: say(
        f"{at(o)}，保留的位置变成了 0，被遮住的位置变成了 scores × (-1e9)（可能是很大的正数）。",
        "把 mask 乘到了 scores 上；本实验的 mask 是加性的：0 表示保留，-1e9 表示屏蔽。",
        "student_apply_mask 用加法，不用乘法。")),
    Rule("mask_replaces_scores", lambda o: close(o.out, o.before[1]), lambda o: say(
        f"{at(o)}，结果就是 mask 本身，原来的分数全丢了；verify 里 scores 全是 0，所以看不出来。",
        "用 mask 覆盖（赋值给）了 scores，而不是加到 scores 上。",
        "student_apply_mask 应在原有分数上加 mask，保留原来的分数。")),
)


# --- softmax --------------------------------------------------------------------------

def _wrong_axis(o: ProbeRun) -> int | None:
    """The non-last axis along which out is a softmax of the input, if any."""
    x = o.before[1]
    return next((a for a in range(x.ndim - 1) if close(o.out, _softmax(x, axis=a))), None)


def _unnormalised(o: ProbeRun) -> bool:
    x = np.asarray(o.before[1], np.float64)
    with np.errstate(all="ignore"):
        return close(o.out, np.exp(x - x.max(axis=-1, keepdims=True))) or close(o.out, np.exp(x))


def _whole_array(o: ProbeRun) -> bool:
    x = o.before[1]
    return close(o.out, _softmax(x.reshape(-1)).reshape(x.shape))


def _moderate(check: Callable[[ProbeRun], bool]) -> Callable[[ProbeRun], bool | None]:
    """Large-logit probes cannot show these bugs: the overflow would mask them."""
    return lambda o: None if o.probe.extreme else check(o)


SOFTMAX_RULES = (
    Rule("softmax_out_rebound", _rebound, lambda o: say(
        f"{at(o)}，out 仍然全是 0（对应{row('softmax_zeros')}），而{_new_array_note(o, 'out')}。",
        "softmax 的结果没写进 out：out = ... 只改变了局部名字。",
        "student_softmax 要写进传入的数组本身：out[...] = ... 或逐元素赋值。")),
    Rule("softmax_out_not_written", lambda o: o.unchanged, lambda o: say(
        f"{at(o)}，out 仍然全是 0（对应{row('softmax_zeros')}）。",
        "softmax 的结果没写进 out：TODO 还没完成，或者结果留在了局部变量里。",
        "student_softmax 是否给 out 的每个元素都赋了值。")),
    Rule("softmax_wrong_axis", _moderate(lambda o: _wrong_axis(o) is not None), lambda o: say(
        f"{at(o)}，out 是沿第 {_wrong_axis(o)} 维而不是最后一维做的 softmax，每一行的和不是 1。",
        "max 和 sum 沿错了轴（例如 axis=0），或者循环按列而不是按行。",
        "student_softmax 的 max 与 sum 都沿最后一维（axis=-1，keepdims=True），逐行归一化。")),
    Rule("softmax_whole_array", _moderate(_whole_array), lambda o: say(
        f"{at(o)}，整个数组所有元素加起来是 1，而不是每一行的和是 1。",
        f"sum 没有指定轴，把整个数组加在了一起（对应{row('softmax_whole')}）。",
        "student_softmax 的 sum 沿最后一维并保留维度（axis=-1，keepdims=True）。")),
    Rule("softmax_not_normalised", _moderate(_unnormalised), lambda o: say(
        f"{at(o)}，out 只是 exp(...)，没有除以行和，每一行的和不是 1（对应{row('softmax_sum')}）。",
        "少了归一化这一步，或者除以的不是这一行的和。",
        "student_softmax 的四步：求每行最大值 → exp(x - max) → 求和 → 除以和。")),
    Rule("softmax_no_max_subtraction", lambda o: o.probe.extreme and not np.all(np.isfinite(o.out)),
         lambda o: say(
             f"{at(o)}，输出里出现了 NaN/inf，而正确结果全是有限值。",
             "exp 溢出成 inf（或整行 exp 都下溢成 0，得到 0/0）：没有先减去每一行自己的最大值。",
             "student_softmax 先求每行最大值，再算 exp(x - max)：第 1 章的数值稳定技巧。")),
)

# Precision first: an output right up to float32 rounding is no other mistake.
RULES = {
    "scores": (_precision_rule("scores", "out"),) + SCORES_RULES,
    "mask": (_precision_rule("mask", "scores"),) + MASK_RULES,
    "softmax": (_precision_rule("softmax", "out"),) + SOFTMAX_RULES,
}


# --- findings without a named rule ----------------------------------------------------

def exception_message(stage: str, o: ProbeRun) -> str:
    if not o.probe.valid:
        return say(f"{ROLE[stage]} {at(o)}抛出了 {o.call.error}。",
                   "C 版本在函数开头检查输入：这种输入应被拒绝（scores 返回 -1，其余函数什么都不做），而不是报错。",
                   f"{ROLE[stage]} 开头的输入检查是否还在（模板里已经写好，不要删掉）。")
    return say(f"{ROLE[stage]} {at(o)}抛出了 {o.call.error}。",
               "代码假设了这个输入并不满足的条件（形状、维数或 dtype），或者有拼写、下标错误。",
               "按错误信息找到出错的那一行，用这个输入手算一遍。")


def _largest_gap(out, reference) -> str:
    out, reference = np.asarray(out, np.float64), np.asarray(reference, np.float64)
    if not np.all(np.isfinite(out)):
        return "输出里有 NaN/inf"
    gap = np.abs(out - reference)
    where = tuple(int(i) for i in np.unravel_index(np.argmax(gap), gap.shape))
    return f"最大偏差 {gap.max():.3g}，位于下标 {where}"


def wrong_values_message(stage: str, o: ProbeRun) -> str:
    if not o.probe.valid:
        return say(f"{at(o)}，{ROLE[stage]} 改写了本应原样不动的数组。",
                   "这种输入应被函数开头的输入检查拦下，代码却照常计算了。",
                   f"{ROLE[stage]} 开头的输入检查是否还在、条件是否写对。")
    return say(f"{at(o)}，{ROLE[stage]} 的结果与参考实现不同：{_largest_gap(o.out, o.reference)}。",
               f"一个本诊断没有专门命名的错误；先对照{rows_of(stage)}。",
               "用这个输入手算几个元素，与你的输出逐个对比（热力图标出了偏差的位置）。")


def return_code_message(o: ProbeRun) -> str:
    got = "None（函数末尾缺少 return）" if o.call.returned is None else repr(o.call.returned)[:40]
    want = "整数 0（成功）" if o.probe.valid else "-1（输入不合法）"
    pointer = f"（对应{row('scores_return')}）" if o.probe.valid else ""  # verify feeds only valid inputs
    return say(f"{at(o)}，student_attention_scores 返回了 {got}，应返回 {want}。",
               f"返回码是 C 函数的 int：成功 0，输入不合法 -1；verify 的“返回 0 (成功)”检查的就是它{pointer}。",
               "student_attention_scores 每一条路径上的 return 语句。")


def mutation_message(stage: str, o: ProbeRun, names: str) -> str:
    return say(f"{at(o)}，{ROLE[stage]} 修改了只读的输入 {names}。",
               "对输入做了原地运算（例如 -=、/=，或 out= 指向了输入）。",
               f"{ROLE[stage]} 只写它该写的数组，其他参数只读。")


def pipeline_message(stage: str, error: str | None) -> str:
    seen = f"{ROLE[stage]} 抛出了 {error}" if error else f"{ROLE[stage]} 这一步的结果与参考实现不同"
    return say(f"三个函数各自通过了单独的探针，但串成 scores → mask → softmax 后，{seen}。",
               f"某一步局部逻辑对，但组合起来错了（对应{row('pipeline')}）："
               "例如依赖上一次调用留下的状态或全局变量，或者改写了后面还要用的数组。",
               "按 scores → mask → softmax 的顺序逐段打印中间结果，与参考对比。")

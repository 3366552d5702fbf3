"""The catalogue of well-known mistakes: how each one shows on the probes, what to say.

A :class:`Rule` looks at one :class:`ProbeRun` (a student call on one probe, next to
the reference's output) and answers ``True`` (this deviation is what the bug
produces), ``False`` (it is not) or ``None`` (this probe cannot show the bug, e.g.
``K @ Q^T`` does not fit a non-square ``out``). Messages follow the chapter's
troubleshooting table (4.10): what was observed, the likely cause, what to check. They
describe the mistake; they never print the reference solution. Which row of that table a
finding belongs to is not the rule's to say: :mod:`attnkit.diagnose` runs verify and adds the
pointer (:func:`pointed`, the rows: :mod:`attnkit.troubleshooting`).

Every message is written in both languages, side by side, and a finding keeps both
(``{"zh": …, "en": …}``, :func:`texts`): the notebook shows its edition's, and whoever renders
the finding later (feedback, report) can choose. The words come from :mod:`attnkit.glossary`.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .attention import softmax as _softmax
from .glossary import term
from .lab import ROLE, TOLERANCE
from .language import LANGUAGES
from .probes import Probe
from .safecall import HUNG, Call
from .troubleshooting import pointer, stage_pointer

# The three lines of every finding (the chapter's 现象 / 可能原因 / 检查, Seen / Likely cause / Check).
LABELS = {"zh": ("现象：", "可能原因：", "检查："), "en": ("Seen: ", "Likely cause: ", "Check: ")}
# Added to a finding's "likely cause" line: the one row it belongs to, or the rows of its function.
_POINTED = {"zh": ("（对应{}）", "（先对照{}）"), "en": (" (see {})", " (start with {})")}


def pointed(messages: dict, key: str | None, stage: str) -> dict:
    """``messages`` with a pointer into §4.10's table at the end of each "likely cause" line: the row ``key``, or
    (``key`` None) the rows whose "Check first" column names the stage's function."""
    result = {}
    for lang, text in messages.items():
        lines = text.split("\n")
        words = _POINTED[lang][0 if key else 1].format(pointer(key, lang) if key else stage_pointer(stage, lang))
        end = "。" if lang == "zh" else "."
        lines[1] = lines[1].rstrip(end) + words + end
        result[lang] = "\n".join(lines)
    return result


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
    """A named mistake: ``fits(outcome) -> True/False/None`` and ``explain(outcome) -> {language: message}``."""
    bug: str
    fits: Callable[[ProbeRun], bool | None]
    explain: Callable[[ProbeRun], dict]


def close(a, b, exact_float64: bool = False) -> bool:
    """Equal up to float32 rounding; with ``exact_float64``, a float64 ``b`` must match to float64 precision."""
    tight = exact_float64 and np.asarray(b).dtype == np.float64
    tol = TOLERANCE["float64" if tight else "float32"]  # the grader's tolerances (attnkit.lab)
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))


def say(lang: str, seen: str, cause: str, check: str) -> str:
    """One message: the three labelled lines of the troubleshooting table's way of thinking."""
    labels = LABELS[lang]
    return f"{labels[0]}{seen}\n{labels[1]}{cause}\n{labels[2]}{check}"


def texts(zh: tuple, en: tuple) -> dict:
    """A finding's message in every language: ``(seen, cause, check)`` per language."""
    return {"zh": say("zh", *zh), "en": say("en", *en)}


def at(o: ProbeRun, lang: str) -> str:
    purpose = o.probe.purpose[lang]
    return f"在{term('probe', lang)}「{purpose}」上" if lang == "zh" else f"on the {term('probe', lang)} \"{purpose}\""


def error_text(error: str, lang: str) -> str:
    """A call's error line; the one attnkit wrote itself (a function that timed out before) in ``lang``."""
    if error != HUNG:
        return error
    return "TimeoutError: 在前面的单元格里运行超时，评分时不再调用" if lang == "zh" else \
        "TimeoutError: it timed out in an earlier cell and is not called again while grading"


def _lost_precision(o: ProbeRun) -> bool | None:
    """float64 in, float32-grade out: right up to float32 rounding, wrong at float64 precision."""
    if o.reference.dtype != np.float64:
        return None
    return close(o.out, o.reference) and not close(o.out, o.reference, exact_float64=True)


def _precision_rule(stage: str, written: str) -> Rule:
    role = ROLE[stage]
    return Rule(f"{stage}_lost_precision", _lost_precision, lambda o: texts(
        (f"{at(o, 'zh')}，输入是 float64，{written} 却只精确到 float32 的程度（相对误差约 1e-7，而不是 1e-16）。",
         "计算中途把数组转成了 float32（例如 astype(np.float32)、np.float32(...) 或 float32 的临时数组）。",
         f"{role} 保持输入的 dtype：临时数组用 np.empty_like / np.zeros_like，或直接在原数组上运算。"),
        (f"{at(o, 'en')}, the input is float64, yet {written} is only as precise as float32 "
         "(relative error about 1e-7 instead of 1e-16).",
         "an array was turned into float32 along the way (astype(np.float32), np.float32(...) or a float32 "
         "temporary array).",
         f"{role} keeps the input's dtype: make temporary arrays with np.empty_like / np.zeros_like, or compute "
         "on the arrays you were given.")))


def factor(out, base) -> float | None:
    """The ``c`` with ``out ≈ c * base`` (least squares), or None when out is no multiple of base."""
    out, base = np.asarray(out, np.float64), np.asarray(base, np.float64)
    if out.shape != base.shape or not np.any(base):
        return None
    with np.errstate(all="ignore"):
        c = float(np.sum(out * base) / np.sum(base * base))
    return c if np.isfinite(c) and close(out, c * base) else None


def _square(o: ProbeRun) -> bool:
    return o.before[0].shape[0] == o.before[1].shape[0]


def _new_array_note(o: ProbeRun, name: str, lang: str) -> str:
    if o.call.rebound:
        return f"函数把参数 {name} 重新指向了一个新数组" if lang == "zh" else f"the function rebound its parameter {name} to a new array"
    return "函数返回了一个新数组" if lang == "zh" else "the function returned a new array"


def _rebound(o: ProbeRun) -> bool:
    return o.unchanged and (o.call.rebound or isinstance(o.call.returned, np.ndarray))


# --- scores ---------------------------------------------------------------------------

_SCALE_HINTS = {
    "zh": {"recomputed": "；{c:.4g} 正好是 1/sqrt(head_dim)，像是在函数里自己重算了缩放",
           "divided": "；正好是 1/scale：乘法写成了除法", "squared": "；正好是 scale²：scale 乘了两次"},
    "en": {"recomputed": "; {c:.4g} is exactly 1/sqrt(head_dim): the function seems to compute its own scale",
           "divided": "; that is exactly 1/scale: a division where a multiplication belongs",
           "squared": "; that is exactly scale²: scale applied twice"},
}


def _scale_hint(c: float, scale: float, head_dim: int, lang: str) -> str:
    if abs(c * np.sqrt(head_dim) - 1) < 1e-3:
        kind = "recomputed"
    elif abs(c * scale - 1) < 1e-3:
        kind = "divided"
    elif abs(c - scale * scale) < 1e-3 * scale * scale:
        kind = "squared"
    else:
        return ""
    return _SCALE_HINTS[lang][kind].format(c=c)


def _wrong_scale_message(o: ProbeRun) -> dict:
    q, k, scale = o.before[:3]
    c = factor(o.out, q @ k.T)
    hint = {lang: _scale_hint(c, scale, q.shape[1], lang) for lang in LANGUAGES}
    return texts(
        (f"{at(o, 'zh')}，out ≈ {c:.4g} × (Q @ K^T)，而传入的 scale = {scale:g}{hint['zh']}。",
         "缩放用的不是参数 scale。",
         "student_attention_scores 直接使用传入的 scale，不要在函数里重新计算或变换它。"),
        (f"{at(o, 'en')}, out ≈ {c:.4g} × (Q @ K^T), while the scale passed in is {scale:g}{hint['en']}.",
         "the scaling does not use the parameter scale.",
         "student_attention_scores uses the scale it is given as it is: do not compute or change it inside."))


SCORES_RULES = (
    Rule("scores_out_rebound", _rebound, lambda o: texts(
        (f"{at(o, 'zh')}，调用后 out 仍然全是 0，而{_new_array_note(o, 'out', 'zh')}。",
         "out = ... 只让局部名字 out 指向新数组，调用方传入的数组没有变。",
         "student_attention_scores 要把结果写进传入的数组本身：out[...] = ... 或逐个 out[i, j] = ...。"),
        (f"{at(o, 'en')}, out is still all zeros after the call, and {_new_array_note(o, 'out', 'en')}.",
         "out = ... only makes the local name out point at a new array; the caller's array stays as it was.",
         "student_attention_scores writes the result into the array it was given: out[...] = ... or "
         "out[i, j] = ... one by one."))),
    Rule("scores_out_not_written", lambda o: o.unchanged, lambda o: texts(
        (f"{at(o, 'zh')}，调用后 out 仍然全是 0。",
         "结果没有写进 out：TODO 还没完成，或者算出的值留在了局部变量里。",
         "student_attention_scores 是否给每个 (i, j) 都写了 out[i, j]。"),
        (f"{at(o, 'en')}, out is still all zeros after the call.",
         "the result never reaches out: the TODO is not done yet, or the values stay in a local variable.",
         "does student_attention_scores write out[i, j] for every (i, j)?"))),
    Rule("scores_k_qt", lambda o: factor(o.out, o.before[1] @ o.before[0].T) is not None if _square(o) else None,
         lambda o: texts(
             (f"{at(o, 'zh')}，out 与 K @ Q^T 成正比，是正确结果的转置；verify 用 Q = K = 单位矩阵，看不出这一点。",
              "Q 与 K 的角色对调了：out[i, j] 应是第 i 个 query 与第 j 个 key 的点积。",
              "student_attention_scores 的行下标 i 取 Q 的行，列下标 j 取 K 的行（读 K[j, d]）。"),
             (f"{at(o, 'en')}, out is proportional to K @ Q^T, the transpose of the right result; verify uses "
              "Q = K = the identity, where this cannot show.",
              "Q and K swapped roles: out[i, j] is the dot product of query i with key j.",
              "in student_attention_scores the row index i takes a row of Q, the column index j a row of K "
              "(read K[j, d])."))),
    Rule("scores_q_qt", lambda o: factor(o.out, o.before[0] @ o.before[0].T) is not None if _square(o) else None,
         lambda o: texts(
             (f"{at(o, 'zh')}，out 与 Q @ Q^T 成正比：K 根本没有参与计算；verify 里 Q = K，所以看不出来。",
              "点积的两边都用了 Q（多半是复制粘贴后忘了改成 K）。",
              "student_attention_scores 的内层求和应是 Q[i, d] 乘 K[j, d]。"),
             (f"{at(o, 'en')}, out is proportional to Q @ Q^T: K takes no part at all; in verify Q = K, so it "
              "cannot show.",
              "both sides of the dot product use Q (most likely copied and pasted, then not changed to K).",
              "the inner sum of student_attention_scores multiplies Q[i, d] by K[j, d]."))),
    Rule("scores_missing_scale", lambda o: close(o.out, o.before[0] @ o.before[1].T), lambda o: texts(
        (f"{at(o, 'zh')}，out 恰好等于 Q @ K^T，没有乘 scale = {o.before[2]:g}。",
         "忘了乘缩放因子。",
         "student_attention_scores 里每个点积都要乘上传入的 scale。"),
        (f"{at(o, 'en')}, out equals Q @ K^T exactly, without the scale = {o.before[2]:g}.",
         f"the {term('scale', 'en')} was left out.",
         "student_attention_scores multiplies every dot product by the scale it is given."))),
    Rule("scores_wrong_scale", lambda o: factor(o.out, o.before[0] @ o.before[1].T) is not None,
         _wrong_scale_message),
)


# --- mask -----------------------------------------------------------------------------

MASK_RULES = (
    Rule("mask_not_in_place", _rebound, lambda o: texts(
        (f"{at(o, 'zh')}，调用后 scores 没有变化，而{_new_array_note(o, 'scores', 'zh')}。",
         "scores = scores + mask 得到的是新数组，只改变了局部名字；调用方的 scores 没有加上 mask。",
         "student_apply_mask 必须原地修改传入的 scores（+= 或逐元素赋值），不要重新绑定它。"),
        (f"{at(o, 'en')}, scores is unchanged after the call, and {_new_array_note(o, 'scores', 'en')}.",
         "scores = scores + mask makes a new array and only changes the local name; the caller's scores never "
         "gets the mask.",
         "student_apply_mask changes the scores it was given in place (+= or element by element); it does not "
         "rebind the name."))),
    Rule("mask_lost_on_view", lambda o: o.unchanged and not o.out.flags.c_contiguous, lambda o: texts(
        (f"{at(o, 'zh')}，调用后 scores 没有变化；在普通（连续）的数组上却是对的。",
         "加法写进了一份副本而不是调用方的数组（不是原地修改）：对非连续视图，reshape(-1)、ravel()、"
         "np.ascontiguousarray 等会悄悄复制，写进副本的结果随之丢失。",
         "student_apply_mask 直接对传入的 scores 做原地运算（scores += mask 或逐元素赋值），不要经过 reshape/复制。"),
        (f"{at(o, 'en')}, scores is unchanged after the call; on an ordinary (contiguous) array it is right.",
         "the sum went into a copy instead of the caller's array (not in place): on a non-contiguous view, "
         "reshape(-1), ravel(), np.ascontiguousarray and the like copy silently, and what is written into the "
         "copy is lost.",
         "student_apply_mask works on the scores it was given, in place (scores += mask, or element by element), "
         "without a reshape or a copy in between."))),
    Rule("mask_not_applied", lambda o: o.unchanged, lambda o: texts(
        (f"{at(o, 'zh')}，调用后 scores 完全没变，被遮住的位置没有变成极小值。",
         "mask 没有加进 scores：TODO 还没完成，或者 np.add(scores, mask) 之类的结果没有存回 scores。",
         "student_apply_mask 是否真的改写了传入的 scores。"),
        (f"{at(o, 'en')}, scores has not changed at all; the blocked cells did not become very negative.",
         "the mask never got into scores: the TODO is not done yet, or a result such as np.add(scores, mask) was "
         "not stored back into scores.",
         "does student_apply_mask really change the scores it was given?"))),
    Rule("mask_multiplied", lambda o: close(o.out, o.before[0] * o.before[1]), lambda o: texts(
        (f"{at(o, 'zh')}，保留的位置变成了 0，被遮住的位置变成了 scores × (-1e9)（可能是很大的正数）。",
         "把 mask 乘到了 scores 上；本实验的 mask 是加性的：0 表示保留，-1e9 表示屏蔽。",
         "student_apply_mask 用加法，不用乘法。"),
        (f"{at(o, 'en')}, the kept cells became 0 and the blocked ones scores × (-1e9) (possibly a huge positive "
         "number).",
         f"the mask was multiplied into scores; this lab's mask is an {term('additive_mask', 'en')}: 0 keeps a "
         "cell, -1e9 blocks it.",
         "student_apply_mask adds; it does not multiply."))),
    Rule("mask_replaces_scores", lambda o: close(o.out, o.before[1]), lambda o: texts(
        (f"{at(o, 'zh')}，结果就是 mask 本身，原来的分数全丢了；verify 里 scores 全是 0，所以看不出来。",
         "用 mask 覆盖（赋值给）了 scores，而不是加到 scores 上。",
         "student_apply_mask 应在原有分数上加 mask，保留原来的分数。"),
        (f"{at(o, 'en')}, the result is the mask itself and the original scores are gone; in verify the scores "
         "are all zeros, so it cannot show.",
         "the mask was assigned over scores instead of added to them.",
         "student_apply_mask adds the mask to the scores that are there, and keeps them."))),
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
    Rule("softmax_out_rebound", _rebound, lambda o: texts(
        (f"{at(o, 'zh')}，out 仍然全是 0，而{_new_array_note(o, 'out', 'zh')}。",
         "softmax 的结果没写进 out：out = ... 只改变了局部名字。",
         "student_softmax 要写进传入的数组本身：out[...] = ... 或逐元素赋值。"),
        (f"{at(o, 'en')}, out is still all zeros, and {_new_array_note(o, 'out', 'en')}.",
         "the softmax never reaches out: out = ... only changes the local name.",
         "student_softmax writes into the array it was given: out[...] = ... or element by element."))),
    Rule("softmax_out_not_written", lambda o: o.unchanged, lambda o: texts(
        (f"{at(o, 'zh')}，out 仍然全是 0。",
         "softmax 的结果没写进 out：TODO 还没完成，或者结果留在了局部变量里。",
         "student_softmax 是否给 out 的每个元素都赋了值。"),
        (f"{at(o, 'en')}, out is still all zeros.",
         "the softmax never reaches out: the TODO is not done yet, or the result stays in a local variable.",
         "does student_softmax give every element of out a value?"))),
    Rule("softmax_wrong_axis", _moderate(lambda o: _wrong_axis(o) is not None), lambda o: texts(
        (f"{at(o, 'zh')}，out 是沿第 {_wrong_axis(o)} 维而不是最后一维做的 softmax，每一行的和不是 1。",
         "max 和 sum 沿错了轴（例如 axis=0），或者循环按列而不是按行。",
         "student_softmax 的 max 与 sum 都沿最后一维（axis=-1，keepdims=True），逐行归一化。"),
        (f"{at(o, 'en')}, out is a softmax along axis {_wrong_axis(o)} instead of the last one; the rows do not "
         "sum to 1.",
         "max and sum run along the wrong axis (axis=0, say), or the loop goes by column instead of by row.",
         "student_softmax takes max and sum along the last axis (axis=-1, keepdims=True): row by row."))),
    Rule("softmax_whole_array", _moderate(_whole_array), lambda o: texts(
        (f"{at(o, 'zh')}，整个数组所有元素加起来是 1，而不是每一行的和是 1。",
         "sum 没有指定轴，把整个数组加在了一起。",
         "student_softmax 的 sum 沿最后一维并保留维度（axis=-1，keepdims=True）。"),
        (f"{at(o, 'en')}, all the elements of the array together sum to 1, instead of each row.",
         "sum has no axis and adds up the whole array.",
         "student_softmax sums along the last axis and keeps it (axis=-1, keepdims=True)."))),
    Rule("softmax_not_normalised", _moderate(_unnormalised), lambda o: texts(
        (f"{at(o, 'zh')}，out 只是 exp(...)，没有除以行和，每一行的和不是 1。",
         "少了归一化这一步，或者除以的不是这一行的和。",
         "student_softmax 的四步：求每行最大值 → exp(x - max) → 求和 → 除以和。"),
        (f"{at(o, 'en')}, out is only exp(...), never divided by the row's sum; the rows do not sum to 1.",
         "the normalising step is missing, or the division is by something other than the row's sum.",
         "the four steps of student_softmax: each row's maximum → exp(x - max) → sum → divide by the sum."))),
    Rule("softmax_no_max_subtraction", lambda o: o.probe.extreme and not np.all(np.isfinite(o.out)),
         lambda o: texts(
             (f"{at(o, 'zh')}，输出里出现了 NaN/inf，而正确结果全是有限值。",
              "exp 溢出成 inf（或整行 exp 都下溢成 0，得到 0/0）：没有先减去每一行自己的最大值。",
              "student_softmax 先求每行最大值，再算 exp(x - max)：第 1 章的数值稳定技巧。"),
             (f"{at(o, 'en')}, the output holds NaN/inf, where the right result is finite everywhere.",
              "exp overflowed to inf (or a whole row of exp underflowed to 0, giving 0/0): each row's own maximum "
              "was not subtracted first.",
              f"student_softmax finds each row's maximum, then computes exp(x - max): the "
              f"{term('stable_softmax', 'en')} of chapter 1."))),
)

# Precision first: an output right up to float32 rounding is no other mistake.
RULES = {
    "scores": (_precision_rule("scores", "out"),) + SCORES_RULES,
    "mask": (_precision_rule("mask", "scores"),) + MASK_RULES,
    "softmax": (_precision_rule("softmax", "out"),) + SOFTMAX_RULES,
}


# --- findings without a named rule ----------------------------------------------------

def exception_message(stage: str, o: ProbeRun) -> dict:
    role, zh, en = ROLE[stage], error_text(o.call.error, "zh"), error_text(o.call.error, "en")
    if not o.probe.valid:
        return texts((f"{role} {at(o, 'zh')}抛出了 {zh}。",
                      "C 版本在函数开头检查输入：这种输入应被拒绝（scores 返回 -1，其余函数什么都不做），而不是报错。",
                      f"{role} 开头的输入检查是否还在（模板里已经写好，不要删掉）。"),
                     (f"{at(o, 'en')}, {role} raised {en}.",
                      "the C version checks its input first: such input is to be refused (scores returns -1, the other "
                      "functions do nothing), not to raise an error.",
                      f"is the input check at the top of {role} still there? (The template has it; keep it.)"))
    return texts((f"{role} {at(o, 'zh')}抛出了 {zh}。",
                  "代码假设了这个输入并不满足的条件（形状、维数或 dtype），或者有拼写、下标错误。",
                  "按错误信息找到出错的那一行，用这个输入手算一遍。"),
                 (f"{at(o, 'en')}, {role} raised {en}.",
                  "the code assumes something this input does not meet (shape, number of dimensions or dtype), or "
                  "has a typo or a wrong index.",
                  "find the failing line from the error message and work it through by hand on this input."))


def _largest_gap(out, reference, lang: str) -> str:
    out, reference = np.asarray(out, np.float64), np.asarray(reference, np.float64)
    if not np.all(np.isfinite(out)):
        return "输出里有 NaN/inf" if lang == "zh" else "the output holds NaN/inf"
    gap = np.abs(out - reference)
    where = tuple(int(i) for i in np.unravel_index(np.argmax(gap), gap.shape))
    if lang == "zh":
        return f"最大偏差 {gap.max():.3g}，位于下标 {where}"
    return f"the largest gap is {gap.max():.3g}, at index {where}"


def wrong_values_message(stage: str, o: ProbeRun) -> dict:
    role = ROLE[stage]
    if not o.probe.valid:
        return texts((f"{at(o, 'zh')}，{role} 改写了本应原样不动的数组。",
                      "这种输入应被函数开头的输入检查拦下，代码却照常计算了。",
                      f"{role} 开头的输入检查是否还在、条件是否写对。"),
                     (f"{at(o, 'en')}, {role} changed an array it should have left as it was.",
                      "the input check at the top of the function should stop such input, yet the code computed "
                      "as usual.",
                      f"is the input check at the top of {role} still there, with the right condition?"))
    return texts((f"{at(o, 'zh')}，{role} 的结果与参考实现不同：{_largest_gap(o.out, o.reference, 'zh')}。",
                  "一个本诊断没有专门命名的错误。",
                  "用这个输入手算几个元素，与你的输出逐个对比（热力图标出了偏差的位置）。"),
                 (f"{at(o, 'en')}, the result of {role} differs from the reference: "
                  f"{_largest_gap(o.out, o.reference, 'en')}.",
                  "a mistake this diagnosis has no name for.",
                  "work out a few elements by hand for this input and compare them with your output one by one "
                  "(the heatmap marks where they differ)."))


def return_code_message(o: ProbeRun) -> dict:
    none = o.call.returned is None
    got = {"zh": "None（函数末尾缺少 return）" if none else repr(o.call.returned)[:40],
           "en": "None (no return at the end of the function)" if none else repr(o.call.returned)[:40]}
    want = {"zh": "整数 0（成功）" if o.probe.valid else "-1（输入不合法）",
            "en": "the integer 0 (success)" if o.probe.valid else "-1 (invalid input)"}
    return texts((f"{at(o, 'zh')}，student_attention_scores 返回了 {got['zh']}，应返回 {want['zh']}。",
                  "返回码是 C 函数的 int：成功 0，输入不合法 -1；verify 的“返回 0 (成功)”检查的就是它。",
                  "student_attention_scores 每一条路径上的 return 语句。"),
                 (f"{at(o, 'en')}, student_attention_scores returned {got['en']}; it should return {want['en']}.",
                  "the return code is the C function's int: 0 for success, -1 for invalid input; verify's "
                  "\"returns 0 (success)\" checks exactly that.",
                  "the return statement on every path through student_attention_scores."))


def mutation_message(stage: str, o: ProbeRun, names: dict) -> dict:
    role = ROLE[stage]
    return texts((f"{at(o, 'zh')}，{role} 修改了只读的输入 {names['zh']}。",
                  "对输入做了原地运算（例如 -=、/=，或 out= 指向了输入）。",
                  f"{role} 只写它该写的数组，其他参数只读。"),
                 (f"{at(o, 'en')}, {role} changed its read-only input {names['en']}.",
                  "an in-place operation on an input (such as -=, /=, or out= pointing at an input).",
                  f"{role} writes only the array it is meant to write; the other arguments are read-only."))


def pipeline_message(stage: str, error: str | None) -> dict:
    role = ROLE[stage]
    seen = {"zh": f"{role} 抛出了 {error_text(error, 'zh')}" if error else f"{role} 这一步的结果与参考实现不同",
            "en": f"{role} raised {error_text(error, 'en')}" if error else f"the result of {role} differs from the reference"}
    return texts((f"三个函数各自通过了单独的探针，但串成 scores → mask → softmax 后，{seen['zh']}。",
                  "某一步单独看是对的，串起来却错了：例如依赖上一次调用留下的状态（全局变量、缓存的数组）。",
                  "按 scores → mask → softmax 的顺序逐段打印中间结果，与参考对比。"),
                 (f"each of the three functions passes its own probes, but chained as scores → mask → softmax, "
                  f"{seen['en']}.",
                  "each step is right on its own but not in the chain: for example a step depends on state left by "
                  "an earlier call (a global variable, a cached array).",
                  "print the intermediate results in the order scores → mask → softmax and compare them with the "
                  "reference."))

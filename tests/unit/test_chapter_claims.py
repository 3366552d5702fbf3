"""Is every number the chapter states what the code computes or the cells print?

:data:`CLAIMS` is the table: where a sentence stands (a cell of the master, or the rubric), its words
as written there, and how to measure what it states, by running the master's own demo cells or
computing it afresh. The numbers are read from the words themselves, so the prose says each number
once and an edit that changes one fails here until the new number is measured too.
"""
import contextlib
import functools
import io
import math
import re
from dataclasses import dataclass
from typing import Callable

import nbformat
import numpy as np
import pytest

import attnkit
from attnkit import lab, verify
from attnkit.masks import MASKED_BELOW
from coursekit.paths import COURSE, MASTER

RUBRIC = "rubric"  # the written questions' rubric: autograde/rubrics/ch04_attention.toml
# A number in prose: not part of a name (float32, W_q) nor of a longer number; 1e-9 and -1e9 whole.
NUMBER = re.compile(r"(?<![A-Za-z_\d.])-?\d+(?:\.\d+)?(?:e-?\d+)?")


def numbers(text: str) -> tuple:
    return tuple(float(n) for n in NUMBER.findall(text))


@functools.cache
def source(where: str) -> str:
    if where == RUBRIC:
        return (COURSE / "rubrics" / "ch04_attention.toml").read_text(encoding="utf-8")
    return next(c.source for c in nbformat.read(MASTER, as_version=4).cells if c.id == where)


def execute(cell_id: str) -> tuple:
    """(namespace, what ``cell_id`` printed) after the master's set-up cell, as a student runs them."""
    namespace, printed = {"__name__": "__main__"}, io.StringIO()
    for cid, out in (("setup", io.StringIO()), (cell_id, printed)):
        with contextlib.redirect_stdout(out):
            exec(compile(source(cid), f"<cell {cid}>", "exec"), namespace)  # noqa: S102 -- the chapter's code
    return namespace, printed.getvalue()


run = functools.cache(execute)  # each demo cell once per test session


def names(cell_id: str) -> dict:
    """What ``cell_id`` leaves defined."""
    return run(cell_id)[0]


def who_reacts(f: str) -> np.ndarray:
    """§4.1's matrix for the cell's function ``f``: which output rows move when one input row is nudged."""
    return names("demo-motivation")["who_reacts"](names("demo-motivation")[f])


# ---------- what the cells print ----------

def scale_table() -> dict:
    """§4.6's table: {column: [one value per head_dim]}, as printed."""
    rows = [[float(x) for x in line.split("|")] for line in run("demo-scale")[1].splitlines()[1:]]
    names = ("head_dim", "var", "scaled_var", "sharp", "calm")
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}


def lab1_maxima(scale: str) -> list:
    """The row maxima the lab 1 cell prints for ``scale`` ("1.000" or "0.125")."""
    line = next(x for x in run("lab1-experiment")[1].splitlines() if x.startswith(f"scale = {scale}"))
    return [float(x) for x in line.split("[")[1].rstrip("]").split()]


def lab1_top_two(row: int) -> tuple:
    """The two largest unscaled scores of ``row`` in the lab 1 cell (its q, k)."""
    ns = names("lab1-experiment")
    scores = ns["q"] @ ns["k"].T  # (T, S)
    return tuple(np.sort(scores[row])[::-1][:2])


@functools.cache
def timings() -> dict:
    """{seq_len: (loops s, matmul s)} from the timing cell, the best of two runs: another process on the
    machine can only slow a run down, so the faster one is the one the code itself is responsible for."""
    best = {}
    for _ in range(2):
        for n, loops, matmul in re.findall(r"seq_len=\s*(\d+)\s+三层循环\s+([\d.]+) ms\s+矩阵乘\s+([\d.]+) µs",
                                           execute("timing")[1]):
            old = best.get(int(n), (math.inf, math.inf))
            best[int(n)] = (min(old[0], float(loops) / 1e3), min(old[1], float(matmul) / 1e6))
    return best


def ratio(seq_len: int) -> float:
    loops, matmul = timings()[seq_len]
    return loops / matmul


# ---------- computed afresh ----------

def float32_survival_bound() -> float:
    """The largest whole |score| that float32 still rounds into -1e9 when the mask is added, both signs."""
    masked = np.float32(attnkit.MASK_VALUE)
    lost = [s for s in range(200) if np.float32(s) + masked == masked and np.float32(-s) + masked == masked]
    assert lost == list(range(len(lost)))  # a run from 0 up, then every larger score survives
    return float(lost[-1])


def fully_masked_row() -> tuple:
    row = np.array([40.0, 0.0, -40.0], np.float32)
    return (40, 0, -40, *attnkit.softmax(row + np.float32(attnkit.MASK_VALUE)))


def renormalising_equals_masking_first() -> bool:
    """Softmax, zero the future, divide by the rest: the masked softmax, in float64 to 1e-12 (and the cell's)."""
    scores = np.random.default_rng(0).normal(size=(6, 6)) * 3  # (T, T)
    future = np.triu(np.ones((6, 6), bool), k=1)
    zeroed = np.where(future, 0.0, attnkit.softmax(scores))
    renormalised = zeroed / zeroed.sum(axis=1, keepdims=True)
    first = attnkit.softmax(attnkit.add_mask(scores, attnkit.create_causal_mask(6, np.float64)))
    ns = names("demo-mask-order")
    return np.allclose(renormalised, first, rtol=0, atol=1e-12) and np.allclose(ns["renormalised"], ns["right"])


def mask_value_in_float16():
    with np.errstate(over="ignore"):  # the overflow is the claim
        return np.array(attnkit.MASK_VALUE).astype(np.float16)


def num_params_for_any_head_count() -> tuple:
    counts = {attnkit.MultiHeadAttention(64, h).num_params for h in (1, 2, 4, 8)}
    return tuple(counts)  # one number if the count does not depend on the heads


def bias_count() -> int:
    """One bias vector per projection, as long as the projection's output."""
    mha = attnkit.MultiHeadAttention(64, 4)
    return sum(w.shape[1] for w in (mha.W_q, mha.W_k, mha.W_v, mha.W_o))


def the_one_line_formula_is_attention() -> bool:
    """``softmax(Q @ K^T / sqrt(head_dim) + M) @ V``, written out with numpy, against attnkit.attention."""
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(5, 8)), rng.normal(size=(5, 8)), rng.normal(size=(5, 3))  # (T, D), (S, D), (S, Dv)
    m = attnkit.create_causal_mask(5, np.float64)
    z = q @ k.T / math.sqrt(8) + m
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return np.allclose((e / e.sum(axis=1, keepdims=True)) @ v, attnkit.attention(q, k, v, mask=m)[0])


def left_padding_masks_row_0() -> bool:
    """Causal mask plus a padding mask on column 0: row 0 is the one row with nothing left to see."""
    padding = np.zeros((4, 4), np.float32)
    padding[:, 0] = attnkit.MASK_VALUE
    masked = attnkit.create_causal_mask(4) + padding <= MASKED_BELOW  # (T, S)
    return masked.all(axis=1).tolist() == [True, False, False, False]


def verify_calls_test4_in_order() -> bool:
    calls = []
    scores, mask, softmax = ((lambda *a, f=f, n=n: calls.append(n) or f(*a)) for f, n in zip(lab.REFERENCE, "smx"))
    verify.run_test4(scores, mask, softmax, file=io.StringIO())
    return "".join(calls) == "smx"


def not_in_place_fails_its_own_test() -> bool:
    """Rebinding instead of writing in place: each function fails its own TEST already, before TEST 4."""
    from support.mistakes import BY_NAME, functions, release
    own = {"bug_rebind_out": verify.run_test1, "bug_mask_rebound": verify.run_test2,
           "bug_softmax_rebind_out": verify.run_test3}
    nb = release()
    return all(test(functions(BY_NAME[name], nb)[i], file=io.StringIO()).failed > 0
               for i, (name, test) in enumerate(own.items()))


def returning_a_new_array_is_named() -> bool:
    from support.mistakes import DIAGNOSED_BY_NAME, functions, release
    printed = io.StringIO()
    verify.run_test3(functions(DIAGNOSED_BY_NAME["softmax_returns_new"], release())[2], file=printed)
    return "返回了一个新数组" in printed.getvalue()


def baseline_counts() -> tuple:
    report = verify.run_all(*lab.STUBS, file=io.StringIO())
    return report.failed, report.passed


@dataclass(frozen=True)
class Claim:
    """A sentence of the chapter and how to measure it.

    ``measured`` returns a bool (the sentence holds) or numbers: one per number in ``text``, or several
    that must all match the text's single number. ``kind``: "equal" (within ``tol``), "range" (the
    text's last two numbers bound every measured value; numbers before them are settings, measured
    first and equal), "order" (the same power of ten, within a factor √10).
    """
    where: str
    text: str
    measured: Callable
    tol: float = 0.0
    kind: str = "equal"


def _mha_scale() -> float:
    return attnkit.default_scale(attnkit.MultiHeadAttention(64, 4).head_dim)


CLAIMS = [
    # §4.1, §4.4: the demos' own captions
    Claim("demo-motivation", "只对输入第 i 行有反应（对角阵）",
          lambda: np.array_equal(who_reacts("per_position"), np.eye(6))),
    Claim("demo-motivation", "对输入第 0..i 行都有反应（下三角）",
          lambda: np.array_equal(who_reacts("self_attention"), np.tril(np.ones((6, 6))))),
    Claim("demo-qkv", "两个「时间」位置平分了注意力",
          lambda: abs(names("demo-qkv")["weights"][0, 2] - names("demo-qkv")["weights"][0, 3]) < 1e-6),
    # §4.3, §4.14: the whole of it in one line
    Claim("s42-goals", "out = softmax(Q @ K^T / sqrt(head_dim) + M) @ V", the_one_line_formula_is_attention),
    Claim("s412-summary", "`out = softmax(Q @ K^T / sqrt(head_dim) + M) @ V`", the_one_line_formula_is_attention),
    # §4.3: heads
    Claim("s42-goals", "`hidden_dim = 64`、`num_heads = 4` 时，每个头 16 维",
          lambda: (64, 4, attnkit.MultiHeadAttention(64, 4).head_dim)),
    # §4.5: K.T in numpy
    Claim("s45-shape", "`K.T` 只是换了读取顺序的**视图**（view），和 `K` 共用同一块内存，并不复制数据",
          lambda: names("demo-shape")["K"].T.base is names("demo-shape")["K"]
          and np.shares_memory(names("demo-shape")["K"], names("demo-shape")["K"].T)),
    # §4.6: variances and max weights, as the table prints them
    Claim("s46-scale", "**点积的方差约等于 `head_dim`**",
          lambda: all(abs(v / d - 1) < 0.1 for v, d in zip(scale_table()["var"], scale_table()["head_dim"]))),
    Claim("s46-scale", "`head_dim` 从 4 涨到 256，分数的典型幅度就从 2 涨到 16",
          lambda: (scale_table()["head_dim"][0], scale_table()["head_dim"][-1],
                   math.sqrt(scale_table()["var"][0]), math.sqrt(scale_table()["var"][-1])), 0.1),
    Claim("s46-scale", "正好把点积的标准差拉回 1 附近，无论 `head_dim` 取多少",
          lambda: tuple(math.sqrt(v) for v in scale_table()["scaled_var"]), 0.05),
    Claim("s46-scale", "均匀分布时是 0.125", lambda: (1 / 8,)),
    Claim("s46-scale", "最大权重随 `head_dim` 从 0.54 一路涨到 0.94",
          lambda: (scale_table()["sharp"][0], scale_table()["sharp"][-1]), 0.005),
    Claim("s46-scale", "它稳定在 0.35 左右", lambda: tuple(scale_table()["calm"]), 0.015),
    # §4.7: zeroing, renormalising
    Claim("s47-mask-order", "得到的权重和先加掩码**完全相同**", renormalising_equals_masking_first),
    Claim("demo-mask-order", "除最后一行外都小于 1",
          lambda: bool(np.all(names("demo-mask-order")["zeroed"].sum(axis=1)[:-1] < 1 - 1e-3))
          and abs(names("demo-mask-order")["zeroed"].sum(axis=1)[-1] - 1) < 1e-6),
    # §4.8: float32 near 1e9, float16
    Claim("s48-neg-inf", "第 0 行在因果掩码下只能看第 0 列，而第 0 列恰好是填充", left_padding_masks_row_0),
    Claim("s48-neg-inf", "只有 24 位有效二进制数字", lambda: (np.finfo(np.float32).nmant + 1,)),
    Claim("s48-neg-inf", "相邻两个能表示的数相差 64", lambda: (float(np.spacing(np.float32(1e9))),)),
    Claim("s48-neg-inf", "分数的绝对值不超过 32 时", lambda: (float32_survival_bound(),)),
    Claim("s48-neg-inf", "`40 + (-1e9)` 得到 `-999999936`",
          lambda: (40, -1e9, float(np.float32(40) + np.float32(-1e9)))),
    Claim("s48-neg-inf", "整行被屏蔽的 `[40, 0, -40]` 经过 softmax 变成 `[1, 0, 0]`", fully_masked_row, 1e-6),
    Claim("s48-neg-inf", "`exp(-1e9 - max)` 在 float32 里直接下溢成 0",
          lambda: float(np.exp(np.float32(-1e9) - np.float32(5))) == 0.0),
    Claim("s48-neg-inf", "float16 能表示的最大数只有 65504", lambda: (float(np.finfo(np.float16).max),)),
    Claim("s48-neg-inf", "`-1e9` 转成 float16 会溢出成 `-inf`", lambda: bool(np.isneginf(mask_value_in_float16()))),
    Claim("neg-inf-figure-intro", "第 1 行的分数都在 ±32 以内",
          lambda: float(np.abs(names("demo-neg-inf")["scores"][1]).max()) <= float32_survival_bound()),
    # §4.9: the contract, the baseline
    Claim("intro", "通过与 C 实验相同的 22 项 verify 检查", lambda: (len(verify.run_all(*lab.REFERENCE,
                                                                                      file=io.StringIO()).checks),)),
    Claim("s49-practice", "按 1e-9 的相对精度比较", lambda: (lab.TOLERANCE["float64"],)),
    Claim("s49-practice", "float32 的舍入误差在 1e-7 左右", lambda: (float(np.finfo(np.float32).eps),), kind="order"),
    Claim("s49-practice", "`结果: 11 失败 / 11 通过`", baseline_counts),
    Claim("test4-intro", "TEST 4 自己按 scores → mask → softmax 依次调用三个函数", verify_calls_test4_in_order),
    Claim("test4-intro", "它在自己的 TEST 里就已经 FAIL 了", not_in_place_fails_its_own_test),
    Claim("test4-intro", "verify 还会提示「返回了一个新数组」", returning_a_new_array_is_named),
    # §4.11: heads and parameters
    Claim("s-multihead", "`1/sqrt(16) = 0.25`", lambda: (1, attnkit.MultiHeadAttention(64, 4).head_dim, _mha_scale())),
    Claim("s-multihead", "不计偏置：`4 × 64 × 64 = 16384`", lambda: (4, 64, 64, *num_params_for_any_head_count())),
    Claim("s-multihead", "就再多 `4 × 64 = 256` 个", lambda: (4, 64, bias_count())),
    Claim("q-lab4-prompt", "`4 × 64 × 64 = 16384` 个参数（不计偏置）",
          lambda: (4, 64, 64, *num_params_for_any_head_count())),
    Claim("q-lab4", "不计偏置共 `4 × 64² = 16384` 个", lambda: (4, 64, *num_params_for_any_head_count())),
    Claim("q-lab4", "带偏置的话再加 `4 × 64 = 256` 个", lambda: (4, 64, bias_count())),
    Claim(RUBRIC, "不计偏置共 16384", num_params_for_any_head_count),
    # lab 1: one-hot, mostly
    Claim("q-lab1", "标准差约为 8", lambda: (math.sqrt(names("lab1-experiment")["head_dim"]),)),
    Claim("q-lab1", "`exp(10)` 已经超过两万倍", lambda: math.exp(10) > 20_000),
    Claim("q-lab1", "最大权重是 0.999、0.352、0.998、0.988", lambda: tuple(lab1_maxima("1.000")), 0.0005),
    Claim("q-lab1", "第 1 行最大的两个分数只差 0.06 左右",
          lambda: (1, lab1_top_two(1)[0] - lab1_top_two(1)[1]), 0.01),
    Claim("q-lab1", "两个位置的权重几乎一样大", lambda: math.exp(lab1_top_two(1)[1] - lab1_top_two(1)[0]) > 0.9),
    Claim("q-lab1", "`1/sqrt(64) = 0.125`", lambda: (1, 64, attnkit.default_scale(64))),
    Claim("q-lab1", "四行的最大权重降到 0.2–0.47", lambda: tuple(lab1_maxima("0.125")), 0.0015, "range"),
    Claim(RUBRIC, "实验第 1 行的最大权重只有 0.352", lambda: (1, lab1_maxima("1.000")[1]), 0.0005),
    Claim(RUBRIC, "不缩放时分数的标准差约为 √64 = 8", lambda: (64, math.sqrt(64))),
    # lab 2: -1e9 in float32
    Claim("q-lab2", "绝对值不超过 32 的分数加上 `-1e9` 都舍入成 `-1e9`",
          lambda: (float32_survival_bound(), -1e9, float(np.float32(32) + np.float32(-1e9)))),
    Claim("q-lab2", "`[40, 0, -40]` 得到 `[1, 0, 0]`", fully_masked_row, 1e-6),
    Claim(RUBRIC, "float32 里分数的绝对值不超过 32 时是均匀分布", lambda: (float32_survival_bound(),)),
    # lab 3: the timing cell, as ranges
    Claim("q-lab3", "seq_len = 8 时快 100–300 倍", lambda: (8, ratio(8)), kind="range"),
    Claim("q-lab3", "seq_len = 64 时快 1000–10000 倍", lambda: (64, ratio(64)), kind="range"),
    Claim("q-lab3", "矩阵乘法每次调用有几微秒的固定开销，`seq_len` 小时它占了大头",
          lambda: 1e-6 <= timings()[8][1] <= 2e-5 and timings()[16][1] < 2 * timings()[8][1]),
    Claim("q-lab3", "两种写法的计算量都按 `seq_len² · head_dim` 增长，所以倍数不会一直涨下去，最终趋于平稳",
          lambda: 3 < timings()[64][0] / timings()[32][0] < 5.5 and ratio(64) / ratio(32) < ratio(16) / ratio(8)),
    Claim(RUBRIC, "计时格子里约 100 到 10000 倍", lambda: tuple(ratio(n) for n in (8, 16, 32, 64)), kind="range"),
]


def mismatch(claim: Claim) -> str | None:
    """None when the claim holds; otherwise what was stated and what was measured."""
    got, stated = claim.measured(), numbers(claim.text)
    if isinstance(got, (bool, np.bool_)):
        return None if got else "does not hold"
    got = tuple(float(x) for x in got)
    if claim.kind == "range":  # the text's last two numbers bound the values; numbers before them are settings
        settings, (low, high) = stated[:-2], stated[-2:]
        values = got[len(settings):]
        ok = got[:len(settings)] == settings and bool(values) and all(low - claim.tol <= g <= high + claim.tol
                                                                       for g in values)
    elif claim.kind == "order":
        ok = len(got) == len(stated) and all(abs(math.log10(g / s)) < 0.5 for g, s in zip(got, stated))
    else:
        wanted = stated * len(got) if len(stated) == 1 else stated
        ok = len(got) == len(wanted) and all(abs(g - s) <= claim.tol + 1e-9 * abs(s) for g, s in zip(got, wanted))
    return None if ok else f"stated {stated}, measured {got}"


@pytest.mark.parametrize("claim", CLAIMS, ids=[f"{c.where}:{c.text[:24]}" for c in CLAIMS])
def test_does_the_chapter_state_what_the_code_measures(claim):
    """The sentence stands where the table says, word for word, and its numbers are the measured ones?"""
    assert claim.text in source(claim.where), f"{claim.where} no longer says: {claim.text}"
    assert mismatch(claim) is None, mismatch(claim)


@pytest.mark.parametrize("claim, wrong", [
    (Claim("x", "稳定在 0.45 左右", lambda: (0.359, 0.350), 0.015), "one number off"),
    (Claim("x", "快 100–300 倍", lambda: (3000.0,), kind="range"), "out of range"),
    (Claim("x", "相差 64", lambda: (64.0, 1.0)), "one number more than stated"),
    (Claim("x", "误差在 1e-5 左右", lambda: (1.19e-7,), kind="order"), "another power of ten"),
    (Claim("x", "完全相同", lambda: False), "a sentence that does not hold"),
])
def test_does_a_wrong_claim_get_caught(claim, wrong):
    """Control: a stated number the measurement does not bear out is reported, whatever the kind?"""
    assert mismatch(claim) is not None, wrong


def test_are_numbers_read_as_the_prose_means_them():
    """float32 and W_q are names, not numbers; -1e9, 1e-9, 0.125 and ranges are read whole?"""
    assert numbers("float32 里 `40 + (-1e9)` 得到 `-999999936`") == (40, -1e9, -999999936)
    assert numbers("按 1e-9 的精度，0.2–0.47，`4 × 64² = 16384`") == (1e-9, 0.2, 0.47, 4, 64, 16384)


# Prose numbers that are results (two or more decimals, or whole numbers of three digits or more) must be in
# a claim of their cell; inputs the text only describes are listed here instead, with what they are.
INPUTS = {"1024": "the explorer's largest head_dim", "1000": "a large logit the hidden checks feed",
          "0.000000": "verify's printed row sums (§4.10's test)", "0.250000": "ditto", "4.000000": "ditto"}
RESULT = re.compile(r"(?<![A-Za-z_\d.])-?(?:\d+\.\d{2,}|\d{3,})(?![\d.])")
SECTION = re.compile(r"(?<![\d.])4\.1[0-4](?!\d)")  # the chapter's own section numbers 4.10-4.14


def test_does_every_result_the_prose_states_have_a_claim():
    """Every number with two decimals or three digits in the master's prose is in a claim of its cell?"""
    nb = nbformat.read(MASTER, as_version=4)
    claimed = {}
    for claim in CLAIMS:
        claimed.setdefault(claim.where, "")
        claimed[claim.where] += claim.text
    missing = [(c.id, n) for c in nb.cells if c.cell_type == "markdown"
               for n in RESULT.findall(SECTION.sub("", c.source)) if n not in INPUTS and n not in claimed.get(c.id, "")]
    assert missing == []

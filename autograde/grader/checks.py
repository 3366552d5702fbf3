"""The hidden checks of TEST 1-4: inputs verify never uses, each with a stable id.

Every check is a :class:`Hidden` whose ``run(fns, tol)`` calls the student's functions on
fresh arrays and compares with :mod:`.oracle`; a check whose call raises counts as failed
(the caller, :func:`run_checks`, turns exceptions into ``False``). ``tol`` maps a dtype name
to the course's tolerance (``attnkit.lab.TOLERANCE``). Ids (``test<n>.<what>``) are what the
class report and the mistake table refer to: keep them when rewording a description. Each
description is written in every edition's language (``{"zh": …, "en": …}``); the feedback shows
the notebook's (:meth:`Hidden.text`).
Shape legend: T queries, S keys, D head dim, H heads.
"""
import math
from typing import Callable, NamedTuple

import numpy as np

from . import oracle

__all__ = ["Hidden", "HIDDEN", "run_checks"]

F32, F64 = np.float32, np.float64


# Not a dataclass: each test cell loads this file again, and a frozen dataclass costs ≈ 0.7 ms to make.
class Hidden(NamedTuple):
    id: str
    description: dict  # {language: what the check feeds and expects}
    run: Callable  # (fns: tuple, tol: dict) -> bool

    def text(self, lang: str) -> str:
        """The description in ``lang``."""
        return self.description[lang]


def run_checks(checks, fns: tuple, tol: dict) -> list:
    """``[(check, passed)]``; a check that raises (student code may raise anything) fails."""
    results = []
    for check in checks:
        try:
            ok = bool(check.run(fns, tol))
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: B036 -- even SystemExit from student code is a failed check
            ok = False
        results.append((check, ok))
    return results


def _rand(seed: int, shape, dtype, spread: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * spread).astype(dtype)


def _returned(rc, code: int) -> bool:
    return isinstance(rc, (int, np.integer)) and not isinstance(rc, bool) and rc == code


def _causal(n: int) -> np.ndarray:
    return np.array([[-1e9 if j > i else 0.0 for j in range(n)] for i in range(n)], F32)  # (T, T)


def _padding(rows: int, cols: int, blocked_cols=(), blocked_rows=()) -> np.ndarray:
    return np.array([[-1e9 if (j in blocked_cols or i in blocked_rows) else 0.0 for j in range(cols)]
                     for i in range(rows)], F32)  # (T, S)


# ---------- TEST 1: student_attention_scores ----------

def _scores_case(fn, Q, K, scale, tol, out=None) -> bool:
    out = np.zeros((len(Q), len(K)), Q.dtype) if out is None else out  # (T, S)
    q0, k0, dtype = Q.tolist(), K.tolist(), Q.dtype.name
    rc = fn(Q, K, scale, out)
    unchanged = Q.tolist() == q0 and K.tolist() == k0
    return _returned(rc, 0) and unchanged and oracle.close(out.tolist(), oracle.scores(q0, k0, scale, dtype), tol[dtype])


def _scores_rejects(fn) -> bool:
    bad = [(_rand(1, (2, 3), F32), _rand(2, (2, 4), F32), np.zeros((2, 2), F32)),
           (_rand(3, (2, 3), F32), _rand(4, (3, 3), F32), np.zeros((3, 2), F32)),
           (_rand(5, (3,), F32), _rand(6, (3, 3), F32), np.zeros((1, 3), F32))]
    for Q, K, out in bad:
        out[...] = 5.0
        if not _returned(fn(Q, K, 1.0, out), -1) or not bool((out == 5.0).all()):
            return False
    return True


def _t1(seed_q, shape_q, seed_k, shape_k, dtype, scale, prefill=None):
    def run(fns, tol):
        Q, K = _rand(seed_q, shape_q, dtype), _rand(seed_k, shape_k, dtype)
        out = None if prefill is None else np.full((shape_q[0], shape_k[0]), prefill, dtype)
        return _scores_case(fns[0], Q, K, scale, tol, out)
    return run


TEST1 = (
    Hidden("test1.random_rect",
           {"zh": "随机且不对称的 Q≠K，seq_q=3≠seq_k=4，head_dim=5（float32，scale=1/√5）",
            "en": "random, unsymmetric Q ≠ K, seq_q=3 ≠ seq_k=4, head_dim=5 (float32, scale=1/√5)"},
           _t1(11, (3, 5), 12, (4, 5), F32, 1 / math.sqrt(5))),
    Hidden("test1.float64",
           {"zh": "float64 输入：Q [5,3]、K [2,3]，scale=0.37（结果保持 float64 精度）",
            "en": "float64 input: Q [5,3], K [2,3], scale=0.37 (the result keeps float64 precision)"},
           _t1(13, (5, 3), 14, (2, 3), F64, 0.37)),
    Hidden("test1.square_q_ne_k",
           {"zh": "方阵但 Q≠K（[4,6]）：Q@Q^T 或 K@Q^T 都会算错",
            "en": "square but Q ≠ K ([4,6]): Q@Q^T and K@Q^T both get it wrong"},
           _t1(15, (4, 6), 16, (4, 6), F32, 0.5)),
    Hidden("test1.overwrites_out",
           {"zh": "out 里原有的值（7.0）被覆盖，而不是在上面累加",
            "en": "the 7.0 already in out is overwritten, not added to"},
           _t1(17, (2, 3), 18, (3, 3), F32, 1.0, prefill=7.0)),
    Hidden("test1.scale_keeps_inputs",
           {"zh": "scale=2.0 的另一组输入，且 Q、K 本身不被修改",
            "en": "another input with scale=2.0, and Q and K themselves left unchanged"},
           _t1(19, (3, 2), 20, (5, 2), F64, 2.0)),
    Hidden("test1.single_key",
           {"zh": "seq_k=1 的边界情况：Q [4,6]、K [1,6]",
            "en": "the edge case seq_k=1: Q [4,6], K [1,6]"},
           _t1(21, (4, 6), 22, (1, 6), F32, 0.25)),
    Hidden("test1.rejects_bad_input",
           {"zh": "输入不合法（head_dim 不符、out 形状不符、Q 不是 2-D）时返回 -1 且不写 out",
            "en": "invalid input (head_dim differs, out of the wrong shape, Q not 2-D) returns -1 and leaves out "
                  "alone"},
           lambda fns, tol: _scores_rejects(fns[0])),
)


# ---------- TEST 2: student_apply_mask ----------

def _mask_case(fn, scores, mask, tol) -> bool:
    s0, m0, dtype = scores.tolist(), mask.tolist(), scores.dtype.name
    fn(scores, mask)
    return mask.tolist() == m0 and oracle.close(scores.tolist(), oracle.add(s0, m0, dtype), tol[dtype])


def _mask_view(fn, tol) -> bool:
    # Odd width: the view's rows are not evenly spaced in memory, so reshape(-1) must copy.
    buffer = _rand(31, (4, 9), F32)
    before, others = buffer.copy(), [1, 3, 5, 7, 8]
    fn(buffer[:, :8:2], _causal(4))  # (4, 4) a non-contiguous view into buffer
    expected = oracle.add(before[:, :8:2].tolist(), _causal(4).tolist(), "float32")
    return (oracle.close(buffer[:, :8:2].tolist(), expected, tol["float32"])
            and buffer[:, others].tolist() == before[:, others].tolist())


def _mask_reused(fn, tol) -> bool:
    mask = _rand(32, (3, 5), F32)
    return (_mask_case(fn, _rand(33, (3, 5), F32), mask, tol)
            and _mask_case(fn, _rand(34, (3, 5), F32), mask, tol))


def _mask_mismatch(fn) -> bool:
    scores = _rand(35, (3, 3), F32)
    before = scores.tolist()
    fn(scores, _rand(36, (3, 4), F32))
    return scores.tolist() == before


TEST2 = (
    Hidden("test2.random_causal",
           {"zh": "随机 scores 加因果掩码：可见位置保持原值，未来位置 ≈ -1e9",
            "en": "random scores plus a causal mask: visible cells keep their values, future cells ≈ -1e9"},
           lambda fns, tol: _mask_case(fns[0], _rand(37, (5, 5), F32), _causal(5), tol)),
    Hidden("test2.general_additive",
           {"zh": "任意加性掩码（有正有负）、非方阵 [3,6]：逐元素相加",
            "en": "any additive mask (positive and negative values), non-square [3,6]: added element by element"},
           lambda fns, tol: _mask_case(fns[0], _rand(38, (3, 6), F32), _rand(39, (3, 6), F32, 3.0), tol)),
    Hidden("test2.float64_scores",
           {"zh": "float64 的 scores 配 float32 的 mask：原地相加，保持 float64 精度",
            "en": "float64 scores with a float32 mask: added in place, keeping float64 precision"},
           lambda fns, tol: _mask_case(fns[0], _rand(40, (4, 4), F64), _causal(4), tol)),
    Hidden("test2.strided_view",
           {"zh": "scores 是大数组的非连续视图：结果写回原数组，旁边的元素不动",
            "en": "scores is a non-contiguous view of a larger array: the result lands in that array, its other "
                  "elements untouched"},
           lambda fns, tol: _mask_view(fns[0], tol)),
    Hidden("test2.mask_reused",
           {"zh": "同一个 mask 连续用于两组 scores，两次都对（mask 本身不被修改）",
            "en": "one mask used for two sets of scores in a row, right both times (the mask itself unchanged)"},
           lambda fns, tol: _mask_reused(fns[0], tol)),
    Hidden("test2.shape_mismatch",
           {"zh": "形状不匹配时什么也不做、不抛异常",
            "en": "shapes that do not match: nothing happens, no exception"},
           lambda fns, tol: _mask_mismatch(fns[0])),
)


# ---------- TEST 3: student_softmax ----------

def _softmax_case(fn, inp, tol, prefill=0.0) -> bool:
    out = np.full(inp.shape, prefill, inp.dtype)
    before, dtype = inp.tolist(), inp.dtype.name
    fn(out, inp)
    return inp.tolist() == before and oracle.close(out.tolist(), oracle.softmax(before), tol[dtype])


def _softmax_mismatch(fn) -> bool:
    out = np.full((2, 3), 4.0, F32)
    fn(out, _rand(51, (3, 2), F32))
    return bool((out == 4.0).all())


def _t3(make, prefill=0.0):
    return lambda fns, tol: _softmax_case(fns[0], make(), tol, prefill)


TEST3 = (
    Hidden("test3.random_float64",
           {"zh": "随机输入（float64，[3,5]）与独立实现一致（精度 1e-9）",
            "en": "random input (float64, [3,5]) agrees with an independent implementation (to 1e-9)"},
           _t3(lambda: _rand(52, (3, 5), F64, 3.0))),
    Hidden("test3.large_logits",
           {"zh": "大 logits（float32，如 1000、100）：必须先减每行的最大值",
            "en": "large logits (float32, such as 1000 and 100): each row's maximum must be subtracted first"},
           _t3(lambda: np.array([[1000, 1001, 999], [100, 90, 80]], F32))),
    Hidden("test3.per_row_max",
           {"zh": "各行量级相差悬殊：减的是每行自己的最大值，而不是整个矩阵的",
            "en": "rows of very different size: each row subtracts its own maximum, not the whole matrix's"},
           _t3(lambda: np.array([[1000, 999, 998], [0, 1, 2], [-1000, -1001, -999]], F64))),
    Hidden("test3.masked_rows",
           {"zh": "含 -1e9 的行，包括整行都被屏蔽（应为均匀分布，不能是 NaN）",
            "en": "rows holding -1e9, one of them fully masked (it must come out uniform, not NaN)"},
           _t3(lambda: np.array([[-1e9] * 4, [0.5, -1e9, -1e9, -1e9], [1, 2, -1e9, 3]], F32))),
    Hidden("test3.three_d",
           {"zh": "3-D 输入 [2,3,4]：沿最后一维归一化",
            "en": "3-D input [2,3,4]: normalised along the last axis"},
           _t3(lambda: _rand(53, (2, 3, 4), F32, 2.0))),
    Hidden("test3.one_d",
           {"zh": "1-D 输入 [5]",
            "en": "1-D input [5]"},
           _t3(lambda: _rand(54, (5,), F64))),
    Hidden("test3.keeps_inp_overwrites_out",
           {"zh": "不修改 inp；out 里原有的值（9.0）被覆盖",
            "en": "inp left unchanged; the 9.0 already in out is overwritten"},
           _t3(lambda: _rand(55, (3, 4), F32), prefill=9.0)),
    Hidden("test3.shape_mismatch",
           {"zh": "形状不匹配时什么也不做、不抛异常",
            "en": "shapes that do not match: nothing happens, no exception"},
           lambda fns, tol: _softmax_mismatch(fns[0])),
)


# ---------- TEST 4: scores -> mask -> softmax ----------

def _pipeline_case(fns, Q, K, scale, mask, tol, scores=None, weights=None) -> bool:
    scores_fn, mask_fn, softmax_fn = fns
    dtype = Q.dtype.name
    scores = np.zeros((len(Q), len(K)), Q.dtype) if scores is None else scores  # (T, S)
    weights = np.zeros((len(Q), len(K)), Q.dtype) if weights is None else weights  # (T, S)
    expected = oracle.softmax(oracle.add(oracle.scores(Q.tolist(), K.tolist(), scale, dtype), mask.tolist(), dtype))
    rc = scores_fn(Q, K, scale, scores)
    mask_fn(scores, mask)
    softmax_fn(weights, scores)
    return _returned(rc, 0) and oracle.close(weights.tolist(), expected, tol[dtype])


def _pipeline_heads(fns, tol) -> bool:
    x, w = _rand(61, (4, 8), F32), _rand(62, (8, 16), F32, 0.5)
    proj = x @ w  # (T, 2C): queries in columns 0-7, keys in 8-15
    scores, weights = np.zeros((2, 4, 4), F32), np.zeros((2, 4, 4), F32)  # (H, T, S)
    return all(_pipeline_case(fns, proj[:, 4 * h:4 * h + 4], proj[:, 8 + 4 * h:12 + 4 * h], 0.5,
                              _causal(4), tol, scores[h], weights[h]) for h in range(2))


def _integer_qk():
    return np.random.default_rng(63).integers(-6, 7, (2, 4, 4)).astype(F32)  # dots are exact in float32


TEST4 = (
    Hidden("test4.random_causal",
           {"zh": "随机 Q≠K 加因果掩码（float32，T=5，head_dim=8，scale=1/√8）",
            "en": "random Q ≠ K plus a causal mask (float32, T=5, head_dim=8, scale=1/√8)"},
           lambda fns, tol: _pipeline_case(fns, _rand(64, (5, 8), F32), _rand(65, (5, 8), F32),
                                           1 / math.sqrt(8), _causal(5), tol)),
    Hidden("test4.padding_rect",
           {"zh": "padding 掩码、seq_q=3≠seq_k=6（float64，scale=0.7）",
            "en": "a padding mask, seq_q=3 ≠ seq_k=6 (float64, scale=0.7)"},
           lambda fns, tol: _pipeline_case(fns, _rand(66, (3, 4), F64), _rand(67, (6, 4), F64), 0.7,
                                           _padding(3, 6, (4, 5)), tol)),
    Hidden("test4.large_scores",
           {"zh": "大分数（scale=4，分数可达 ±160）：权重仍然有限、每行和为 1",
            "en": "large scores (scale=4, scores up to ±160): the weights stay finite and each row sums to 1"},
           lambda fns, tol: _pipeline_case(fns, *_integer_qk(), 4.0, _causal(4), tol)),
    Hidden("test4.masked_row",
           {"zh": "某一整行都被屏蔽：该行是均匀分布而不是 NaN",
            "en": "one fully masked row: that row is uniform, not NaN"},
           lambda fns, tol: _pipeline_case(fns, _rand(68, (3, 4), F32), _rand(69, (3, 4), F32), 0.5,
                                           _padding(3, 3, (), (1,)), tol)),
    Hidden("test4.head_slices",
           {"zh": "多头切片：Q、K 是投影结果的列切片（非连续视图），结果写进 [H,T,S] 缓冲区的一片",
            "en": "slices of several heads: Q and K are column slices of a projection (non-contiguous views), the "
                  "results go into a slice of an [H,T,S] buffer"},
           _pipeline_heads),
)

HIDDEN = {1: TEST1, 2: TEST2, 3: TEST3, 4: TEST4}

"""The hidden checks of TEST 1-4: inputs verify never uses, each with a stable id.

Every check is a :class:`Hidden` whose ``run(fns, tol, inputs)`` calls the student's functions on
fresh arrays drawn from ``inputs`` (:class:`.inputs.Inputs`: the submission's seed, so no two
submissions are asked the same values) and compares with :mod:`.oracle`; a check whose call raises
counts as failed (the caller, :func:`run_checks`, turns exceptions into ``False``). ``tol`` maps a
dtype name to the course's tolerance (``attnkit.lab.TOLERANCE``). A check built on a property of its
values (rows far apart, a fully masked row, saturated scores) draws values that keep it, whatever
the seed (tests/unit/test_grader_inputs.py holds the mistake table to that). Ids (``test<n>.<what>``) are what the
class report and the mistake table refer to: keep them when rewording a description. Each
description is a message of the grader's catalogue (``checks.<id>``, ``autograde/grader/locale``); the feedback
shows the notebook's language (:meth:`Hidden.text`).
Shape legend: T queries, S keys, D head dim, H heads.
"""
import math
from typing import Callable, NamedTuple

import numpy as np

from . import inputs, oracle
from .inputs import Inputs
from .words import WORDS, marked

__all__ = ["Hidden", "HIDDEN", "run_checks", "Inputs"]

F32, F64 = np.float32, np.float64


# Not a dataclass: each test cell loads this file again, and a frozen dataclass costs ≈ 0.7 ms to make.
class Hidden(NamedTuple):
    id: str
    description: str  # what the check feeds and expects: a message id of the grader's catalogue
    run: Callable  # (fns: tuple, tol: dict, inputs: Inputs) -> bool

    def text(self, lang: str) -> str:
        """The description in ``lang``."""
        return WORDS.say(lang, self.description)


def run_checks(checks, fns: tuple, tol: dict, inputs) -> list:
    """``[(check, passed)]``; a check that raises (student code may raise anything) fails."""
    results = []
    for check in checks:
        try:
            ok = bool(check.run(fns, tol, inputs))
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: B036 -- even SystemExit from student code is a failed check
            ok = False
        results.append((check, ok))
    return results


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


def _scores_rejects(fn, inputs: Inputs) -> bool:
    shapes = [((2, 3), (2, 4), (2, 2)), ((2, 3), (3, 3), (3, 2)), ((3,), (3, 3), (1, 3))]  # D differs; out; 1-D Q
    for n, (q, k, o) in enumerate(shapes):
        Q, K, out = inputs.normal(f"t1.bad{n}.q", q, F32), inputs.normal(f"t1.bad{n}.k", k, F32), np.zeros(o, F32)
        out[...] = 5.0
        if not _returned(fn(Q, K, 1.0, out), -1) or not bool((out == 5.0).all()):
            return False
    return True


def _t1(tag, shape_q, shape_k, dtype, scale, prefill=None):
    def run(fns, tol, inputs):
        Q, K = inputs.normal(f"{tag}.q", shape_q, dtype), inputs.normal(f"{tag}.k", shape_k, dtype)
        out = None if prefill is None else np.full((shape_q[0], shape_k[0]), prefill, dtype)
        return _scores_case(fns[0], Q, K, scale, tol, out)
    return run


TEST1 = (
    Hidden("test1.random_rect", marked("checks.test1.random_rect"),
           _t1("t1.rect", (3, 5), (4, 5), F32, 1 / math.sqrt(5))),
    Hidden("test1.float64", marked("checks.test1.float64"),
           _t1("t1.f64", (5, 3), (2, 3), F64, 0.37)),
    Hidden("test1.square_q_ne_k", marked("checks.test1.square_q_ne_k"),
           _t1("t1.square", (4, 6), (4, 6), F32, 0.5)),
    Hidden("test1.overwrites_out", marked("checks.test1.overwrites_out"),
           _t1("t1.prefill", (2, 3), (3, 3), F32, 1.0, prefill=7.0)),
    Hidden("test1.scale_keeps_inputs", marked("checks.test1.scale_keeps_inputs"),
           _t1("t1.keeps", (3, 2), (5, 2), F64, 2.0)),
    Hidden("test1.single_key", marked("checks.test1.single_key"),
           _t1("t1.single", (4, 6), (1, 6), F32, 0.25)),
    Hidden("test1.rejects_bad_input", marked("checks.test1.rejects_bad_input"),
           lambda fns, tol, inputs: _scores_rejects(fns[0], inputs)),
)


# ---------- TEST 2: student_apply_mask ----------

def _mask_case(fn, scores, mask, tol) -> bool:
    s0, m0, dtype = scores.tolist(), mask.tolist(), scores.dtype.name
    fn(scores, mask)
    return mask.tolist() == m0 and oracle.close(scores.tolist(), oracle.add(s0, m0, dtype), tol[dtype])


def _mask_view(fn, tol, inputs: Inputs) -> bool:
    # Odd width: the view's rows are not evenly spaced in memory, so reshape(-1) must copy.
    buffer = inputs.normal("t2.view", (4, 9), F32)
    before, others = buffer.copy(), [1, 3, 5, 7, 8]
    fn(buffer[:, :8:2], _causal(4))  # (4, 4) a non-contiguous view into buffer
    expected = oracle.add(before[:, :8:2].tolist(), _causal(4).tolist(), "float32")
    return (oracle.close(buffer[:, :8:2].tolist(), expected, tol["float32"])
            and buffer[:, others].tolist() == before[:, others].tolist())


def _mask_reused(fn, tol, inputs: Inputs) -> bool:
    mask = inputs.normal("t2.reused.mask", (3, 5), F32)
    return (_mask_case(fn, inputs.normal("t2.reused.a", (3, 5), F32), mask, tol)
            and _mask_case(fn, inputs.normal("t2.reused.b", (3, 5), F32), mask, tol))


def _mask_mismatch(fn, inputs: Inputs) -> bool:
    scores = inputs.normal("t2.mismatch.scores", (3, 3), F32)
    before = scores.tolist()
    fn(scores, inputs.normal("t2.mismatch.mask", (3, 4), F32))
    return scores.tolist() == before


TEST2 = (
    Hidden("test2.random_causal", marked("checks.test2.random_causal"),
           lambda fns, tol, inputs: _mask_case(fns[0], inputs.normal("t2.causal", (5, 5), F32), _causal(5), tol)),
    Hidden("test2.general_additive", marked("checks.test2.general_additive"),
           lambda fns, tol, inputs: _mask_case(fns[0], inputs.normal("t2.general.scores", (3, 6), F32),
                                               inputs.normal("t2.general.mask", (3, 6), F32, 3.0), tol)),
    Hidden("test2.float64_scores", marked("checks.test2.float64_scores"),
           lambda fns, tol, inputs: _mask_case(fns[0], inputs.normal("t2.f64", (4, 4), F64), _causal(4), tol)),
    Hidden("test2.strided_view", marked("checks.test2.strided_view"),
           lambda fns, tol, inputs: _mask_view(fns[0], tol, inputs)),
    Hidden("test2.mask_reused", marked("checks.test2.mask_reused"),
           lambda fns, tol, inputs: _mask_reused(fns[0], tol, inputs)),
    Hidden("test2.shape_mismatch", marked("checks.test2.shape_mismatch"),
           lambda fns, tol, inputs: _mask_mismatch(fns[0], inputs)),
)


# ---------- TEST 3: student_softmax ----------

def _softmax_case(fn, inp, tol, prefill=0.0) -> bool:
    out = np.full(inp.shape, prefill, inp.dtype)
    before, dtype = inp.tolist(), inp.dtype.name
    fn(out, inp)
    return inp.tolist() == before and oracle.close(out.tolist(), oracle.softmax(before), tol[dtype])


def _softmax_mismatch(fn, inputs: Inputs) -> bool:
    out = np.full((2, 3), 4.0, F32)
    fn(out, inputs.normal("t3.mismatch", (3, 2), F32))
    return bool((out == 4.0).all())


def _t3(make, prefill=0.0):
    return lambda fns, tol, inputs: _softmax_case(fns[0], make(inputs), tol, prefill)


def _large_logits(inputs: Inputs) -> np.ndarray:
    """Two rows of float32 logits: one near 1000 (exp overflows without the row's maximum subtracted), one near 100,
    hundreds below it (a maximum over the whole array leaves it nothing but zeros)."""
    rng = inputs.rng("t3.large")
    high, low = rng.uniform(800, 1200), rng.uniform(60, 200)  # (3,) each, below
    return np.array([high + rng.normal(0, 1.5, 3), low + rng.normal(0, 8, 3)], F32)  # (2, 3)


def _rows_apart(inputs: Inputs) -> np.ndarray:
    """Three float64 rows of very different size: near +1000, near 0, near -1000 (exp overflows float64 above ≈ 710
    and gives 0 below ≈ -745, so only each row's own maximum works)."""
    rng = inputs.rng("t3.apart")
    top, bottom = rng.uniform(800, 1200), rng.uniform(800, 1200)
    return np.array([top + rng.normal(0, 1.5, 3), rng.normal(0, 1.5, 3), -bottom + rng.normal(0, 1.5, 3)], F64)


def _masked_rows(inputs: Inputs) -> np.ndarray:
    """Three float32 rows of four: one fully masked with -1e9, one with a single value left, one with a single value
    masked; which row is which, where the mask falls and the values all drawn."""
    rng = inputs.rng("t3.masked")
    rows = rng.normal(0, 1.5, (3, 4))  # (3, 4)
    full, single, one_hole = rng.permutation(3)
    rows[full] = -1e9
    rows[single, np.arange(4) != rng.integers(4)] = -1e9
    rows[one_hole, rng.integers(4)] = -1e9
    return rows.astype(F32)


TEST3 = (
    Hidden("test3.random_float64", marked("checks.test3.random_float64"),
           _t3(lambda inputs: inputs.normal("t3.f64", (3, 5), F64, 3.0))),
    Hidden("test3.large_logits", marked("checks.test3.large_logits"),
           _t3(_large_logits)),
    Hidden("test3.per_row_max", marked("checks.test3.per_row_max"),
           _t3(_rows_apart)),
    Hidden("test3.masked_rows", marked("checks.test3.masked_rows"),
           _t3(_masked_rows)),
    Hidden("test3.three_d", marked("checks.test3.three_d"),
           _t3(lambda inputs: inputs.normal("t3.3d", (2, 3, 4), F32, 2.0))),
    Hidden("test3.one_d", marked("checks.test3.one_d"),
           _t3(lambda inputs: inputs.normal("t3.1d", (5,), F64))),
    Hidden("test3.keeps_inp_overwrites_out", marked("checks.test3.keeps_inp_overwrites_out"),
           _t3(lambda inputs: inputs.normal("t3.keeps", (3, 4), F32), prefill=9.0)),
    Hidden("test3.shape_mismatch", marked("checks.test3.shape_mismatch"),
           lambda fns, tol, inputs: _softmax_mismatch(fns[0], inputs)),
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


def _pipeline_heads(fns, tol, inputs: Inputs) -> bool:
    x, w = inputs.normal("t4.heads.x", (4, 8), F32), inputs.normal("t4.heads.w", (8, 16), F32, 0.5)
    proj = x @ w  # (T, 2C): queries in columns 0-7, keys in 8-15
    scores, weights = np.zeros((2, 4, 4), F32), np.zeros((2, 4, 4), F32)  # (H, T, S)
    return all(_pipeline_case(fns, proj[:, 4 * h:4 * h + 4], proj[:, 8 + 4 * h:12 + 4 * h], 0.5,
                              _causal(4), tol, scores[h], weights[h]) for h in range(2))


LARGE_SCALE = 4.0  # test4.large_scores: its scores reach the hundreds


def _saturated(Q, K) -> np.ndarray:
    """Which of a batch of integer Q, K (``(B, T, D)`` and ``(B, S, D)``) have a causal attention that is the same
    with or without the scale of 4 (every row one-hot, or split evenly between two tied scores, the others ≥ 10
    below), and on which each way of getting TEST 4 wrong shows: a tie (a softmax that never divides), a top gap of
    10 to 14 (a scale of 0.5 leaves that row unsaturated), a future score ≥ 10 above its row's visible ones (a mask
    not applied moves the row), a score over 100 (exp of it overflows float32), a row's maximum over 110 below
    the highest (a maximum of the whole array wipes it out), and weights that Q@Q^T or K@Q^T would move by more
    than a half. A ``(B,)`` array of booleans."""
    dots = Q @ np.swapaxes(K, 1, 2)  # (B, T, S)
    right = _causal_weights(dots)
    swapped = [np.abs(_causal_weights(wrong) - right).max(axis=(1, 2)) > 0.5
               for wrong in (Q @ np.swapaxes(Q, 1, 2), np.swapaxes(dots, 1, 2))]  # Q@Q^T, K@Q^T
    ok, tied, narrow, unmasked, maxima = (np.ones(len(dots), bool), np.zeros(len(dots), bool),
                                          np.zeros(len(dots), bool), np.zeros(len(dots), bool), [])
    for i in range(dots.shape[1]):
        visible = -np.sort(-dots[:, i, :i + 1], axis=1)  # (B, i + 1), largest first
        gap = visible[:, 0] - visible[:, 1] if i else np.full(len(dots), np.inf)
        third = visible[:, 1] - visible[:, 2] if i > 1 else np.full(len(dots), np.inf)
        ok &= (gap >= 10) | ((gap == 0) & (third >= 10))
        tied |= gap == 0
        narrow |= (gap >= 10) & (gap <= 14)
        if i + 1 < dots.shape[2]:
            unmasked |= dots[:, i, i + 1:].max(axis=1) >= visible[:, 0] + 10
        maxima.append(LARGE_SCALE * visible[:, 0])
    maxima = np.stack(maxima, axis=1)  # (B, T)
    return (ok & tied & narrow & unmasked & swapped[0] & swapped[1] & (maxima.max(axis=1) > 100)
            & (np.ptp(maxima, axis=1) > 110))


def _causal_weights(dots) -> np.ndarray:
    """softmax(4 · dots + causal mask) of a batch ``(B, T, S)``, in float64."""
    scores = LARGE_SCALE * dots.astype(F64) + _causal(dots.shape[1])  # (B, T, S)
    scores -= scores.max(axis=2, keepdims=True)
    weights = np.exp(scores)
    return weights / weights.sum(axis=2, keepdims=True)


def _large_qk(inputs: Inputs, batches: int = 100) -> tuple:
    """Q and K of small integers (every dot exact in float32) drawn, 512 at a time, until :func:`_saturated` holds
    (about one draw in 340 does: 100 batches all failing would be a broken generator, not bad luck)."""
    rng = inputs.rng("t4.large")
    for _ in range(batches):
        Q, K = (rng.integers(-6, 7, (512, 4, 4)).astype(F32) for _ in range(2))  # (B, T, D), (B, S, D)
        found = np.flatnonzero(_saturated(Q, K))
        if len(found):
            return Q[found[0]], K[found[0]]
    raise RuntimeError(f"no saturated Q, K in {batches * 512} draws of seed {inputs.seed}")


def _padding_rect(fns, tol, inputs: Inputs) -> bool:
    rng = inputs.rng("t4.padding")
    blocked = tuple(int(j) for j in rng.choice(6, 2, replace=False))  # two of the six keys are padding
    return _pipeline_case(fns, inputs.normal("t4.padding.q", (3, 4), F64), inputs.normal("t4.padding.k", (6, 4), F64),
                          0.7, _padding(3, 6, blocked), tol)


def _masked_row(fns, tol, inputs: Inputs) -> bool:
    row = int(inputs.rng("t4.masked_row").integers(3))
    return _pipeline_case(fns, inputs.normal("t4.masked_row.q", (3, 4), F32),
                          inputs.normal("t4.masked_row.k", (3, 4), F32), 0.5, _padding(3, 3, (), (row,)), tol)


TEST4 = (
    Hidden("test4.random_causal", marked("checks.test4.random_causal"),
           lambda fns, tol, inputs: _pipeline_case(fns, inputs.normal("t4.causal.q", (5, 8), F32),
                                                   inputs.normal("t4.causal.k", (5, 8), F32),
                                                   1 / math.sqrt(8), _causal(5), tol)),
    Hidden("test4.padding_rect", marked("checks.test4.padding_rect"),
           _padding_rect),
    Hidden("test4.large_scores", marked("checks.test4.large_scores"),
           lambda fns, tol, inputs: _pipeline_case(fns, *_large_qk(inputs), LARGE_SCALE, _causal(4), tol)),
    Hidden("test4.masked_row", marked("checks.test4.masked_row"),
           _masked_row),
    Hidden("test4.head_slices", marked("checks.test4.head_slices"),
           _pipeline_heads),
)

HIDDEN = {1: TEST1, 2: TEST2, 3: TEST3, 4: TEST4}

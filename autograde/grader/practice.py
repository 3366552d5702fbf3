"""The chapter's practice exercises: graded by hidden checks, counted in none of the 20 points.

Three exercises (:data:`EXERCISES`), each a function the student writes with their own three lab functions, and a
test cell of 0 points (``ex1_order`` …) that this grader grades as it grades TEST 1-4: the student's function is
called across the process boundary on arrays drawn from the submission's seed (:class:`.inputs.Inputs`), and its
result compared with the pure-Python oracle (:mod:`.oracle`), never with numpy's or attnkit's, to
:data:`TOLERANCE`. The record (points 0) keeps every check; a function still as released (it returns ``None`` on
every call) was not tried, and its record holds no check (:func:`evaluate`).

1. ``student_order_gap(x, perm, mask)`` (§4.5): the largest ``|attend(x[perm]) - attend(x)[perm]|`` of
   self-attention with Q = K = V = x, scale ``1/sqrt(C)`` and the additive ``mask``: 0 up to rounding with no
   mask, not under a causal one (the causal mask ties attention to positions);
2. ``student_attention_layer(x, context, W_q, W_k, W_v, W_o, num_heads, mask)`` (§4.11): the whole layer head by
   head, ``weights @ V`` and ``@ W_o`` included, as ``MultiHeadAttention.forward`` (cross-attention when
   ``context`` is not ``x``);
3. ``student_all_heads(x, W_q, W_k, W_v, W_o, num_heads, mask)`` (§4.11): every head at once on ``[H, T, D]``
   arrays, as ``MultiHeadAttention.forward_all_heads``.

Shape legend: T queries, S keys, C hidden dim, H heads, D = C / H.
"""
import math
from typing import NamedTuple

import numpy as np

from . import oracle
from .checks import Hidden, run_checks
from .words import marked

__all__ = ["TOLERANCE", "Exercise", "EXERCISES", "BY_GRADE_ID", "Answered", "evaluate"]

TOLERANCE = 1e-12  # float64 throughout: a correct numpy answer is within 1e-15 of the oracle's exact sums
F64 = np.float64


class Exercise(NamedTuple):
    grade_id: str
    number: int
    function: str   # the student's function the test cell names
    checks: tuple   # Hidden
    points: float = 0.0


def _returned_number(value) -> float | None:
    """A real number (a Python or numpy scalar, or a 0-d array) as a float; None for anything else."""
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)) or (isinstance(value, np.ndarray) and value.shape == ()
                                                                    and value.dtype.kind in "iuf"):
        return float(value)
    return None


def _unchanged(before: list, arrays) -> bool:
    return [a.tolist() for a in arrays] == before


def _causal(n: int) -> np.ndarray:
    return np.array([[-1e9 if j > i else 0.0 for j in range(n)] for i in range(n)], F64)  # (T, T)


def _padding(rows: int, cols: int, blocked) -> np.ndarray:
    return np.array([[-1e9 if j in blocked else 0.0 for j in range(cols)] for _ in range(rows)], F64)  # (T, S)


# ---------- 1: the causal mask breaks permutation equivariance ----------

def _permutation(inputs, tag: str, n: int) -> np.ndarray:
    """A permutation of ``n`` positions that moves at least one (drawn again while it is the identity)."""
    rng = inputs.rng(tag)
    perm = rng.permutation(n)
    while (perm == np.arange(n)).all():
        perm = rng.permutation(n)
    return perm


def _order(tag: str, mask_of):
    def run(fns, tol, inputs):
        x = inputs.normal(f"{tag}.x", (6, 8), F64)  # (T, C)
        perm, mask = _permutation(inputs, f"{tag}.perm", 6), mask_of(inputs, 6)
        before = [x.tolist(), perm.tolist(), mask.tolist()]
        got = _returned_number(fns[0](x, perm, mask))
        expected = oracle.permutation_gap(*before)
        return got is not None and _unchanged(before, (x, perm, mask)) and oracle.close(got, expected, tol["float64"])
    return run


ORDER = (
    Hidden("exercise1.no_mask", marked("practice.order.no_mask"),
           _order("e1.none", lambda inputs, n: np.zeros((n, n), F64))),
    Hidden("exercise1.causal", marked("practice.order.causal"),
           _order("e1.causal", lambda inputs, n: _causal(n))),
    Hidden("exercise1.other_mask", marked("practice.order.other_mask"),
           _order("e1.other", lambda inputs, n: inputs.normal("e1.other.mask", (n, n), F64, 2.0))),
)


# ---------- 2 and 3: a whole layer, head by head or every head at once ----------

def _weights(inputs, tag: str, hidden: int) -> list:
    """W_q, W_k, W_v, W_o, each ``[C, C]``, at the scale MultiHeadAttention draws them."""
    return [inputs.normal(f"{tag}.{name}", (hidden, hidden), F64, 1 / math.sqrt(hidden)) for name in ("q", "k", "v", "o")]


def _layer_case(fn, x, context, weights, heads: int, mask, tol, with_context: bool) -> bool:
    arrays = (x, context, *weights, mask)
    before = [a.tolist() for a in arrays]
    args = (x, context, *weights, heads, mask) if with_context else (x, *weights, heads, mask)
    got = fn(*args)
    expected = oracle.multihead(before[0], before[1], *before[2:6], heads, before[6])
    return (isinstance(got, np.ndarray) and got.dtype == F64 and got.shape == (len(x), x.shape[1])
            and _unchanged(before, arrays) and oracle.close(got.tolist(), expected, tol["float64"]))


def _layer(tag: str, seq: int, context_len: int | None, hidden: int, heads: int, mask_of, with_context: bool):
    def run(fns, tol, inputs):
        x = inputs.normal(f"{tag}.x", (seq, hidden), F64)  # (T, C)
        context = x if context_len is None else inputs.normal(f"{tag}.context", (context_len, hidden), F64)  # (S, C)
        mask = mask_of(inputs, tag, seq, len(context))  # (T, S)
        return _layer_case(fns[0], x, context, _weights(inputs, tag, hidden), heads, mask, tol, with_context)
    return run


def _causal_mask(inputs, tag, seq, context_len):
    return _causal(seq)


def _drawn_padding(inputs, tag, seq, context_len):
    """Two of the keys are padding, drawn; no row is blocked whole."""
    blocked = tuple(int(j) for j in inputs.rng(f"{tag}.padding").choice(context_len, 2, replace=False))
    return _padding(seq, context_len, blocked)


def _last_two_padded(inputs, tag, seq, context_len):
    return _padding(seq, context_len, (context_len - 2, context_len - 1))


LAYER = (
    Hidden("exercise2.self_causal", marked("practice.layer.self_causal"),
           _layer("e2.self", 6, None, 12, 3, _causal_mask, True)),
    Hidden("exercise2.cross_padding", marked("practice.layer.cross_padding"),
           _layer("e2.cross", 5, 9, 8, 2, _last_two_padded, True)),
    Hidden("exercise2.one_head", marked("practice.layer.one_head"),
           _layer("e2.one", 4, None, 6, 1, _causal_mask, True)),
)
ALL_HEADS = (
    Hidden("exercise3.causal", marked("practice.heads.causal"),
           _layer("e3.causal", 6, None, 12, 3, _causal_mask, False)),
    Hidden("exercise3.padding", marked("practice.heads.padding"),
           _layer("e3.padding", 5, None, 16, 4, _drawn_padding, False)),
    Hidden("exercise3.one_head", marked("practice.heads.one_head"),
           _layer("e3.one", 4, None, 6, 1, _causal_mask, False)),
)

EXERCISES = (
    Exercise("ex1_order", 1, "student_order_gap", ORDER),
    Exercise("ex2_layer", 2, "student_attention_layer", LAYER),
    Exercise("ex3_all_heads", 3, "student_all_heads", ALL_HEADS),
)
BY_GRADE_ID = {exercise.grade_id: exercise for exercise in EXERCISES}


class Answered:
    """The student's function, noting whether any call answered (returned something other than ``None``, or
    raised): the release's stub, ``pass``, never does."""

    def __init__(self, fn):
        self.fn, self.answered = fn, False

    def __call__(self, *args):
        try:
            value = self.fn(*args)
        except KeyboardInterrupt:
            raise
        except BaseException:
            self.answered = True
            raise
        self.answered = self.answered or value is not None
        return value


def evaluate(exercise: Exercise, fn, inputs) -> tuple:
    """``(tried, [(check, passed)])`` of ``fn`` (the student's function, as the grader calls it); an exercise not
    tried has no checks."""
    answered = Answered(fn)
    results = run_checks(exercise.checks, (answered,), {"float64": TOLERANCE}, inputs)
    return (True, results) if answered.answered else (False, [])

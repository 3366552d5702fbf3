"""The lab contract: the three student functions of Lab04, with the C signatures' semantics.

Like numpy's ``out=``, the lab writes results into caller-owned arrays:

* ``attention_scores(Q, K, scale, out) -> int`` writes ``scale * Q @ K^T`` into the
  preallocated ``out`` and returns 0, or returns -1 (writing nothing) for the inputs the
  C version rejects;
* ``apply_mask(scores, mask)`` adds the mask to ``scores`` **in place**;
* ``softmax(out, inp)`` writes the softmax of ``inp`` along its last axis into ``out``.

The ``*_inputs_ok`` predicates are those C input checks, shared by the reference, the
stubs and the student cells of the chapter. The ``stub_*`` callables behave like the
untouched ``student.c``: checks pass, nothing is written, scores returns 0.
"""
import numpy as np

from .attention import softmax as _softmax

__all__ = [
    "STAGES", "ROLE", "TOLERANCE",
    "scores_inputs_ok", "mask_inputs_ok", "softmax_inputs_ok", "is_return_code",
    "attention_scores", "apply_mask", "softmax",
    "stub_attention_scores", "stub_apply_mask", "stub_softmax",
    "REFERENCE", "STUBS",
]


STAGES = ("scores", "mask", "softmax")  # the order of the pipeline
ROLE = {"scores": "student_attention_scores", "mask": "student_apply_mask", "softmax": "student_softmax"}
# How close a result must be to the exact one, by dtype: |actual - exact| <= tol * (1 + |exact|).
# float32: loose enough for any correct float32 arithmetic, far tighter than any bug;
# float64: float64 inputs must keep float64 precision (a float32 round trip fails).
TOLERANCE = {"float32": 1e-4, "float64": 1e-9}


def is_return_code(rc, code: int) -> bool:
    """The C ``int`` return: an integer equal to ``code`` (not ``None``, a bool or an array)."""
    return isinstance(rc, (int, np.integer)) and not isinstance(rc, bool) and bool(rc == code)


def _arrays(*xs) -> bool:
    return all(isinstance(x, np.ndarray) for x in xs)


def scores_inputs_ok(Q, K, out) -> bool:
    """C checks: no NULL, all 2-D, same head_dim, ``out`` is ``[seq_q, seq_k]``."""
    if not _arrays(Q, K, out) or not (Q.ndim == K.ndim == out.ndim == 2):
        return False
    return Q.shape[1] == K.shape[1] and out.shape == (Q.shape[0], K.shape[0])


def mask_inputs_ok(scores, mask) -> bool:
    """C checks: no NULL, same shape."""
    return _arrays(scores, mask) and scores.shape == mask.shape


def softmax_inputs_ok(out, inp) -> bool:
    """C checks: no NULL, same shape, at least 1-D."""
    return _arrays(out, inp) and out.shape == inp.shape and inp.ndim >= 1


def attention_scores(Q, K, scale, out) -> int:
    """Reference: ``out[i, j] = scale * sum_d Q[i, d] * K[j, d]``; 0 on success, -1 on bad input."""
    if not scores_inputs_ok(Q, K, out):
        return -1
    out[...] = scale * (Q @ K.T)  # (T, S)
    return 0


def apply_mask(scores, mask) -> None:
    """Reference: ``scores += mask`` in place; does nothing on bad input."""
    if mask_inputs_ok(scores, mask):
        np.add(scores, mask, out=scores, casting="unsafe")


def softmax(out, inp) -> None:
    """Reference: stable softmax of ``inp`` along the last axis, written into ``out``."""
    if softmax_inputs_ok(out, inp):
        out[...] = _softmax(inp, axis=-1)


def stub_attention_scores(Q, K, scale, out) -> int:
    """Like the untouched C stub: input checks, then ``return 0`` without writing."""
    return 0 if scores_inputs_ok(Q, K, out) else -1


def stub_apply_mask(scores, mask) -> None:
    """Like the untouched C stub: returns without touching ``scores``."""


def stub_softmax(out, inp) -> None:
    """Like the untouched C stub: returns without writing ``out``."""


REFERENCE = (attention_scores, apply_mask, softmax)
STUBS = (stub_attention_scores, stub_apply_mask, stub_softmax)

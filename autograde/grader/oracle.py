"""The grader's independent oracle: attention in pure Python (``math`` and lists, no numpy).

Expected values for the hidden checks come from here, never from numpy or attnkit, so a
student who patches either cannot move the target. float32 results are emulated by
rounding every stored value through ``struct`` ("f"), as the C lab's ``float`` does.
Shape legend: T queries, S keys, D head dim.
"""
import math
import struct

__all__ = ["f32", "scores", "add", "softmax", "close"]


def f32(x: float) -> float:
    """``x`` rounded to the nearest float32, as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _rounding(dtype: str):
    return f32 if dtype == "float32" else float


def scores(Q: list, K: list, scale: float, dtype: str) -> list:
    """``scale * Q @ K^T`` from nested lists, each dot product summed exactly (``fsum``).  # (T, S)"""
    stored = _rounding(dtype)
    return [[stored(scale * math.fsum(a * b for a, b in zip(q, k))) for k in K] for q in Q]


def add(scores_: list, mask: list, dtype: str) -> list:
    """Element-wise ``scores + mask`` on nested lists of any depth, stored in ``dtype``."""
    if isinstance(scores_, list):
        return [add(s, m, dtype) for s, m in zip(scores_, mask)]
    return _rounding(dtype)(scores_ + mask)


def softmax(x: list) -> list:
    """Stable softmax along the last axis of nested lists."""
    if isinstance(x[0], list):
        return [softmax(row) for row in x]
    top = max(x)
    exps = [math.exp(v - top) for v in x]
    total = math.fsum(exps)
    return [e / total for e in exps]


def close(actual, expected, tol: float) -> bool:
    """Nested lists equal up to ``|a - e| <= tol * (1 + |e|)``; NaN and inf are never close."""
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            close(a, e, tol) for a, e in zip(actual, expected))
    return (isinstance(actual, float) and math.isfinite(actual)
            and abs(actual - expected) <= tol * (1 + abs(expected)))

"""The grader's independent oracle: attention in pure Python (``math`` and lists, no numpy).

Expected values for the hidden checks come from here, never from numpy or attnkit, so a
student who patches either cannot move the target. float32 results are emulated by
rounding every stored value through ``struct`` ("f"), as the C lab's ``float`` does.
Shape legend: T queries, S keys, D head dim.
"""
import math
import struct

__all__ = ["f32", "scores", "add", "softmax", "close", "matmul", "self_attend", "permutation_gap", "multihead"]


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


def matmul(A: list, B: list) -> list:
    """``A @ B`` of nested lists (float64), each dot product summed exactly.  # (T, C) @ (C, E) -> (T, E)"""
    columns = list(zip(*B))
    return [[math.fsum(a * b for a, b in zip(row, column)) for column in columns] for row in A]


def _columns(X: list, start: int, stop: int) -> list:
    return [row[start:stop] for row in X]


def _attention(Q: list, K: list, V: list, scale: float, mask: list) -> list:
    """``softmax(scale * Q @ K^T + mask) @ V`` (float64).  # (T, D), (S, D), (S, Dv) -> (T, Dv)"""
    return matmul(softmax(add(scores(Q, K, scale, "float64"), mask, "float64")), V)


def self_attend(x: list, mask: list) -> list:
    """Self-attention with Q = K = V = x and scale 1/sqrt(C), under the additive ``mask``.  # (T, C) -> (T, C)"""
    return _attention(x, x, x, 1 / math.sqrt(len(x[0])), mask)


def permutation_gap(x: list, perm: list, mask: list) -> float:
    """The largest ``|self_attend(x[perm]) - self_attend(x)[perm]|``, the same mask both times: 0 up to rounding
    without a mask (self-attention is permutation-equivariant), not under a causal one."""
    shuffled, reordered = self_attend([x[i] for i in perm], mask), [self_attend(x, mask)[i] for i in perm]
    return max(abs(a - b) for row_a, row_b in zip(shuffled, reordered) for a, b in zip(row_a, row_b))


def multihead(x: list, context: list, W_q: list, W_k: list, W_v: list, W_o: list, num_heads: int,
              mask: list) -> list:
    """Multi-head attention as the C framework's ``attention_forward`` (float64): Q = x @ W_q, K and V from ``context``;
    each head's columns ``h*D .. (h+1)*D`` attend with scale 1/sqrt(D) under ``mask``; the heads joined column-wise,
    then @ W_o.  # (T, C), (S, C) -> (T, C)"""
    Q, K, V = matmul(x, W_q), matmul(context, W_k), matmul(context, W_v)  # (T, C), (S, C), (S, C)
    D = len(W_q[0]) // num_heads
    heads = [_attention(_columns(Q, h * D, (h + 1) * D), _columns(K, h * D, (h + 1) * D),
                        _columns(V, h * D, (h + 1) * D), 1 / math.sqrt(D), mask) for h in range(num_heads)]
    joined = [[value for head in heads for value in head[t]] for t in range(len(x))]  # (T, C)
    return matmul(joined, W_o)


def close(actual, expected, tol: float) -> bool:
    """Nested lists equal up to ``|a - e| <= tol * (1 + |e|)``; NaN and inf are never close."""
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            close(a, e, tol) for a, e in zip(actual, expected))
    return (isinstance(actual, float) and math.isfinite(actual)
            and abs(actual - expected) <= tol * (1 + abs(expected)))

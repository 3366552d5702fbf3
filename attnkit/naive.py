"""Loop versions, written the way the C lab is: for teaching and as benchmark baselines.

Shape legend: ``T`` queries, ``S`` keys, ``D`` head dim. Slow on purpose; each loop
is one index of the formula. They share nothing with :mod:`attnkit.attention`, so the
tests can use them as an independent oracle.
"""
import math

import numpy as np


def attention_scores(q, k, scale) -> np.ndarray:
    """``out[i][j] = scale * sum_d q[i][d] * k[j][d]``, reading k as ``k[j][d]`` (no transpose)."""
    seq_q, head_dim = len(q), len(q[0])
    seq_k = len(k)
    out = np.zeros((seq_q, seq_k))  # (T, S)
    for i in range(seq_q):
        for j in range(seq_k):
            acc = 0.0
            for d in range(head_dim):
                acc += float(q[i][d]) * float(k[j][d])
            out[i][j] = acc * scale
    return out


def softmax_rows(x) -> np.ndarray:
    """Row by row, as in the C lab: max -> exp(x - max) -> sum -> divide."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        row_max = max(x[i])
        exps = [math.exp(v - row_max) for v in x[i]]
        total = sum(exps)
        for j, e in enumerate(exps):
            out[i][j] = e / total
    return out


def attention(q, k, v, mask=None, scale=None):
    """Return ``(out, weights)`` computed with explicit loops."""
    scale = 1.0 / math.sqrt(len(q[0])) if scale is None else scale
    scores = attention_scores(q, k, scale)  # (T, S)
    if mask is not None:
        scores = scores + np.asarray(mask, dtype=np.float64)
    weights = softmax_rows(scores)  # (T, S)
    v = np.asarray(v, dtype=np.float64)
    out = np.zeros((weights.shape[0], v.shape[1]))  # (T, Dv)
    for i in range(weights.shape[0]):
        for j in range(weights.shape[1]):
            out[i] += weights[i][j] * v[j]
    return out, weights

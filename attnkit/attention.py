"""Single-head scaled dot-product attention, the idiomatic (functional) API.

Shape legend: ``T`` queries, ``S`` keys/values, ``D`` head dim, ``Dv`` value dim.
These functions never mutate their arguments; the lab's out-parameter / in-place
versions live in :mod:`attnkit.lab`. Plots, widgets and multi-head use this module.
The mask is additive, as in the lab (see :mod:`attnkit.masks`).
"""
import math

import numpy as np

from .errors import require


def _as_matrix(name: str, x) -> np.ndarray:
    x = np.asarray(x)
    require(x.ndim == 2, f"{name} must be 2-D [seq_len, dim]: {name}.shape={x.shape}")
    return x


def default_scale(head_dim: int) -> float:
    """The transformer's ``1 / sqrt(head_dim)``."""
    require(head_dim >= 1, f"head_dim must be positive: head_dim={head_dim}")
    return 1.0 / math.sqrt(head_dim)


def attention_scores(q, k, scale=None) -> np.ndarray:
    """Return ``scale * q @ k.T``; ``scale`` defaults to ``1/sqrt(D)``."""
    q, k = _as_matrix("q", q), _as_matrix("k", k)
    require(
        q.shape[1] == k.shape[1],
        f"q and k must share head_dim: q.shape={q.shape}, k.shape={k.shape}",
    )
    if scale is None:
        scale = default_scale(q.shape[1])
    return (q @ k.T) * scale  # (T, S)


def add_mask(scores, mask) -> np.ndarray:
    """Return ``scores + mask`` (a new array); shapes must match exactly."""
    scores, mask = np.asarray(scores), np.asarray(mask)
    require(
        scores.shape == mask.shape,
        f"mask must have the scores' shape: scores.shape={scores.shape}, mask.shape={mask.shape}",
    )
    require(
        mask.dtype.kind == "f",
        f"mask must be additive floats (0 keep, -1e9 block), not {mask.dtype}: mask.dtype={mask.dtype}",
    )
    return scores + mask


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax: subtract the row max before ``exp``."""
    x = np.asarray(x)
    require(x.ndim >= 1, f"softmax needs at least 1-D input: x.shape={x.shape}")
    shifted = x - np.max(x, axis=axis, keepdims=True)  # largest entry becomes 0: exp cannot overflow
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(q, k, v, mask=None, scale=None):
    """Return ``(out, weights)``: ``weights = softmax(scores + mask)``, ``out = weights @ v``."""
    v = _as_matrix("v", v)
    scores = attention_scores(q, k, scale)  # (T, S)
    require(
        v.shape[0] == scores.shape[1],
        f"k and v must have the same seq_len: k.shape={np.shape(k)}, v.shape={v.shape}",
    )
    if mask is not None:
        scores = add_mask(scores, mask)
    weights = softmax(scores)  # (T, S)
    return weights @ v, weights  # (T, Dv), (T, S)

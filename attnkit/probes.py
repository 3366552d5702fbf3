"""The probe inputs of the diagnosis: cases the 22 verify assertions cannot see.

Verify feeds identities and zeros, on which many wrong programs look right: with
``Q = K = I`` the transpose ``K @ Q^T`` and ``Q @ Q^T`` equal the answer; a mask that
*replaces* zero scores equals one that is added; a softmax without the max shift never
meets a large logit. Each probe here separates the reference from a family of such
mistakes. Its ``purpose`` (the id of a message of attnkit's catalogue) is quoted in the findings; its
``name`` (ASCII) titles the heatmap.

Every ``build()`` returns fresh arrays in the lab signature's argument order
(see :mod:`attnkit.lab`), so the student and the reference never share a buffer.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .language import marked
from .masks import create_causal_mask

__all__ = ["Probe", "PROBES", "PIPELINE"]


@dataclass(frozen=True)
class Probe:
    """One input for one stage and what it is for."""
    name: str
    purpose: str  # what the probe is for: a message id (attnkit.language.WORDS)
    build: Callable[[], tuple]
    valid: bool = True     # False: the C input checks reject it (scores -1, the others no-op)
    extreme: bool = False  # logits so large that only a max-shifted softmax stays finite


def _normal(seed: int, shape, dtype=np.float32, sd: float = 2.0) -> np.ndarray:
    """Seeded, so every run (and every finding) sees the same numbers."""
    return (sd * np.random.default_rng(seed).normal(size=shape)).astype(dtype)


def _scores_args(seed: int, seq_q: int, seq_k: int, head_dim: int, scale: float, dtype=np.float32):
    q = _normal(seed, (seq_q, head_dim), dtype, 1.0)       # (T, D)
    k = _normal(seed + 100, (seq_k, head_dim), dtype, 1.0)  # (S, D)
    return q, k, scale, np.zeros((seq_q, seq_k), dtype)    # out: (T, S)


_LARGE_LOGITS = [
    [1000.0, 998.0, 999.0, -5.0],       # exp(1000) overflows float32 and float64
    [-1e9, -1e9, -1e9, -1e9],           # a fully masked row: exp underflows to 0, then 0/0
    [-1000.0, -1002.0, -999.0, -1003.0],
]

SCORES_PROBES = (
    Probe("scores/rect", marked("probes.scores_rect"),
          lambda: _scores_args(1, 3, 5, 4, 0.3)),
    Probe("scores/square-f64", marked("probes.scores_square_f64"),
          lambda: _scores_args(2, 4, 4, 3, 1.7, np.float64)),
    Probe("scores/bad-head-dim", marked("probes.scores_bad_head_dim"),
          lambda: (_normal(3, (3, 4)), _normal(4, (5, 3)), 0.3, np.zeros((3, 5), np.float32)), valid=False),
)

def _strided_view(seed: int, rows: int, cols: int) -> np.ndarray:
    """``(rows, cols)`` every other column of a wider buffer with an odd width: its rows are not
    evenly spaced in memory, so ``reshape(-1)`` or ``ascontiguousarray`` must copy it."""
    buffer = _normal(seed, (rows, 2 * cols + 1))  # (T, 2S+1)
    return buffer[:, :2 * cols:2]  # (T, S) a non-contiguous view


MASK_PROBES = (
    Probe("mask/causal", marked("probes.mask_causal"),
          lambda: (_normal(5, (4, 4)), create_causal_mask(4))),
    Probe("mask/additive-f64", marked("probes.mask_additive_f64"),
          lambda: (_normal(6, (3, 5), np.float64), _normal(7, (3, 5), np.float64, 1.0))),
    Probe("mask/view", marked("probes.mask_view"),
          lambda: (_strided_view(13, 4, 4), create_causal_mask(4))),
    Probe("mask/bad-shape", marked("probes.mask_bad_shape"),
          lambda: (_normal(8, (4, 4)), create_causal_mask(3)), valid=False),
)

SOFTMAX_PROBES = (
    Probe("softmax/rect", marked("probes.softmax_rect"),
          lambda: (np.zeros((3, 5), np.float32), _normal(9, (3, 5)))),
    Probe("softmax/3d-f64", marked("probes.softmax_3d_f64"),
          lambda: (np.zeros((2, 3, 4)), _normal(10, (2, 3, 4), np.float64))),
    Probe("softmax/large", marked("probes.softmax_large"),
          lambda: (np.zeros((3, 4), np.float32), np.array(_LARGE_LOGITS, np.float32)), extreme=True),
    Probe("softmax/bad-shape", marked("probes.softmax_bad_shape"),
          lambda: (np.zeros((3, 4), np.float32), _normal(11, (3, 5))), valid=False),
)

PROBES = {"scores": SCORES_PROBES, "mask": MASK_PROBES, "softmax": SOFTMAX_PROBES}

PIPELINE = Probe("pipeline", marked("probes.pipeline"),
    lambda: (*_scores_args(12, 5, 5, 4, 0.41)[:3], create_causal_mask(5)),
)

"""The probe inputs of the diagnosis: cases the 22 verify assertions cannot see.

Verify feeds identities and zeros, on which many wrong programs look right: with
``Q = K = I`` the transpose ``K @ Q^T`` and ``Q @ Q^T`` equal the answer; a mask that
*replaces* zero scores equals one that is added; a softmax without the max shift never
meets a large logit. Each probe here separates the reference from a family of such
mistakes. Its ``purpose`` (``{"zh": …, "en": …}``) is quoted in the findings; its ``name``
(ASCII) titles the heatmap.

Every ``build()`` returns fresh arrays in the lab signature's argument order
(see :mod:`attnkit.lab`), so the student and the reference never share a buffer.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .masks import create_causal_mask

__all__ = ["Probe", "PROBES", "PIPELINE"]


@dataclass(frozen=True)
class Probe:
    """One input for one stage and what it is for."""
    name: str
    purpose: dict  # {language: what the probe is for}
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
    Probe("scores/rect", {"zh": "随机的 Q ≠ K，seq_q=3 ≠ seq_k=5，head_dim=4，scale=0.3（既不是 1 也不是 1/sqrt(4)）",
           "en": "random Q ≠ K, seq_q=3 ≠ seq_k=5, head_dim=4, scale=0.3 (neither 1 nor 1/sqrt(4))"},
          lambda: _scores_args(1, 3, 5, 4, 0.3)),
    Probe("scores/square-f64", {"zh": "方阵但 Q ≠ K（随机、不对称），float64，head_dim=3，scale=1.7（大于 1）",
           "en": "square but Q ≠ K (random, asymmetric), float64, head_dim=3, scale=1.7 (above 1)"},
          lambda: _scores_args(2, 4, 4, 3, 1.7, np.float64)),
    Probe("scores/bad-head-dim", {"zh": "Q 是 [3, 4] 而 K 是 [5, 3]（head_dim 不一致）：应返回 -1 且不写 out",
           "en": "Q is [3, 4] and K is [5, 3] (head_dim differs): should return -1 and leave out alone"},
          lambda: (_normal(3, (3, 4)), _normal(4, (5, 3)), 0.3, np.zeros((3, 5), np.float32)), valid=False),
)

def _strided_view(seed: int, rows: int, cols: int) -> np.ndarray:
    """``(rows, cols)`` every other column of a wider buffer with an odd width: its rows are not
    evenly spaced in memory, so ``reshape(-1)`` or ``ascontiguousarray`` must copy it."""
    buffer = _normal(seed, (rows, 2 * cols + 1))  # (T, 2S+1)
    return buffer[:, :2 * cols:2]  # (T, S) a non-contiguous view


MASK_PROBES = (
    Probe("mask/causal", {"zh": "随机（非零）的 4×4 scores 加因果掩码：分得清加上、乘上和用 mask 覆盖",
           "en": "random (non-zero) 4×4 scores with a causal mask: tells adding, multiplying and overwriting apart"},
          lambda: (_normal(5, (4, 4)), create_causal_mask(4))),
    Probe("mask/additive-f64", {"zh": "非方阵 3×5、float64，mask 是一般的加性偏置（不只是 0 和 -1e9）",
           "en": "non-square 3×5, float64, the mask a general additive bias (not only 0 and -1e9)"},
          lambda: (_normal(6, (3, 5), np.float64), _normal(7, (3, 5), np.float64, 1.0))),
    Probe("mask/view", {"zh": "scores 是一个大数组的非连续视图（每隔一列取一列，比如多头注意力里的一片）：必须原地写回",
           "en": "scores is a non-contiguous view of a larger array (every other column, like one head's slice in multi-head attention): must be written in place"},
          lambda: (_strided_view(13, 4, 4), create_causal_mask(4))),
    Probe("mask/bad-shape", {"zh": "scores 是 [4, 4] 而 mask 是 [3, 3]：形状不一致时应什么都不做",
           "en": "scores is [4, 4] and mask is [3, 3]: with mismatched shapes nothing should happen"},
          lambda: (_normal(8, (4, 4)), create_causal_mask(3)), valid=False),
)

SOFTMAX_PROBES = (
    Probe("softmax/rect", {"zh": "非方阵 3×5 的随机 logits：按行和按列归一化的结果不同",
           "en": "non-square 3×5 random logits: normalising by row and by column differ"},
          lambda: (np.zeros((3, 5), np.float32), _normal(9, (3, 5)))),
    Probe("softmax/3d-f64", {"zh": "3-D 输入 2×3×4（float64）：应沿最后一维逐行归一化",
           "en": "3-D input 2×3×4 (float64): normalised row by row along the last axis"},
          lambda: (np.zeros((2, 3, 4)), _normal(10, (2, 3, 4), np.float64))),
    Probe("softmax/large", {"zh": "大 logits（1000）、整行被遮住（-1e9）和很负的行：只有先减每行最大值才不出 NaN/inf",
           "en": "large logits (1000), a fully masked row (-1e9) and very negative rows: only subtracting each row's maximum first avoids NaN/inf"},
          lambda: (np.zeros((3, 4), np.float32), np.array(_LARGE_LOGITS, np.float32)), extreme=True),
    Probe("softmax/bad-shape", {"zh": "out 是 [3, 4] 而输入是 [3, 5]：形状不一致时应什么都不做",
           "en": "out is [3, 4] and the input is [3, 5]: with mismatched shapes nothing should happen"},
          lambda: (np.zeros((3, 4), np.float32), _normal(11, (3, 5))), valid=False),
)

PROBES = {"scores": SCORES_PROBES, "mask": MASK_PROBES, "softmax": SOFTMAX_PROBES}

PIPELINE = Probe(
    "pipeline", {"zh": "端到端：随机 Q ≠ K（5×4），scale=0.41，因果掩码，scores → mask → softmax",
           "en": "end to end: random Q ≠ K (5×4), scale=0.41, a causal mask, scores → mask → softmax"},
    lambda: (*_scores_args(12, 5, 5, 4, 0.41)[:3], create_causal_mask(5)),
)

"""Three loops vs one matmul on this machine: the lab's question 3 as a real measurement.

:func:`loops_vs_vectorised` times :func:`attnkit.naive.attention_scores` (the C lab's
triple loop, in Python) against :func:`attnkit.attention.attention_scores` on the same
random Q, K, checks they agree, and reports the ratio. The numbers are this machine's,
measured when called; ``benchmarks/bench_attention.py`` measures more sizes side by side.
"""
import statistics
import time
from dataclasses import dataclass

import numpy as np

from . import naive
from .attention import attention_scores, default_scale
from .errors import require

__all__ = ["Timing", "median_seconds", "loops_vs_vectorised"]


@dataclass(frozen=True)
class Timing:
    """Median seconds per call of each version, and whether their scores agree."""
    seq_len: int
    head_dim: int
    loops_s: float
    vectorised_s: float
    agree: bool

    @property
    def ratio(self) -> float:
        """How many times faster the vectorised version is."""
        return self.loops_s / self.vectorised_s


def median_seconds(fn, *, repeat: int = 5, number: int = 1, clock=time.perf_counter) -> float:
    """Median over ``repeat`` runs of the time per call, each run timing ``number`` calls."""
    require(repeat >= 1 and number >= 1, f"repeat and number must be positive: repeat={repeat}, number={number}")
    runs = []
    for _ in range(repeat):
        start = clock()
        for _ in range(number):
            fn()
        runs.append((clock() - start) / number)
    return statistics.median(runs)


def loops_vs_vectorised(seq_len: int = 32, head_dim: int = 32, *, repeat: int = 3, seed: int = 0,
                        clock=time.perf_counter) -> Timing:
    """Time the scores ``scale · Q Kᵀ`` both ways on random ``[seq_len, head_dim]`` inputs."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((seq_len, head_dim)), rng.standard_normal((seq_len, head_dim))  # (T, D) x2
    scale = default_scale(head_dim)
    agree = bool(np.allclose(naive.attention_scores(q, k, scale), attention_scores(q, k, scale)))
    loops = median_seconds(lambda: naive.attention_scores(q, k, scale), repeat=repeat, clock=clock)
    vectorised = median_seconds(lambda: attention_scores(q, k, scale), repeat=repeat, number=200, clock=clock)
    return Timing(seq_len, head_dim, loops, vectorised, agree)

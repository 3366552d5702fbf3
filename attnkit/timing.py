"""Loops vs one vectorised call on this machine: the lab's question 3, and the heads of 4.11, measured.

:func:`loops_vs_vectorised` times :func:`attnkit.naive.attention_scores` (the C lab's
triple loop, in Python) against :func:`attnkit.attention.attention_scores` on the same
random Q, K, checks they agree, and reports the ratio. :func:`heads_loop_vs_batched` does the
same for multi-head attention: the loop over heads (:meth:`MultiHeadAttention.forward`) against
one batched product for all of them (:meth:`MultiHeadAttention.forward_all_heads`). The numbers are
this machine's, measured when called; ``benchmarks/bench_attention.py`` measures more sizes side by side.
:func:`print_comparison` and :func:`print_heads_comparison` are the chapter's tables; under nbgrader
they print one line instead (the grading machine's timings say nothing to the student and cost every
graded notebook).
"""
import statistics
import time
from dataclasses import dataclass

import numpy as np

from . import naive
from .attention import attention_scores, default_scale
from .errors import require
from .language import WORDS, resolve
from .masks import create_causal_mask
from .multihead import MultiHeadAttention
from .static import under_grading

__all__ = ["Timing", "median_seconds", "loops_vs_vectorised", "comparison_line", "print_comparison",
           "HeadsTiming", "heads_loop_vs_batched", "fastest_of_alternating", "heads_line", "print_heads_comparison"]

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


def comparison_line(r: Timing, lang: str | None = None) -> str:
    """One row of the chapter's table, in the chapter's language."""
    return WORDS.say(resolve(lang), "timing.row", seq_len=r.seq_len, loops_ms=r.loops_s * 1e3,
                     matmul_us=r.vectorised_s * 1e6, ratio=r.ratio, agree=r.agree)


def print_comparison(seq_lens=(8, 16, 32, 64), head_dim: int = 32, lang: str | None = None) -> list:
    """Time both versions at each ``seq_len`` and print one line each; return the timings ([] under nbgrader)."""
    if under_grading():
        print(WORDS.say(resolve(lang), "timing.not_timed"))
        return []
    results = []
    for seq_len in seq_lens:  # one line as soon as it is measured
        results.append(loops_vs_vectorised(seq_len=seq_len, head_dim=head_dim))
        print(comparison_line(results[-1], lang), flush=True)
    return results


@dataclass(frozen=True)
class HeadsTiming:
    """Seconds per forward pass head by head and all at once (the fastest run of each), and how far apart their
    outputs are."""
    num_heads: int
    loop_s: float
    batched_s: float
    gap: float  # the largest |difference| between the two outputs

    @property
    def ratio(self) -> float:
        """How many times faster all heads at once are."""
        return self.loop_s / self.batched_s


def heads_loop_vs_batched(num_heads: int, seq_len: int = 16, hidden_dim: int = 64, *, repeat: int = 30,
                          seed: int = 0, clock=time.perf_counter) -> HeadsTiming:
    """Time one causal forward pass both ways, in float64, on a random ``[seq_len, hidden_dim]`` input.

    Many short runs (2 passes each, well under a scheduler's time slice) rather than a few long ones: on a busy
    machine a long run is almost always interrupted, a short one often is not, and the fastest run is kept."""
    mha = MultiHeadAttention(hidden_dim, num_heads, seed=seed, dtype=np.float64)
    x = np.random.default_rng(seed).standard_normal((seq_len, hidden_dim))  # (T, C)
    mask = create_causal_mask(seq_len, np.float64)  # (T, T)
    gap = float(np.abs(mha.forward(x, mask) - mha.forward_all_heads(x, mask)).max())
    loop, batched = fastest_of_alternating(lambda: mha.forward(x, mask), lambda: mha.forward_all_heads(x, mask),
                                           repeat=repeat, number=2, clock=clock)
    return HeadsTiming(num_heads, loop, batched, gap)


def fastest_of_alternating(first, second, *, repeat: int = 5, number: int = 1, clock=time.perf_counter) -> tuple:
    """(seconds per call of ``first``, of ``second``): runs of ``number`` calls taken in turn, so that both see the
    same machine, and the fastest run of each kept (another process can only slow a run down)."""
    require(repeat >= 1 and number >= 1, f"repeat and number must be positive: repeat={repeat}, number={number}")
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for i, fn in enumerate((first, second)):
            start = clock()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (clock() - start) / number)
    return tuple(best)


def heads_line(r: HeadsTiming, lang: str | None = None) -> str:
    """One row of the chapter's heads table, in the chapter's language."""
    return WORDS.say(resolve(lang), "timing.heads_row", num_heads=r.num_heads, loop_us=r.loop_s * 1e6,
                     batched_us=r.batched_s * 1e6, ratio=r.ratio, gap=r.gap)


def print_heads_comparison(head_counts=(1, 2, 4, 8, 16), seq_len: int = 16, hidden_dim: int = 64,
                           lang: str | None = None) -> list:
    """Compare both ways for each number of heads, one line each; return the timings ([] under nbgrader)."""
    if under_grading():
        print(WORDS.say(resolve(lang), "timing.not_timed"))
        return []
    results = []
    for num_heads in head_counts:
        results.append(heads_loop_vs_batched(num_heads, seq_len, hidden_dim))
        print(heads_line(results[-1], lang), flush=True)
    return results

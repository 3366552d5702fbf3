"""Three loops vs one matmul on this machine: the lab's question 3 as a real measurement.

:func:`loops_vs_vectorised` times :func:`attnkit.naive.attention_scores` (the C lab's
triple loop, in Python) against :func:`attnkit.attention.attention_scores` on the same
random Q, K, checks they agree, and reports the ratio. The numbers are this machine's,
measured when called; ``benchmarks/bench_attention.py`` measures more sizes side by side.
:func:`print_comparison` is the chapter's table; under nbgrader it prints one line instead
(the grading machine's timings say nothing to the student and cost every graded notebook).
"""
import statistics
import time
from dataclasses import dataclass

import numpy as np

from . import naive
from .attention import attention_scores, default_scale
from .errors import require
from .language import resolve
from .static import under_grading

__all__ = ["Timing", "median_seconds", "loops_vs_vectorised", "comparison_line", "print_comparison"]

SKIPPED_UNDER_GRADING = {
    "zh": "（评分时不计时：这里的数字只反映你自己的机器，与得分无关。）",
    "en": "(Not timed while grading: these numbers only describe your own machine and do not affect your score.)",
}
# One row of the chapter's table, by language (tests/unit/test_chapter_claims.py reads its numbers back).
ROW = {
    "zh": "seq_len={seq_len:>2}  三层循环 {loops_ms:7.2f} ms   矩阵乘 {matmul_us:6.1f} µs   快 {ratio:>5.0f} 倍   结果一致: {agree}",
    "en": "seq_len={seq_len:>2}  loops {loops_ms:7.2f} ms   matmul {matmul_us:6.1f} µs   {ratio:>5.0f}× faster   "
          "same result: {agree}",
}


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
    return ROW[resolve(lang)].format(seq_len=r.seq_len, loops_ms=r.loops_s * 1e3, matmul_us=r.vectorised_s * 1e6,
                                     ratio=r.ratio, agree=r.agree)


def print_comparison(seq_lens=(8, 16, 32, 64), head_dim: int = 32, lang: str | None = None) -> list:
    """Time both versions at each ``seq_len`` and print one line each; return the timings ([] under nbgrader)."""
    if under_grading():
        print(SKIPPED_UNDER_GRADING[resolve(lang)])
        return []
    results = []
    for seq_len in seq_lens:  # one line as soon as it is measured
        results.append(loops_vs_vectorised(seq_len=seq_len, head_dim=head_dim))
        print(comparison_line(results[-1], lang), flush=True)
    return results

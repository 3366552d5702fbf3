"""How attention's time and memory grow with the sequence length, measured on this machine (the chapter's 4.12).

Shape legend: ``T`` positions, ``D`` head dim. One head's scores are ``[T, T]``: ``T² · D``
multiply-adds for ``Q @ K^T`` and as many for ``@ V``, ``T²`` numbers for softmax, and a ``T×T``
matrix (with temporaries of its size) in memory. :func:`measure` times one call of
:func:`attnkit.attention` (the fastest of a few runs: another process can only slow a run down)
and its peak memory, which :mod:`tracemalloc` sees because numpy reports its buffers there (the
first run is traced).
:func:`slope` fits ``log y`` against ``log T``: 2 means ×4 per doubling. :func:`print_growth` is the
chapter's table; under nbgrader it prints one line instead, as :mod:`attnkit.timing` does.
"""
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from .attention import attention
from .errors import require, require_positive_int
from .language import WORDS, resolve
from .static import under_grading

__all__ = ["Cost", "measure", "slope", "print_growth", "SEQ_LENS"]

SEQ_LENS = (128, 256, 512, 1024, 2048, 4096)
WORK_PER_RUN = 2 ** 20  # T² per run at least: a small T is called several times in one timed run
MIB = 2 ** 20
@dataclass(frozen=True)
class Cost:
    """One sequence length: seconds per call, and the most memory in use at once during a call."""
    seq_len: int
    head_dim: int
    seconds: float
    peak_bytes: int

    @property
    def matrices(self) -> float:
        """The peak in units of one ``T×T`` float32 matrix."""
        return self.peak_bytes / (self.seq_len ** 2 * np.dtype(np.float32).itemsize)


def _traced(call) -> int:
    """``call()``; the most memory it held at once beyond what was held before (numpy's buffers included)."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        if started:
            tracemalloc.stop()


def _run(call, number: int, clock) -> float:
    start = clock()
    for _ in range(number):
        call()
    return (clock() - start) / number


def measure(seq_len: int, head_dim: int = 64, *, repeat: int = 3, seed: int = 0, clock=time.perf_counter) -> Cost:
    """Time and peak memory of one unmasked float32 attention on random ``[seq_len, head_dim]`` Q, K, V."""
    require_positive_int("seq_len", seq_len)
    require(repeat >= 1, f"repeat must be positive: repeat={repeat}")
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((seq_len, head_dim), dtype=np.float32) for _ in range(3))  # (T, D) each
    number, runs = max(1, WORK_PER_RUN // seq_len ** 2), []
    # the first run is also the one traced for memory (tracing numpy's few large buffers costs next to nothing)
    peak = _traced(lambda: runs.append(_run(lambda: attention(q, k, v), number, clock)))
    runs += [_run(lambda: attention(q, k, v), number, clock) for _ in range(repeat - 1)]
    return Cost(seq_len, head_dim, min(runs), peak)


def slope(seq_lens, values) -> float:
    """The slope of ``log(values)`` against ``log(seq_lens)``, least squares."""
    require(len(seq_lens) == len(values) >= 2, f"need two points or more: {len(seq_lens)} lengths, {len(values)} values")
    return float(np.polyfit(np.log(seq_lens), np.log(values), 1)[0])


def _times(value: float, previous: float | None) -> str:
    return "      " if previous is None else f"×{value / previous:4.1f}"


def print_growth(seq_lens=SEQ_LENS, head_dim: int = 64, lang: str | None = None) -> list:
    """Measure each length, one line each, then the fitted slopes; return the costs ([] under nbgrader)."""
    lang = resolve(lang)
    if under_grading():
        print(WORDS.say(lang, "timing.not_timed"))
        return []
    costs = []
    for seq_len in seq_lens:
        last = costs[-1] if costs else None
        costs.append(measure(seq_len, head_dim))
        now = costs[-1]
        print(WORDS.say(lang, "cost.row", seq_len=seq_len, ms=now.seconds * 1e3, mib=now.peak_bytes / MIB,
                        time_x=_times(now.seconds, last and last.seconds),
                        bytes_x=_times(now.peak_bytes, last and last.peak_bytes), matrices=now.matrices),
              flush=True)
    lengths = [c.seq_len for c in costs]
    print(WORDS.say(lang, "cost.slopes", time=slope(lengths, [c.seconds for c in costs]),
                    memory=slope(lengths, [c.peak_bytes for c in costs])))
    return costs

"""Sharpness explorer: how long one slider move takes in the kernel (compute + redraw), one run.

Run: .venv/bin/python benchmarks/bench_explorer.py [--moves N]
For each seq_len (8…64) and head_dim (8…1024) it moves the head_dim slider N times between
that value and its neighbour (as a student dragging it does) and prints the median and p95
latency of the whole update: measure() + redrawing the one Agg figure + PNG into the Image
widget. "compute" is measure() alone; the curves are cached per (seq_len, seed, causal),
so the last column times a seq_len move, which recomputes both curves too. Browser-side
costs (comm round trip, PNG decode) are not included.
"""
import argparse
import os
import statistics
import time

import numpy as np

from attnkit import sharpness
from attnkit.widgets import sharpness_explorer

HEAD_DIMS = (8, 32, 128, 512, 1024)
SEQ_LENS = (8, 16, 32, 64)


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def slider_moves(explorer, head_dim: int, moves: int) -> list:
    """Seconds per head_dim move, alternating with the neighbouring log step."""
    neighbour = head_dim // 2
    targets = [head_dim if i % 2 == 0 else neighbour for i in range(moves)]
    explorer.head_dim.value = neighbour
    return [timed(lambda t=t: setattr(explorer.head_dim, "value", t)) for t in targets]


def seq_len_moves(explorer, seq_len: int, moves: int) -> list:
    """Seconds per seq_len move to a seq_len never seen (cache miss: both curves recomputed)."""
    return [timed(lambda s=s: setattr(explorer.seq_len, "value", s))
            for s in range(seq_len - moves, seq_len)]


def ms(times) -> str:
    return f"{statistics.median(times) * 1e3:7.1f} {np.percentile(times, 95) * 1e3:7.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    moves = parser.parse_args().moves
    os.environ.pop("NBGRADER_EXECUTION", None)
    explorer = sharpness_explorer()
    print(f"{'T':>3} {'D':>5} | slider move (ms): median  p95 | compute (ms): median  p95 | seq_len move: median  p95")
    for seq_len in SEQ_LENS:
        seq_times = seq_len_moves(explorer, seq_len, min(moves, seq_len - 2))
        explorer.seq_len.value = seq_len
        for head_dim in HEAD_DIMS:
            total = slider_moves(explorer, head_dim, moves)
            compute = [timed(lambda: sharpness.measure(head_dim, seq_len=seq_len)) for _ in range(moves)]
            print(f"{seq_len:>3} {head_dim:>5} |                {ms(total)} |           {ms(compute)} |"
                  f"              {ms(seq_times)}")


if __name__ == "__main__":
    main()

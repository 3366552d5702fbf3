"""Sharpness explorer: what is left for the kernel to do, one run.

Run: .venv/bin/python benchmarks/bench_explorer.py [--repeat N]
Since the explorer computes and draws in the browser (attnkit/assets/), a slider move costs
the kernel nothing. What remains: creating the widget (attnkit.sharpness.raw_scores for its
seed, the one table the browser gets), a new seed set from Python (a new table), and under
nbgrader the first frame as a matplotlib PNG when the cache is cold (attnkit.figures; a warm
cache reads the file). Median and p95 of N runs each, in ms. Browser-side latency:
benchmarks/bench_explorer_browser.py.
"""
import os
import statistics
import time

import numpy as np

import benchcli
from attnkit.widgets import first_frame_png, sharpness_explorer


def timed(action, repeat: int) -> list:
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        action(i)
        times.append(time.perf_counter() - start)
    return times


def row(name: str, times: list) -> str:
    return f"{name:<34} {statistics.median(times) * 1e3:8.1f} {np.percentile(times, 95) * 1e3:8.1f}"


def main() -> None:
    parser = benchcli.parser(__doc__, {"repeat": 1})
    parser.add_argument("--repeat", type=int, default=20, help="runs of each (the cold PNG: at most 8)")
    repeat = benchcli.parse(parser).repeat
    os.environ.pop("NBGRADER_EXECUTION", None)
    explorer = sharpness_explorer()
    print(f"{'kernel work (ms)':<34} {'median':>8} {'p95':>8}")
    print(row("create the explorer (one table)", timed(lambda i: sharpness_explorer(seed=i), repeat)))
    print(row("new seed from Python (new table)", timed(lambda i: setattr(explorer, "seed", i + 1), repeat)))
    print(row("first frame PNG, cold cache", timed(lambda i: first_frame_png(seq_len=8 + i % 8), min(repeat, 8))))
    print(f"table sent once: {len(explorer.scores) / 1e3:.0f} kB; slider moves: 0 ms in the kernel")


if __name__ == "__main__":
    main()

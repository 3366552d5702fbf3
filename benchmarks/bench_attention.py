"""Loops vs vectorised single-head attention, side by side in one run (the lab's question 3).

Run: .venv/bin/python benchmarks/bench_attention.py [--sizes 8x16,32x64,64x64]
Prints, per size, the median time of the naive triple loop (attnkit.naive), the lab
reference (attnkit.lab, out-parameter) and the idiomatic API (attnkit.attention), and
the ratio loop / vectorised.
"""
import statistics
import time

import numpy as np

import benchcli
from attnkit import attention_scores, lab, naive


def median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = benchcli.parser(__doc__, {"sizes": "4x8", "repeat": 2})
    parser.add_argument("--sizes", default="8x16,32x64,64x64", help="T=S x D of each row")
    parser.add_argument("--repeat", type=int, default=200, help="runs of each vectorised version (the loops: 3-10)")
    args = benchcli.parse(parser)
    rng = np.random.default_rng(0)
    print(f"{'T=S':>5} {'D':>4} {'loops (ms)':>11} {'lab (ms)':>9} {'api (ms)':>9} {'loops/lab':>10}")
    for seq_len, head_dim in (tuple(map(int, size.split("x"))) for size in args.sizes.split(",")):
        q, k = (rng.normal(size=(seq_len, head_dim)).astype(np.float32) for _ in range(2))
        out = np.empty((seq_len, seq_len), np.float32)
        scale = 1 / np.sqrt(head_dim)
        repeat = min(args.repeat, 3 if seq_len >= 32 else 10)
        t_loop = median_seconds(lambda: naive.attention_scores(q, k, scale), repeat)
        t_lab = median_seconds(lambda: lab.attention_scores(q, k, scale, out), args.repeat)
        t_api = median_seconds(lambda: attention_scores(q, k, scale), args.repeat)
        print(f"{seq_len:>5} {head_dim:>4} {t_loop * 1e3:>11.2f} {t_lab * 1e3:>9.4f} {t_api * 1e3:>9.4f} "
              f"{t_loop / t_lab:>9.0f}x")


if __name__ == "__main__":
    main()

"""Grading a class: serial `nbgrader autograde` vs `make grade` (coursekit.grading): forked, started, unsandboxed.

Run: .venv/bin/python benchmarks/bench_class.py --n 300 [--sample 10] [--workers 1,2]
Builds N synthetic submissions (the rows of the mistake table, correct and buggy, in turn) in a
throw-away copy of the course, then from one run prints side by side:
  * serial `nbgrader autograde` on the first --sample submissions (start-up included), sandboxed,
  * `python -m coursekit.grading --workers W` on all N, for each W: every kernel in the sandbox,
    forked from the worker's pre-imported template, its cells run without the kernel protocol (the default),
  * the same with the largest W and ATTN_DIRECT=off: forked ipykernels driven by nbclient,
  * the same with the largest W and ATTN_FORK=off: each sandboxed kernel a new Python started
    by bubblewrap,
  * the same with ATTN_SANDBOX=off, each kernel started cold (the sandbox's own cost per student
    is the difference from the row above), and started ahead while the previous student's cells
    run (how make grade graded before the sandbox),
wall seconds, wall and CPU seconds per submission (CPU of every process: graders and kernels),
and where one submission's time goes in the workers (kernel until ready: forked, or started by
bubblewrap or jupyter_client; cells; nbgrader's bookkeeping = the rest). Machine noise (other jobs
on the same cores) shows in every figure.
Nothing is written outside a temporary directory.
"""
import argparse
import json
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import nbformat

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))  # the shared test support
from coursekit.gradebook import alembic_env  # noqa: E402
from support.course_tools import ASSIGNMENT, course_copy, isolated_env, released, run_nbgrader  # noqa: E402
from support.mistakes import MISTAKES, mistake_notebook  # noqa: E402


def build_class(tmp: pathlib.Path, n: int):
    """A generated course with ``n`` submissions cycling through the table's rows; (course, env)."""
    course, env = course_copy(tmp / "class"), isolated_env(tmp / "home")
    generated = run_nbgrader("generate_assignment", ASSIGNMENT, cwd=course, env=env)
    assert generated.returncode == 0, generated.stderr[-2000:]
    release = released(course)
    rows = [nbformat.writes(mistake_notebook(release, m)) for m in MISTAKES]
    for k in range(n):
        path = course / "submitted" / f"s{k:04d}" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(rows[k % len(rows)], encoding="utf-8")
    return course, env


def sample_of(course: pathlib.Path, dest: pathlib.Path, k: int) -> pathlib.Path:
    """A copy of the generated ``course`` with only its first ``k`` submissions."""
    shutil.copytree(course, dest, ignore=shutil.ignore_patterns("submitted", "grading-logs"))
    for folder in sorted((course / "submitted").iterdir())[:k]:
        shutil.copytree(folder, dest / "submitted" / folder.name)
    return dest


def timed(command, cwd, env):
    """(wall seconds, CPU seconds of the command and everything it waited for, completed process)."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done


def where_time_goes(course: pathlib.Path) -> str:
    """Means over the graded students of grading-logs/last-run.json (written by coursekit.grading)."""
    outcomes = [o for o in json.loads((course / "grading-logs" / "last-run.json").read_text()) if o["timings"]]
    mean = {key: statistics.mean(o["timings"].get(key, 0.0) for o in outcomes)
            for key in ("kernel", "cells", "worker_cpu", "kernel_cpu")}
    total = statistics.mean(o["seconds"] for o in outcomes)
    return (f"wall: kernel ready (fork or start) {mean['kernel']:.2f} + cells {mean['cells']:.2f} + nbgrader's "
            f"bookkeeping {total - mean['kernel'] - mean['cells']:.2f} = {total:.2f} s; CPU: kernel "
            f"{mean['kernel_cpu']:.2f} + worker {mean['worker_cpu']:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--sample", type=int, default=10, help="submissions graded by serial nbgrader autograde")
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        course, env = build_class(tmp, args.n)
        env = alembic_env(env)
        rows = [("nbgrader autograde (serial)", args.sample,
                 *timed_serial(sample_of(course, tmp / "serial", args.sample), env), "")]
        counts = [int(w) for w in args.workers.split(",")]
        runs = [(f"make grade WORKERS={w}", w, env, []) for w in counts]
        off = dict(env, ATTN_SANDBOX="off")
        runs += [("  … ATTN_DIRECT=off", counts[-1], dict(env, ATTN_DIRECT="off"), []),
                 ("  … ATTN_FORK=off", counts[-1], dict(env, ATTN_FORK="off"), []),
                 ("  … ATTN_SANDBOX=off, cold", counts[-1], off, ["--cold"]),
                 ("  … ATTN_SANDBOX=off, warm", counts[-1], off, [])]
        for name, workers, run_env, extra in runs:
            copy = sample_of(course, tmp / name.replace(" ", "_"), args.n)
            wall, cpu, done = timed([sys.executable, "-m", "coursekit.grading", "--course", str(copy),
                                     "--workers", str(workers), *extra], copy, run_env)
            failed = done.stdout.count("  FAILED")
            rows.append((name, args.n, wall, cpu, where_time_goes(copy) +
                         (f"; {failed} failed (ungradable rows)" if failed else "")))
    print(f"{'':<30} {'n':>5} {'wall s':>8} {'wall s/sub':>10} {'CPU s/sub':>9}  per submission in a worker")
    for name, n, wall, cpu, detail in rows:
        print(f"{name:<30} {n:>5} {wall:>8.1f} {wall / n:>10.2f} {cpu / n:>9.2f}  {detail}")
    by_name = {row[0]: row for row in rows}
    sandboxed, cold = by_name["  … ATTN_FORK=off"], by_name["  … ATTN_SANDBOX=off, cold"]
    print(f"the sandbox's own cost: {1000 * (sandboxed[2] - cold[2]) / args.n * counts[-1]:+.0f} ms of worker time "
          f"per student ({counts[-1]} workers, cold kernels both)")


def timed_serial(course, env):
    wall, cpu, done = timed([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT], course, env)
    assert done.returncode == 0, done.stderr[-2000:]
    return wall, cpu


if __name__ == "__main__":
    main()

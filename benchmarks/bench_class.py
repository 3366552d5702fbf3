"""Grading a class: serial `nbgrader autograde` vs `make grade` (coursekit.grading), sandboxed and not, and an older commit.

Run: .venv/bin/python benchmarks/bench_class.py --n 300 [--sample 10] [--workers 1,2] [--baseline REV]
Builds N synthetic submissions (the rows of the mistake table, correct and buggy, in turn) in a
throw-away copy of the course, then from one run prints side by side:
  * serial `nbgrader autograde` on the first --sample submissions (start-up included), sandboxed,
  * `python -m coursekit.grading --workers W` on all N, for each W: every kernel a cell runner forked
    from the worker's pre-imported template inside the sandbox (the one grading path),
  * the same with the largest W and ATTN_SANDBOX=off (the runners forked outside bubblewrap),
  * with --baseline REV: the same `make grade` with the largest W, run by the code of commit REV
    (a git worktree in .state/ with a venv of its own, made with uv from its cache), on the same class,
wall seconds, wall and CPU seconds per submission (CPU of every process: graders and kernels),
and where one submission's time goes in the workers (kernel until ready; cells; nbgrader's
bookkeeping = the rest). Machine noise (other jobs on the same cores) shows in every figure:
compare rows of one run.
Nothing is written outside a temporary directory, but for the baseline's worktree.
"""
import argparse
import contextlib
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


REPO = pathlib.Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def baseline_code(rev: str):
    """The Python that runs commit ``rev``'s coursekit and attnkit: a worktree under .state/ with its own venv
    (its editable install is what every grading kernel of that commit imports); removed after."""
    folder = REPO / ".state" / "bench-baseline"
    subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=REPO, capture_output=True)
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), rev], cwd=REPO, check=True, capture_output=True)
    uv = pathlib.Path(sys.executable).parent / "uv"
    try:
        subprocess.run([str(uv), "venv", "-q", "--python", sys.executable, str(folder / ".venv")], check=True)
        subprocess.run([str(uv), "pip", "install", "-q", "--python", str(folder / ".venv" / "bin" / "python"),
                        "-e", f"{folder}[course]"], check=True)
        yield str(folder / ".venv" / "bin" / "python")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=REPO, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--sample", type=int, default=10, help="submissions graded by serial nbgrader autograde")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--baseline", default="", help="a git revision whose make grade is timed beside this one's")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    with tempfile.TemporaryDirectory() as tmp, \
            (baseline_code(args.baseline) if args.baseline else contextlib.nullcontext()) as old:
        tmp = pathlib.Path(tmp)
        course, env = build_class(tmp, args.n)
        env = alembic_env(env)
        rows = [("nbgrader autograde (serial)", args.sample,
                 *timed_serial(sample_of(course, tmp / "serial", args.sample), env), "")]
        runs = [(f"make grade WORKERS={w}", w, env, sys.executable) for w in counts]
        runs += [("  … ATTN_SANDBOX=off", counts[-1], dict(env, ATTN_SANDBOX="off"), sys.executable)]
        if old:
            runs += [(f"  … commit {args.baseline}", counts[-1], env, old)]
        for name, workers, run_env, python in runs:
            copy = sample_of(course, tmp / f"run{len(rows)}", args.n)
            wall, cpu, done = timed([python, "-m", "coursekit.grading", "--course", str(copy),
                                     "--workers", str(workers)], copy, run_env)
            failed = done.stdout.count("  FAILED")
            rows.append((name, args.n, wall, cpu, where_time_goes(copy) +
                         (f"; {failed} failed (ungradable rows)" if failed else "")))
    print(f"{'':<30} {'n':>5} {'wall s':>8} {'wall s/sub':>10} {'CPU s/sub':>9}  per submission in a worker")
    for name, n, wall, cpu, detail in rows:
        print(f"{name:<30} {n:>5} {wall:>8.1f} {wall / n:>10.2f} {cpu / n:>9.2f}  {detail}")


def timed_serial(course, env):
    wall, cpu, done = timed([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT], course, env)
    assert done.returncode == 0, done.stderr[-2000:]
    return wall, cpu


if __name__ == "__main__":
    main()

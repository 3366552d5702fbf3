"""What the chapter's demo cells cost under grading: per-cell seconds as nbclient records them.

Run: .venv/bin/python benchmarks/bench_grading_demos.py [--runs N] [--mode autograde|validate|live] [--ref REF]
Executes the student notebook (notebooks/ch04_attention.ipynb) N times, each in a fresh
kernel in a temporary folder, with ``NBGRADER_EXECUTION`` set as nbgrader sets it
(``autograde`` in ``nbgrader autograde``, ``validate`` in ``nbgrader validate``; ``live``
leaves it unset, as a student's kernel). nbclient stamps each cell's
``metadata.execution`` (``iopub.execute_input`` → ``shell.execute_reply``); the table
gives the median per demo cell over the runs, and their total. The first run fills the
figure cache (``ATTNKIT_CACHE_DIR``, a fresh temporary folder here), so the first run's
column shows the cold cost and the median the cost every later student pays on one worker.
``--ref`` measures the notebook and attnkit of an older commit instead (``git archive``,
put first on the kernel's PYTHONPATH), for a before/after from the same machine and load.
"""
import datetime
import os
import pathlib
import statistics
import subprocess
import tempfile

import nbformat
from nbclient import NotebookClient

import benchcli

REPO = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "notebooks" / "ch04_attention.ipynb"
DEMO_CELLS = ("explorer", "pipeline", "neg-inf-figure", "multihead-grid", "timing")


def seconds(cell) -> float:
    stamps = cell.metadata.get("execution", {})
    start, end = stamps.get("iopub.execute_input"), stamps.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    parse = datetime.datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def checkout(ref: str, into: pathlib.Path) -> pathlib.Path:
    """attnkit/ and notebooks/ of ``ref`` under ``into``; returns that notebook's path."""
    archive = subprocess.run(["git", "archive", ref, "attnkit", "notebooks"], cwd=REPO, check=True,
                             capture_output=True).stdout
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    os.environ["PYTHONPATH"] = str(into)
    return into / "notebooks" / NOTEBOOK.name


def run_once(notebook: pathlib.Path, mode: str, workdir: pathlib.Path) -> dict:
    """Execute the notebook once; return {cell id: seconds} for every code cell."""
    nb = nbformat.read(notebook, as_version=4)
    if mode == "live":
        os.environ.pop("NBGRADER_EXECUTION", None)
    else:
        os.environ["NBGRADER_EXECUTION"] = mode  # the kernel inherits it, as under nbgrader
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(workdir)}}).execute()
    return {cell.id: seconds(cell) for cell in nb.cells if cell.cell_type == "code"}


def main() -> None:
    parser = benchcli.parser(__doc__, {"runs": 1})
    parser.add_argument("--runs", type=int, default=5, help="runs of the whole notebook, a fresh kernel each")
    parser.add_argument("--mode", choices=("autograde", "validate", "live"), default="autograde",
                        help="NBGRADER_EXECUTION as nbgrader sets it (live: unset)")
    parser.add_argument("--ref", help="git ref whose notebook and attnkit to measure instead")
    args = benchcli.parse(parser)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ATTNKIT_CACHE_DIR"] = str(pathlib.Path(tmp) / "cache")
        os.environ.setdefault("MPLCONFIGDIR", str(pathlib.Path(tmp) / "mpl"))
        notebook = checkout(args.ref, pathlib.Path(tmp) / "ref") if args.ref else NOTEBOOK
        runs = [run_once(notebook, args.mode, pathlib.Path(tmp)) for _ in range(args.runs)]
    print(f"{args.ref or 'working tree'}: NBGRADER_EXECUTION={args.mode}, {args.runs} runs, fresh kernel each")
    print(f"{'cell':<16} {'first run (s)':>13} {'median (s)':>11}")
    for cell in DEMO_CELLS:
        values = [r[cell] for r in runs]
        print(f"{cell:<16} {values[0]:>13.3f} {statistics.median(values):>11.3f}")
    values = [r["diagnosis"] for r in runs]  # not a demo: the diagnosis after the visible verify
    print(f"{'(diagnosis)':<16} {values[0]:>13.3f} {statistics.median(values):>11.3f}")
    totals = [sum(r[c] for c in DEMO_CELLS) for r in runs]
    everything = [sum(r.values()) for r in runs]
    print(f"{'demo total':<16} {totals[0]:>13.3f} {statistics.median(totals):>11.3f}")
    print(f"{'all code cells':<16} {everything[0]:>13.3f} {statistics.median(everything):>11.3f}")


if __name__ == "__main__":
    main()

"""Sharpness explorer in a real browser: key press / click → new figure painted, one run.

Run: .venv/bin/python benchmarks/bench_explorer_browser.py [--moves N] [--ref REF]
Starts JupyterLab (tests/lab_server.py) and Debian's Chromium (Playwright, 1400x1000,
devicePixelRatio 1), runs a notebook holding only the chapter's explorer cell, and times
N actions of each kind: a head_dim arrow key, a scale-toggle click, a seq_len arrow key
(a new seq_len each time, so both curves are recomputed and the background redrawn). Each
action waits for its figure (decoded and painted) before the next. Prints median and p95
per action and the figure's PNG width against its shown width. Everything runs on
127.0.0.1 in a temporary folder. ``--ref`` (a git ref) runs the same against that
version of attnkit (installed nowhere: put on the kernel's PYTHONPATH from `git archive`).
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

import nbformat
import numpy as np
from playwright.sync_api import sync_playwright

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from support import lab_page  # noqa: E402
from support.lab_server import lab_server  # noqa: E402

EXPLORER_CELL = "from attnkit.figures import sharpness_explorer\nsharpness_explorer()"
OLD_EXPLORER_CELL = "from attnkit.widgets import sharpness_explorer\nsharpness_explorer()"


def notebook(path: pathlib.Path, source: str) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def old_attnkit(ref: str, into: pathlib.Path) -> None:
    archive = subprocess.run(["git", "archive", ref, "attnkit"], cwd=REPO, check=True, capture_output=True).stdout
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def measure(base: pathlib.Path, moves: int) -> tuple:
    with lab_server(base) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(lab_page.CHROMIUM), args=lab_page.CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport=lab_page.VIEWPORT).new_page()
            page.set_default_timeout(60_000)
            lab_page.open_notebook(page, server.notebook_url("explorer.ipynb"))
            lab_page.run_all_cells(page)
            page.locator(".attn-explorer .attn-figure").wait_for()
            box = lab_page.figure_box(page, ".attn-explorer .attn-figure")
            return lab_page.explorer_latencies(page, ".attn-explorer", moves), box
        finally:
            browser.close()


def row(name: str, values: list) -> str:
    return f"{name:<10} {statistics.median(values):8.1f} {np.percentile(values, 95):8.1f} {max(values):8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--ref", help="git ref of an older attnkit to measure instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = pathlib.Path(tmp)
        (base / "notebooks").mkdir()
        source = EXPLORER_CELL
        if args.ref:
            old_attnkit(args.ref, base / "old")
            os.environ["PYTHONPATH"] = str(base / "old")  # the kernel inherits the server's environment
            source = OLD_EXPLORER_CELL if not (base / "old" / "attnkit" / "figures.py").exists() else source
        notebook(base / "notebooks" / "explorer.ipynb", source)
        result, box = measure(base, args.moves)
    print(f"attnkit {args.ref or 'working tree'}: {args.moves} actions each, ms from input to painted figure")
    print(f"{'action':<10} {'median':>8} {'p95':>8} {'max':>8}")
    for name in ("head_dim", "scale", "seq_len"):
        print(row(name, result[name]))
    print(f"figure top y: {sorted(set(round(t, 1) for t in result['tops']))} (one value = no layout jump)")
    print(f"figure PNG {box['natural']} px wide, shown {box['shown']} CSS px, devicePixelRatio {box['ratio']}")


if __name__ == "__main__":
    main()

"""Sharpness explorer in a real browser: key press / click → new figure painted, side by side, one run.

Run: .venv/bin/python benchmarks/bench_explorer_browser.py [--moves N] [--old-ref REF]

Three columns, Debian's Chromium (Playwright, 1400x1000, devicePixelRatio 1) on this machine:

* **kernel round trip** — the explorer before it moved to the browser (``--old-ref``, default
  the parent of the commit that replaced the PNG explorer): JupyterLab sends each move to
  the kernel, which redraws a matplotlib PNG; its attnkit is put on the kernel's PYTHONPATH
  from ``git archive`` (installed nowhere). Timed on its <img> (``lab_page``).
* **JupyterLab** — this working tree's explorer (anywidget): the browser computes and draws.
* **static edition** — the same explorer in the page ``make book`` writes (built afresh in a
  temporary folder), opened from ``file://``, no kernel, no server.

Each takes N actions of each kind: a head_dim arrow key, a scale-toggle click, a seq_len
arrow key (a new seq_len each time, so both curves are recomputed; the browser explorer
from seq_len 40 up, the larger and costlier sizes). Each action waits for its figure before
the next. "Painted" is the first animation frame after the figure changed (decoded, for
the PNG). At 60 Hz one frame is 16.7 ms: an input lands at a random point of a frame and is
shown at the next one, so even free computation has a median near 8 ms and a p95 near 16.
"""
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

import nbformat
import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "scripts"))
import benchcli  # noqa: E402
import build_book  # noqa: E402

from support import explorer_page, lab_page  # noqa: E402
from support.lab_server import lab_server  # noqa: E402

EXPLORER_CELL = "from attnkit.figures import sharpness_explorer\nsharpness_explorer()"
OLD_EXPLORER_CELL = "from attnkit.widgets import sharpness_explorer\nsharpness_explorer()"
ACTIONS = ("head_dim", "scale", "seq_len")
FRAME_MS = 1000 / 60


def old_kernel_ref() -> str:
    """The parent of the newest commit that touched the PNG explorer's ``w.Image`` (the one that removed it)."""
    log = subprocess.run(["git", "log", "-S", 'w.Image(format="png"', "--format=%H", "--", "attnkit/widgets.py"],
                         cwd=REPO, check=True, capture_output=True, text=True).stdout.split()
    if not log:
        raise SystemExit("no commit with the PNG explorer in this history: pass --old-ref")
    return f"{log[0]}^"


def notebook(path: pathlib.Path, source: str) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def old_attnkit(ref: str, into: pathlib.Path) -> None:
    archive = subprocess.run(["git", "archive", ref, "attnkit"], cwd=REPO, check=True, capture_output=True).stdout
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def column(page, moves: int) -> dict:
    """One column of the table: ``moves`` actions of each kind on the browser explorer of ``page`` (JupyterLab's
    notebook or the static page), each waiting for its figure. The tests take these steps on their own pages (this
    bench's smoke): tests/integration/test_browser.py in JupyterLab, test_book.py on the static page."""
    return explorer_page.explorer_latencies(page, moves=moves)


def in_lab(base: pathlib.Path, source: str, measure) -> dict:
    """Run ``source`` in a one-cell notebook in JupyterLab, then ``measure(page)``."""
    (base / "notebooks").mkdir()
    notebook(base / "notebooks" / "explorer.ipynb", source)
    with lab_server(base) as server, lab_page.chromium_browser(base / "chromium") as browser:
        page = browser.new_context(viewport=lab_page.VIEWPORT).new_page()
        page.set_default_timeout(60_000)
        lab_page.open_notebook(page, server.notebook_url("explorer.ipynb"))
        lab_page.run_all_cells(page)
        page.locator(".attn-explorer .attn-figure").wait_for()
        return measure(page)


def kernel_round_trip(ref: str, moves: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        base = pathlib.Path(tmp)
        old_attnkit(ref, base / "old")
        saved = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = str(base / "old")  # the kernel inherits the server's environment
        try:
            return in_lab(base, OLD_EXPLORER_CELL, lambda page: lab_page.explorer_latencies(page, ".attn-explorer", moves))
        finally:
            os.environ.pop("PYTHONPATH") if saved is None else os.environ.__setitem__("PYTHONPATH", saved)


def jupyterlab(moves: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        return in_lab(pathlib.Path(tmp), EXPLORER_CELL, lambda page: column(page, moves))


def static_edition(moves: int) -> tuple:
    """Build the book in a temporary folder, open it from file://; return (latencies, page bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "html"
        build_book.main(["--out", str(out), "--editions", "zh"])
        with lab_page.chromium_browser(pathlib.Path(tmp) / "chromium") as browser:
            page = browser.new_context(viewport=lab_page.VIEWPORT).new_page()
            page.goto((out / "index.html").as_uri())
            page.wait_for_function("document.documentElement.dataset.widgetsReady === 'true'")
            return column(page, moves), (out / "index.html").stat().st_size


def cell(values: list) -> str:
    return f"{statistics.median(values):6.1f} {np.percentile(values, 95):6.1f}"


def table(moves: int, old: dict, lab: dict, static: dict, weight: int, ref: str) -> list:
    """The bench's lines: each action's latencies in the three columns (a column not measured: ``skipped``)."""
    lines = [f"{moves} actions each, ms from key press / click to the figure painted (median, p95); "
             f"one frame = {FRAME_MS:.1f} ms",
             f"{'action':<10} | {'kernel round trip':>17} | {'JupyterLab':>13} | {'static edition':>14}"]
    lines += [f"{name:<10} | {cell(old[name]):>17} | {cell(lab[name]):>13} | {cell(static[name]):>14}"
              for name in ACTIONS]
    within = [np.percentile(r[n], 95) < FRAME_MS for r in (lab, static) for n in ACTIONS]
    lines.append(f"p95 within one frame (browser explorer, both places): {all(within)}")
    for name, result in (("kernel round trip", old), ("JupyterLab", lab), ("static edition", static)):
        lines.append(f"figure top y, {name}: {sorted(set(round(t, 1) for t in result['tops']))} (one value = no layout "
                     "jump)")
    lines.append(f"old explorer: attnkit {ref}; static edition page: {weight / 1e6:.2f} MB, one file")
    return lines


def skipped() -> dict:
    """A column not measured: every figure NaN."""
    return {name: [float("nan")] for name in (*ACTIONS, "tops")}


def main() -> None:
    parser = benchcli.parser(__doc__, {"moves": 1})
    parser.add_argument("--moves", type=int, default=20, help="actions of each kind in each column")
    parser.add_argument("--old-ref", help="git ref of the kernel-round-trip explorer (default: found in the history)")
    args = benchcli.parse(parser)
    os.environ.pop("NBGRADER_EXECUTION", None)
    ref = args.old_ref or old_kernel_ref()
    # --smoke leaves out the old explorer: its code is history (git archive), today's pages cannot break it
    old = skipped() if args.smoke else kernel_round_trip(ref, args.moves)
    lab = jupyterlab(args.moves)
    static, weight = static_edition(args.moves)
    print("\n" + "\n".join(table(args.moves, old, lab, static, weight, ref)))


if __name__ == "__main__":
    main()

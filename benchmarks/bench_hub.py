"""The hub's sizing, measured: log-in to a ready JupyterLab, Validate, and the memory of a student's server and kernel.

Run (as root, like the hub tests): .venv/bin/python benchmarks/bench_hub.py [--students 3]

Starts the hub the tests start (tests/support/hub_tools.py: one Unix user per hub user, the shared
user environment hard-linked into a temporary folder) and, in Debian's Chromium, for each student
in turn, as a student meets them first thing in the morning (the chapter fetched and solved the day before,
their server stopped):

* **log-in, server stopped**: the click on *Sign in* → JupyterLab drawn with its Nbgrader menu
  (the hub starts the server in between);
* **Validate, first**, at once on that page: the Assignment List opened, the click on the fetched
  chapter's *Validate* (a whole submission: the correct answers typed in) → the dialog with the verdict
  (whatever the server still starts for it, the kernel template, is waited for); **Validate, again**: the
  next press;
* **log-in, server running**: the same log-in in a fresh browser context;
* **memory** of their server, then of a kernel on it that has run every code cell of the released
  chapter (``notebooks/ch04_attention.ipynb``, as a student who has not written anything yet):
  resident (RSS) and proportional (PSS: shared pages split between the processes that map them,
  so the PSS of N students adds up to what they take together), read from
  ``/proc/<pid>/smaps_rollup`` of the user's processes.

One run, on whatever else the machine is doing; prints the median and range of each figure. To compare two
versions of the code, run this script from each checkout one after the other and say so (benchmarks/HISTORY.md).
Nothing is kept: the hub, its users and folders are removed at the end.
"""
import json
import os
import pathlib
import re
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde")]
import nbformat  # noqa: E402

import benchcli  # noqa: E402
from coursekit.paths import ASSIGNMENT  # noqa: E402

from support.hub_page import ANSWER, accept, assignment_list_button, open_from_nbgrader_menu  # noqa: E402
from support.mistakes import BY_NAME, submission  # noqa: E402
from support.hub_tools import (as_user, course_hub, instructor_nbgrader, require_hub_machine, run_in_kernel,  # noqa: E402
                               user_token)
from support.lab_page import VIEWPORT, chromium_browser  # noqa: E402

NOTEBOOK = REPO / "notebooks" / "ch04_attention.ipynb"
LAB_READY = 180_000  # ms
# Run in the kernel: every code cell as a cell of its own (an error ends that cell, not the run).
RUN_CELLS = """
import json
_errors = sum(not get_ipython().run_cell(_src, silent=True).success for _src in json.loads(CELLS))
print(json.dumps({"cells": len(json.loads(CELLS)), "errors": _errors}))
"""


def log_in_seconds(browser, plan, user) -> tuple:
    """Sign in → Lab shows its Nbgrader menu, in a new browser context: (seconds, the page, still open)."""
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.set_default_timeout(LAB_READY)
    page.goto(f"{plan.url}hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", plan.passwords[user])
    started = time.monotonic()
    page.click("#login_submit")
    page.wait_for_url(re.compile(f"/user/{user}/lab"), timeout=LAB_READY)
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").wait_for(timeout=LAB_READY)
    return time.monotonic() - started, page


def solved_the_day_before(plan, user) -> None:
    """The chapter fetched (nbgrader, as the student) and solved: the correct code and every written answer, written
    into their home as theirs, with their server stopped."""
    done = as_user(plan, user, plan.python, "-m", "nbgrader", "fetch_assignment", ASSIGNMENT)
    assert done.returncode == 0, f"{user} fetch: {done.stderr[-2000:]}"
    path = pathlib.Path(plan.homes[user]) / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = submission(nbformat.read(path, as_version=4), *BY_NAME["ok_dot"].code)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = ANSWER
    nbformat.write(nb, path)
    os.chown(path, _uid(user), _uid(user))


def validate_seconds(page, user) -> tuple:
    """On the page Lab just drew: the Assignment List, Validate pressed twice: (first, second) in seconds."""
    open_from_nbgrader_menu(page, "Assignment List")
    page.locator("#fetched_assignments_list .assignment-notebooks-link").click()  # shows the notebook's Validate
    seconds = []
    for _ in range(2):
        button = assignment_list_button(page, "fetched", "Validate")
        button.wait_for()
        started = time.monotonic()
        button.click()
        dialog = page.locator(".jp-Dialog").filter(has=page.locator("#validation-message"))
        dialog.wait_for(timeout=LAB_READY)
        seconds.append(time.monotonic() - started)
        assert "validation-success" in dialog.locator("#validation-message").get_attribute("class"), user
        accept(dialog)
    return tuple(seconds)


def _uid(user: str) -> int:
    import pwd

    return pwd.getpwnam(user).pw_uid


def memory_of(user: str) -> dict:
    """{"server": (rss, pss), "kernel": (rss, pss)} in MB, summed over the user's processes of each kind."""
    found = {"server": [0, 0], "kernel": [0, 0]}
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        try:
            if proc.stat().st_uid != _uid(user):
                continue
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            rollup = (proc / "smaps_rollup").read_text()
        except OSError:
            continue
        kind = "kernel" if "ipykernel" in command else "server" if "singleuser" in command else None
        if kind:
            for k, field in enumerate(("Rss", "Pss")):
                found[kind][k] += int(re.search(rf"^{field}:\s+(\d+) kB", rollup, re.M).group(1)) / 1024
    return {kind: tuple(round(v) for v in values) for kind, values in found.items()}


def chapter_cells() -> str:
    cells = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.cell_type == "code"]
    return json.dumps(cells)


def measure(plan, browser) -> dict:
    rows = {"log-in, server stopped (s)": [], "log-in, server running (s)": [], "Validate, first (s)": [],
            "Validate, again (s)": [], "server RSS (MB)": [],
            "server PSS (MB)": [], "kernel after the chapter, RSS (MB)": [], "kernel after the chapter, PSS (MB)": []}
    code = f"CELLS = {chapter_cells()!r}\n" + RUN_CELLS
    for step in ("generate_assignment", "release_assignment"):
        done = instructor_nbgrader(plan, step, ASSIGNMENT)
        assert done.returncode == 0, done.stderr[-2000:]
    for student in plan.students:
        solved_the_day_before(plan, student)
        seconds, page = log_in_seconds(browser, plan, student)
        rows["log-in, server stopped (s)"].append(seconds)
        first, again = validate_seconds(page, student)
        page.context.close()
        rows["Validate, first (s)"].append(first)
        rows["Validate, again (s)"].append(again)
        seconds, page = log_in_seconds(browser, plan, student)
        page.context.close()
        rows["log-in, server running (s)"].append(seconds)
        server = memory_of(student)["server"]
        rows["server RSS (MB)"].append(server[0])
        rows["server PSS (MB)"].append(server[1])

        def kernel_memory(stdout, student=student):
            ran = json.loads(stdout.strip().splitlines()[-1])
            print(f"{student}: {ran['cells']} cells run, {ran['errors']} of them ended in an error")
            kernel = memory_of(student)["kernel"]
            rows["kernel after the chapter, RSS (MB)"].append(kernel[0])
            rows["kernel after the chapter, PSS (MB)"].append(kernel[1])

        run_in_kernel(plan, student, user_token(plan, student), code, timeout=300, before_shutdown=kernel_memory)
    return rows


def main() -> None:
    parser = benchcli.parser(__doc__, {"students": 1})
    parser.add_argument("--students", type=int, default=3, help="students, measured one after another")
    args = benchcli.parse(parser)
    require_hub_machine()
    with tempfile.TemporaryDirectory(prefix="bench-hub-") as tmp:
        tmp = pathlib.Path(tmp)
        with chromium_browser(tmp / "chromium", "the hub benchmark") as browser, \
                course_hub(tmp / "course", "bench-jupyterhub.log", [f"s{k}" for k in range(1, args.students + 1)]) as plan:
            rows = measure(plan, browser)
    print(f"\n{args.students} students, one after another:")
    for name, values in rows.items():
        print(f"  {name:38} median {statistics.median(values):6.1f}   range {min(values):.1f}–{max(values):.1f}")


if __name__ == "__main__":
    main()

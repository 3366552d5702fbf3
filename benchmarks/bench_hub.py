"""The hub's sizing, measured: log-in to a ready JupyterLab, and the memory of a student's server and kernel.

Run (as root, like the hub tests): .venv/bin/python benchmarks/bench_hub.py [--students 3]

Starts the hub the tests start (tests/support/hub_tools.py: one Unix user per hub user, the shared
user environment hard-linked into a temporary folder) and, in Debian's Chromium, for each student
in turn:

* **log-in, server stopped**: the click on *Sign in* → JupyterLab drawn with its Nbgrader menu
  (the hub starts the server in between: what a student meets first thing in the morning);
* **log-in, server running**: the same in a fresh browser context (what they meet after that);
* **Validate**, a whole submission (the correct answers typed into the fetched chapter): the click on
  *Validate* in the Assignment List → the dialog with the verdict; the first of the session (the
  server starts its grading template) and the next one, each once;
* **memory** of their server, then of a kernel on it that has run every code cell of the released
  chapter (``notebooks/ch04_attention.ipynb``, as a student who has not written anything yet):
  resident (RSS) and proportional (PSS: shared pages split between the processes that map them,
  so the PSS of N students adds up to what they take together), read from
  ``/proc/<pid>/smaps_rollup`` of the user's processes.

One run, on whatever else the machine is doing; prints the median and range of each figure.
Nothing is kept: the hub, its users and folders are removed at the end.
"""
import argparse
import json
import pathlib
import re
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde")]
import nbformat  # noqa: E402

from coursekit.paths import ASSIGNMENT  # noqa: E402

from support.hub_page import assignment_list_button, log_in, open_from_nbgrader_menu, type_code  # noqa: E402
from support.mistakes import BY_NAME  # noqa: E402
from support.hub_tools import (as_user, course_hub, instructor_nbgrader, require_hub_machine, run_in_kernel,  # noqa: E402
                               start_servers, user_token)
from support.lab_page import VIEWPORT, chromium_browser  # noqa: E402

NOTEBOOK = REPO / "notebooks" / "ch04_attention.ipynb"
LAB_READY = 180_000  # ms
# Run in the kernel: every code cell as a cell of its own (an error ends that cell, not the run).
RUN_CELLS = """
import json
_errors = sum(not get_ipython().run_cell(_src, silent=True).success for _src in json.loads(CELLS))
print(json.dumps({"cells": len(json.loads(CELLS)), "errors": _errors}))
"""


def log_in_seconds(browser, plan, user) -> float:
    """Sign in → Lab shows its Nbgrader menu, in a new browser context; seconds."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{plan.url}hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", plan.passwords[user])
    started = time.monotonic()
    page.click("#login_submit")
    page.wait_for_url(re.compile(f"/user/{user}/lab"), timeout=LAB_READY)
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").wait_for(timeout=LAB_READY)
    seconds = time.monotonic() - started
    context.close()
    return seconds


def validate_seconds(browser, plan, user) -> tuple:
    """The correct answers typed into the fetched chapter; Validate pressed twice: (first, second) in seconds."""
    type_code(plan, user, BY_NAME["ok_dot"].code)
    page = log_in(browser, plan, user)
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
        dialog.get_by_role("button", name="Ok").click()
        dialog.wait_for(state="detached")
    page.context.close()
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
        rows["log-in, server stopped (s)"].append(log_in_seconds(browser, plan, student))
        rows["log-in, server running (s)"].append(log_in_seconds(browser, plan, student))
        start_servers(plan, [student])
        done = as_user(plan, student, plan.python, "-m", "nbgrader", "fetch_assignment", ASSIGNMENT)
        assert done.returncode == 0, f"{student} fetch: {done.stderr[-2000:]}"
        first, again = validate_seconds(browser, plan, student)
        rows["Validate, first (s)"].append(first)
        rows["Validate, again (s)"].append(again)
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=3)
    args = parser.parse_args()
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

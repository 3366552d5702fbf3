"""Submit → the course's notification in the student's Lab ("反馈已就绪：…"), in Chromium, on the test hub.

Run (as root, like the hub tests): .venv/bin/python benchmarks/bench_notify.py [--one 10] [--burst 30] [--within 60]

Starts the hub the tests start (tests/support/hub_tools.py: one Unix user per student, the shared user
environment, the grading service with its default one worker, resumed by the instructor's command).
Every student has fetched the chapter and typed a row of the mistake table into it (their server's
REST API, as tests/support/hub_class.py does); then, in Debian's Chromium, each logs in and opens the
Assignment List, and presses **Submit**. A probe in the page stamps the click (``Date.now()`` in a
capture-phase listener) and the moment the notification says the feedback is ready (a
MutationObserver on Lab's toasts). Nobody clicks anything else: no Fetch Feedback.

* **one at a time** (``--one`` students): each logs in, submits and waits for the notification, then
  leaves, before the next one logs in: what a student meets on a quiet hub;
* **burst** (``--burst`` other students, all logged in first): each presses Submit at a random moment
  within ``--within`` seconds, the rate of docs/deploy-hub.md's class (30 within one minute).

Beside each, from the same run, the service's own figures: when ``release_feedback`` published the
submission's status (``published`` in coursekit/service/student_status.py, written as the page lands in
the exchange), so Submit → notification splits into the service's part (Submit → released) and the
Lab's (released → notification: the student's server's look, the event, nbgrader's Fetch Feedback,
the toast); and the seconds of each step of the service's job, from its log.

One run, on whatever else the machine is doing; prints p50 / p95 / max of each. Nothing is kept: the hub,
its users and folders are removed at the end.
"""
import json
import os
import pathlib
import random
import re
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde")]
import nbformat  # noqa: E402

import benchcli  # noqa: E402
from coursekit.service import student_status  # noqa: E402
from support.hub_page import LONG, assignment_list_button, log_in, open_from_nbgrader_menu  # noqa: E402
from support.hub_tools import (  # noqa: E402
    ASSIGNMENT, as_user, course_hub, instructor_nbgrader, launch, newest_submission, require_hub_machine,
    server_api, start_servers, user_token)
from support.lab_page import chromium_browser  # noqa: E402
from support.mistakes import MISTAKES, submission  # noqa: E402
from support.stats import percentile  # noqa: E402

NOTIFIED_WAIT = 900_000  # ms: the last of a burst queued behind the class
# Stamps the Submit click and the first "feedback ready" toast after it (the toast of that submission: the
# Lab shows "grading…" in between, so an older ready toast is never taken for it). The click is the first on a
# button of the fetched list once :func:`submit` has armed the probe, right before it clicks the button it found by
# its role and the course's own word for it: whatever the button reads in the student's language.
PROBE_JS = """() => {
  const probe = window.__attnNotify = {armed: false, clicked: null, grading: false, notified: null, text: null};
  document.addEventListener('click', event => {
    const button = event.target.closest && event.target.closest('#fetched_assignments_list button');
    if (button && probe.armed && probe.clicked === null) probe.clicked = Date.now();
  }, true);
  new MutationObserver(() => {
    if (probe.clicked === null || probe.notified !== null) return;
    for (const message of document.querySelectorAll('.jp-toast-message')) {
      const text = message.textContent.trim();
      if (text.startsWith('已收到你')) probe.grading = true;
      if (probe.grading && text.startsWith('反馈已就绪')) { probe.notified = Date.now(); probe.text = text; }
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _fetch(plan, name, token) -> None:
    """The Assignment List's Fetch (nbgrader's own request to the student's server)."""
    body = urllib.parse.urlencode({"course_id": plan.course_id, "assignment_id": ASSIGNMENT}).encode()
    request = urllib.request.Request(f"{plan.url}user/{name}/assignments/fetch", data=body, method="POST",
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=300) as response:
        answer = json.loads(response.read())
    assert answer.get("success"), f"{name}: fetch: {answer}"


def ready_to_submit(plan, name, mistake) -> None:
    """The student has fetched the chapter and typed ``mistake``'s code into it (their server's REST API)."""
    token = user_token(plan, name)
    _fetch(plan, name, token)
    notebook = f"contents/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    status, model = server_api(plan, name, notebook, token)
    assert status == 200, f"{name}'s fetched notebook: HTTP {status}"
    typed = submission(nbformat.from_dict(model["content"]), *mistake.code)
    status, _ = server_api(plan, name, notebook, token, "PUT", {"type": "notebook", "format": "json", "content": typed})
    assert status == 200, f"saving {name}'s notebook: HTTP {status}"


def open_lab(browser, plan, name):
    """The student's Lab in a new browser context, the probe in, the Assignment List open at Submit."""
    page = log_in(browser, plan, name)
    page.evaluate(PROBE_JS)
    open_from_nbgrader_menu(page, "Assignment List")
    assignment_list_button(page, "fetched", "Submit").wait_for(timeout=LONG)
    return page


def submit(page) -> None:
    """Submit pressed in the Assignment List (the button by its role and the course's word for "Submit"), the probe
    armed first so that it stamps this click."""
    button = assignment_list_button(page, "fetched", "Submit")
    button.wait_for(timeout=LONG)
    page.evaluate("() => { window.__attnNotify.armed = true; }")
    button.click()


def wait_notified(page) -> dict:
    page.wait_for_function("() => window.__attnNotify.notified !== null", timeout=NOTIFIED_WAIT, polling=200)
    return page.evaluate("() => window.__attnNotify")


def measured(plan, name, probe) -> dict:
    """Seconds of the submission: Submit → notification, Submit → released (the service), released → notification."""
    stamp, secret = newest_submission(plan, name)
    status = student_status.read(plan.exchange, plan.course_id, secret)
    assert status is not None and status.state == student_status.RELEASED, (name, stamp, status)
    clicked, notified = probe["clicked"] / 1000, probe["notified"] / 1000
    return {"student": name, "text": probe["text"], "notified": notified - clicked,
            "released": status.published - clicked, "told": notified - status.published}


def one_at_a_time(browser, plan, names) -> list:
    rows = []
    for name in names:
        page = open_lab(browser, plan, name)
        submit(page)
        rows.append(measured(plan, name, wait_notified(page)))
        page.context.close()
        print(f"  {name}: notified {rows[-1]['notified']:.2f} s ({rows[-1]['text']})", flush=True)
    return rows


def burst(browser, plan, names, within, seed=4) -> list:
    """Every student's Lab open first; each presses Submit at a random moment within ``within`` seconds."""
    pages = {name: open_lab(browser, plan, name) for name in names}
    moments = sorted(zip(random.Random(seed).sample(range(int(within * 10)), len(names)), names))
    started = time.monotonic()
    for moment, name in moments:
        time.sleep(max(0.0, started + moment / 10 - time.monotonic()))
        submit(pages[name])
    print(f"  {len(names)} submitted within {time.monotonic() - started:.1f} s", flush=True)
    rows = [measured(plan, name, wait_notified(pages[name])) for name in names]
    for page in pages.values():
        page.context.close()
    return rows


STEPS = re.compile(r"\[((?:\w+ [\d.]+ s(?:, )?)+)\]$")


def service_steps(plan, names) -> dict:
    """{step: [seconds, …]} of the service's jobs for ``names``, from its log (collect, grade, feedback, release)."""
    steps = {}
    for line in (plan.course_dir() / "grading-logs" / "service.log").read_text().splitlines():
        found = STEPS.search(line)
        if found and any(f"  {name}  " in line for name in names):
            for part in found.group(1).split(", "):
                step, seconds, _ = part.split()
                steps.setdefault(step, []).append(float(seconds))
    return steps


def report(title, rows, steps) -> list:
    def line(label, values):
        values = sorted(values)
        return (f"  {label:44} p50 {percentile(values, 50):5.2f} s   p95 {percentile(values, 95):5.2f} s   "
                f"max {values[-1]:5.2f} s")
    lines = [f"{title}: {len(rows)} students",
             line("Submit → notification shown (Chromium)", [r["notified"] for r in rows]),
             line("  of which Submit → released (the service)", [r["released"] for r in rows]),
             line("  and released → notification (the Lab's path)", [r["told"] for r in rows])]
    lines += [f"  service step {step:9} median {statistics.median(v):.2f} s (max {max(v):.2f} s, {len(v)} jobs)"
              for step, v in steps.items()]
    return lines


def release_and_resume(plan) -> None:
    """The instructor releases the chapter and resumes the grading service (it starts paused on a test hub)."""
    for step in ("generate_assignment", "release_assignment"):
        done = instructor_nbgrader(plan, step, ASSIGNMENT)
        assert done.returncode == 0, f"{step}: {done.stderr[-2000:]}"
    done = as_user(plan, plan.instructor, plan.python, "-m", "coursekit.service", "resume", cwd=plan.course_dir())
    assert done.returncode == 0, done.stderr


def ready(plan, names) -> None:
    """Their servers started, the chapter fetched and a row of the mistake table typed in, by each."""
    start_servers(plan, names, timeout=900)
    for k, name in enumerate(names):
        ready_to_submit(plan, name, MISTAKES[k % len(MISTAKES)])


def run(plan, browser, one, burst_size, within) -> list:
    first, rest = plan.students[:one], plan.students[one:one + burst_size]
    release_and_resume(plan)
    ready(plan, first)
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    lines = report("one at a time", one_at_a_time(browser, plan, first), service_steps(plan, first))
    for name in first:  # their servers' memory back before the class logs in
        launch.api(plan, f"users/{name}/server", "DELETE")
    if rest:
        ready(plan, rest)
        lines += report(f"burst within {within:g} s", burst(browser, plan, rest, within), service_steps(plan, rest))
    return lines + [f"load after: {os.getloadavg()[0]:.1f}"]


def main() -> None:
    parser = benchcli.parser(__doc__, {"one": 1, "burst": 0})
    parser.add_argument("--one", type=int, default=10, help="students one at a time")
    parser.add_argument("--burst", type=int, default=30, help="other students submitting together")
    parser.add_argument("--within", type=float, default=60.0, help="seconds within which the burst submits")
    args = benchcli.parse(parser)
    require_hub_machine()
    names = [f"s{k}" for k in range(1, args.one + args.burst + 1)]
    with tempfile.TemporaryDirectory(prefix="bench-notify-") as tmp:
        tmp = pathlib.Path(tmp)
        with chromium_browser(tmp / "chromium", "the notification benchmark") as browser, \
                course_hub(tmp / "course", "bench-notify-jupyterhub.log", names) as plan:
            lines = run(plan, browser, args.one, args.burst, args.within)
    print("\n" + "\n".join(lines))


if __name__ == "__main__":
    main()

"""A class on the hub at once: every student logs in, starts a server, fetches, submits within a minute and
waits for the grading service's feedback, all through the hub's pages and the servers' REST APIs.

:func:`run_class` drives it on a running :func:`support.hub_tools.course_hub` whose students each
submit a row of the mistake table, and measures what ``docs/deploy-hub.md`` reports: the hub's and
the proxy's latency while the class works, the memory of each student's server, and the time from
each Submit to its feedback being fetchable. Used by tests/integration/test_hub_class.py
(``make test-hub-class`` for the 30 of the docs).
"""
import concurrent.futures
import contextlib
import dataclasses
import http.cookiejar
import json
import pathlib
import pwd
import random
import statistics
import threading
import time
import urllib.parse
import urllib.request

import nbformat

from coursekit.paths import ASSIGNMENT
from support.hub_tools import as_user, instructor_nbgrader, launch, newest_submission, server_api, user_token
from support.mistakes import MISTAKES, submission
from support.service_tools import released_page
from support.stats import percentile

# s per student: everyone submits at a random moment within (students × this), so 30 students submit within
# one minute (docs/deploy-hub.md) and a smaller class at the same rate, not idle for the rest of the minute.
SUBMIT_WINDOW_PER_STUDENT = 2.0
SERVERS_READY = 600   # s: a class's servers starting at once on 2 cores
FEEDBACK_WAIT = 600   # s: the last submission's feedback, a class queued before it


@dataclasses.dataclass
class Student:
    name: str
    mistake: object          # the row of the mistake table they submit
    submitted_at: float = 0  # time.time() when Submit answered
    timestamp: str = ""      # nbgrader's timestamp of that submission
    secret: str = ""
    released_at: float = 0   # when its feedback page appeared in the exchange
    page: str = ""           # the fetched feedback page's text


@dataclasses.dataclass
class ClassRun:
    students: list
    login_seconds: float      # all logins, side by side
    servers_seconds: float    # from the first login until every server answered
    hub_ms: list              # /hub/health while the class submits and waits
    proxy_ms: list            # a student's server through the proxy, meanwhile
    failed: list              # requests of the prober that failed (time and error)
    memory_mb: dict           # {student: PSS of their server's processes, MB}

    def waits(self) -> list:
        return sorted(s.released_at - s.submitted_at for s in self.students)

    def summary(self) -> dict:
        waits, memory = self.waits(), sorted(self.memory_mb.values())
        return {
            "students": len(self.students), "login_s": round(self.login_seconds, 1),
            "servers_ready_s": round(self.servers_seconds, 1),
            "submit_to_feedback_p50_s": round(percentile(waits, 50), 1),
            "submit_to_feedback_p95_s": round(percentile(waits, 95), 1),
            "submit_to_feedback_max_s": round(waits[-1], 1),
            "hub_ms_p50": round(percentile(self.hub_ms, 50)), "hub_ms_p95": round(percentile(self.hub_ms, 95)),
            "proxy_ms_p50": round(percentile(self.proxy_ms, 50)), "proxy_ms_p95": round(percentile(self.proxy_ms, 95)),
            "server_mb_median": round(statistics.median(memory)), "server_mb_max": round(memory[-1]),
        }


def post_login_form(plan, user) -> int:
    """The hub's login form, as a browser posts it (its _xsrf cookie and field); the final HTTP status."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{plan.url}hub/login", timeout=120) as response:
        response.read()
    xsrf = next(cookie.value for cookie in jar if cookie.name == "_xsrf")
    form = urllib.parse.urlencode({"username": user, "password": plan.passwords[user], "_xsrf": xsrf}).encode()
    with opener.open(f"{plan.url}hub/login?next=", data=form, timeout=120) as response:
        response.read()
        return response.status


def _post_form(plan, user, token, path, **fields) -> dict:
    """``POST /user/<user>/<path>`` with form fields (the Assignment List's own requests); decoded JSON."""
    request = urllib.request.Request(f"{plan.url}user/{user}/{path}", data=urllib.parse.urlencode(fields).encode(),
                                     headers={"Authorization": f"token {token}"}, method="POST")
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read())


def _assignment_action(plan, student, token, action) -> dict:
    answer = _post_form(plan, student, token, f"assignments/{action}", course_id=plan.course_id,
                        assignment_id=ASSIGNMENT)
    assert answer.get("success"), f"{student}: {action}: {answer.get('value') or answer}"
    return answer


def _submit(plan, student: Student, delay: float) -> None:
    """Fetch, type the row's code in, wait ``delay`` s, Submit; then note the submission's timestamp and secret."""
    token = user_token(plan, student.name)
    _assignment_action(plan, student.name, token, "fetch")
    notebook = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    status, model = server_api(plan, student.name, f"contents/{notebook}", token)
    assert status == 200, f"{student.name}'s fetched notebook: HTTP {status}"
    typed = submission(nbformat.from_dict(model["content"]), *student.mistake.code)
    status, _ = server_api(plan, student.name, f"contents/{notebook}", token, "PUT",
                           {"type": "notebook", "format": "json", "content": typed})
    assert status == 200, f"saving {student.name}'s notebook: HTTP {status}"
    time.sleep(delay)
    _assignment_action(plan, student.name, token, "submit")
    student.submitted_at = time.time()
    student.timestamp, student.secret = newest_submission(plan, student.name)


def _released(plan, student: Student) -> bool:
    return released_page(plan.exchange, plan.course_id, student.secret).exists()


def _fetch_feedback(plan, student: Student) -> None:
    """Fetch Feedback in the student's server, then read the page it brought."""
    token = user_token(plan, student.name)
    _assignment_action(plan, student.name, token, "fetch_feedback")
    path = f"contents/{ASSIGNMENT}/feedback/{urllib.parse.quote(student.timestamp)}/{ASSIGNMENT}.html"
    status, model = server_api(plan, student.name, path, token)
    assert status == 200, f"{student.name}'s fetched feedback: HTTP {status}"
    student.page = model["content"]


def _pss_mb(uid: int) -> float:
    """The proportional set size of every process of ``uid`` (their server and what it started), MB."""
    total = 0
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, StopIteration):
            if proc.stat().st_uid != uid:
                continue
            rollup = (proc / "smaps_rollup").read_text().splitlines()
            total += int(next(line.split()[1] for line in rollup if line.startswith("Pss:")))
    return total / 1024


class _Prober(threading.Thread):
    """Times a hub request and a request through the proxy to a student's server, twice a second."""

    def __init__(self, plan, student):
        super().__init__(daemon=True)
        self.plan, self.student, self.token = plan, student, user_token(plan, student)
        self.hub_ms, self.proxy_ms, self.errors, self.stopped = [], [], [], threading.Event()

    def _time(self, url, headers=None) -> float:
        started = time.perf_counter()
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=60) as response:
            response.read()
        return (time.perf_counter() - started) * 1000

    def run(self):
        while not self.stopped.wait(0.5):
            try:
                self.hub_ms.append(self._time(f"{self.plan.url}hub/health"))
                self.proxy_ms.append(self._time(f"{self.plan.url}user/{self.student}/api/status",
                                                {"Authorization": f"token {self.token}"}))
            except OSError as error:  # urllib's HTTPError and URLError too: kept, the test names them
                self.errors.append(f"{time.strftime('%H:%M:%S')} {error}")


def run_class(plan, window: float | None = None, seed: int = 4) -> ClassRun:
    """The whole class at once on ``plan``'s hub (its grading service resumed first); what was measured.

    ``window``: the seconds within which every student submits (default: 2 s per student).
    """
    for step in ("generate_assignment", "release_assignment"):
        done = instructor_nbgrader(plan, step, ASSIGNMENT)
        assert done.returncode == 0, f"{step}: {done.stderr[-2000:]}"
    resumed = as_user(plan, plan.instructor, plan.python, "-m", "coursekit.service", "resume", cwd=plan.course_dir())
    assert resumed.returncode == 0, resumed.stderr
    students = [Student(name, MISTAKES[i % len(MISTAKES)]) for i, name in enumerate(plan.students)]
    names = [s.name for s in students]
    window = SUBMIT_WINDOW_PER_STUDENT * len(students) if window is None else window
    with concurrent.futures.ThreadPoolExecutor(len(students)) as pool:
        started = time.monotonic()
        statuses = list(pool.map(lambda name: post_login_form(plan, name), names))  # each login starts that server
        logged_in = time.monotonic() - started
        assert all(status == 200 for status in statuses), dict(zip(names, statuses))
        _wait_for_servers(plan, names)
        servers = time.monotonic() - started

        prober = _Prober(plan, names[0])
        prober.start()
        delays = random.Random(seed).sample(range(int(window * 10)), len(students))
        for done in [pool.submit(_submit, plan, s, d / 10) for s, d in zip(students, delays)]:
            done.result()
        deadline = time.monotonic() + FEEDBACK_WAIT
        waiting = list(students)
        while waiting and time.monotonic() < deadline:
            for student in [s for s in waiting if _released(plan, s)]:
                student.released_at = time.time()
                waiting.remove(student)
            time.sleep(0.2)
        prober.stopped.set()
        prober.join()
        assert not waiting, f"no feedback after {FEEDBACK_WAIT} s for {[s.name for s in waiting]}"
        memory = {name: _pss_mb(pwd.getpwnam(name).pw_uid) for name in names}
        for done in [pool.submit(_fetch_feedback, plan, s) for s in students]:
            done.result()
    return ClassRun(students, logged_in, servers, prober.hub_ms, prober.proxy_ms, prober.errors, memory)


def _wait_for_servers(plan, names) -> None:
    deadline = time.monotonic() + SERVERS_READY
    while time.monotonic() < deadline:
        ready = [u for u in names if launch.api(plan, f"users/{u}")["servers"].get("", {}).get("ready")]
        if len(ready) == len(names):
            return
        time.sleep(1)
    raise TimeoutError(f"after {SERVERS_READY} s only {len(ready)} of {len(names)} servers ready")

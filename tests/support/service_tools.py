"""The grading service (coursekit.service) as a plain process on a throw-away course, and students who submit.

``service_course`` makes a course copy with its own exchange, generated and released;
``running_service`` starts ``python -m coursekit.service`` on it and always stops it (and, if a
test killed it, whatever it left); ``submit`` is nbgrader's own ``ExchangeSubmit`` run
in-process as one student (what Assignment List → Submit runs), and ``fetchable`` asks what
Fetch Feedback asks: is there a released page for that submission's secret?
Used by tests/integration/test_service*.py and benchmarks/bench_submit.py.
"""
import contextlib
import dataclasses
import glob
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

import nbformat
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default import ExchangeSubmit
from nbgrader.utils import notebook_hash
from traitlets.config import Config

from coursekit.gradebook import alembic_env
from coursekit.service.log import short_time
from support.course_tools import ASSIGNMENT, course_copy, isolated_env
from support.exchange_rows import arrival

COURSE_ID = "attention-ch04"
SERVICE_LOG = pathlib.Path("grading-logs") / "service.log"


@dataclasses.dataclass
class ServiceCourse:
    course: pathlib.Path
    exchange: pathlib.Path
    env: dict
    homes: pathlib.Path   # one folder per student: their fetched assignment and nbgrader's cache

    def configure(self, **settings) -> None:
        """Append ``c.GradingService.<name> = <value>`` lines to the course's config (the policy)."""
        lines = "".join(f"c.GradingService.{name} = {value!r}\n" for name, value in settings.items())
        with (self.course / "nbgrader_config.py").open("a", encoding="utf-8") as fh:
            fh.write("\n" + lines)

    def log(self) -> str:
        path = self.course / SERVICE_LOG
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def log_lines(self, student) -> list:
        return [line for line in self.log().splitlines() if f"  {student}  " in line]


def service_course(tmp_path, timeout="10", env_extra=None, generated=None) -> ServiceCourse:
    """A course copy, its assignment generated and released into an exchange of its own (``env_extra``: more of the
    environment every command of it gets, e.g. ``DB_URL``; ``generated``: a generated course to copy, which then
    needs only the release)."""
    tmp_path = pathlib.Path(tmp_path)
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    env = isolated_env(tmp_path / "home", ATTN_TIMEOUT=timeout, ATTN_EXCHANGE=str(exchange), ATTN_COURSE_ID=COURSE_ID,
                       **(env_extra or {}))
    if generated is None:
        course = course_copy(tmp_path)
        generate_and_release(course, env, ASSIGNMENT)
    else:
        course = pathlib.Path(shutil.copytree(generated, tmp_path / "course", symlinks=True))
        generate_and_release(course, env, ASSIGNMENT, steps=("release_assignment",))
    return ServiceCourse(course, exchange, env, tmp_path / "students")


def generate_and_release(course, env, *assignments, steps=("generate_assignment", "release_assignment")) -> None:
    """``nbgrader generate_assignment`` and ``release_assignment`` (or only ``steps``) of each assignment, in one
    process (nbgrader's own API: one start-up for all of them)."""
    done = subprocess.run([sys.executable, "-c", _GENERATE_AND_RELEASE, ",".join(steps), *assignments], cwd=course,
                          env=alembic_env(env), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]


# nbgrader's steps (generate_assignment, release_assignment) in one process (nbgrader's own API: half the start-up)
_GENERATE_AND_RELEASE = """
import sys
from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader
config = PyFileConfigLoader("nbgrader_config.py", path=".").load_config()
api = NbGraderAPI(CourseDirectory(config=config), config=config)
for assignment in sys.argv[2:]:
    for step in sys.argv[1].split(","):
        result = getattr(api, step)(assignment)
        if not result["success"]:
            sys.exit(f"{step} {assignment}: " + result.get("error", "") + result.get("log", ""))
"""


@dataclasses.dataclass(frozen=True)
class Submitted:
    student: str
    timestamp: str  # when it arrived in inbound/, as the course says it (exchange_rows.arrival)
    secret: str
    at: float       # time.time() when nbgrader's submit returned
    claimed: str = ""  # the time nbgrader's submit put in its name (the student's clock)


def submit(sc: ServiceCourse, student: str, notebook=None, assignment: str = ASSIGNMENT, notebooks=None) -> Submitted:
    """``nbgrader submit`` as ``student``: ``notebook`` (an nbformat notebook or JSON text), or ``notebooks``
    (``{name: notebook}``, for an assignment of several) into the inbound folder."""
    home = sc.homes / student
    (home / assignment).mkdir(parents=True, exist_ok=True)
    for name, nb in (notebooks or {assignment: notebook}).items():
        text = nb if isinstance(nb, str) else nbformat.writes(nb)
        (home / assignment / f"{name}.ipynb").write_text(text, encoding="utf-8")
    config = Config()
    config.Exchange.root, config.Exchange.cache = str(sc.exchange), str(home / ".cache")
    config.Exchange.assignment_dir = str(home)
    config.CourseDirectory.course_id, config.CourseDirectory.assignment_id = COURSE_ID, assignment
    config.CourseDirectory.student_id = student
    step = ExchangeSubmit(coursedir=CourseDirectory(config=config), authenticator=Authenticator(config=config),
                          config=config)
    step.start()
    cached = home / ".cache" / COURSE_ID / f"{student}+{assignment}+{step.timestamp}"
    inbound = next((sc.exchange / COURSE_ID / "inbound").glob(f"{glob.escape(student)}+{assignment}+{step.timestamp}+*"))
    return Submitted(student, arrival(inbound), (cached / "submission_secret.txt").read_text(), time.time(),
                     step.timestamp)


def released_page(exchange, course_id: str, secret: str, notebook: str = ASSIGNMENT) -> pathlib.Path:
    """Where Fetch Feedback looks for the page of ``notebook`` of the submission with ``secret`` (nbgrader's hash)."""
    digest = notebook_hash(secret=secret, notebook_id=notebook)
    return pathlib.Path(exchange) / course_id / "feedback" / f"{digest}.html"


def feedback_page(sc: ServiceCourse, submitted: Submitted, notebook: str = ASSIGNMENT) -> pathlib.Path:
    return released_page(sc.exchange, COURSE_ID, submitted.secret, notebook)


def fetchable(sc: ServiceCourse, submitted: Submitted, notebook: str = ASSIGNMENT) -> bool:
    return feedback_page(sc, submitted, notebook).exists()


def wait_for(predicate, timeout, what, poll=0.1):
    """Poll ``predicate`` until it is true; TimeoutError naming ``what`` otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll)
    raise TimeoutError(f"{what}: not after {timeout:.0f} s")


def _service_pids(course: pathlib.Path) -> list:
    """PIDs of the service and its workers for ``course`` (marked in their environment), e.g. left by a kill."""
    needle, found = f"ATTN_SERVICE_COURSE={course}\0".encode(), []
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if needle in (proc / "environ").read_bytes() + b"\0":
                found.append(int(proc.name))
    return found


@dataclasses.dataclass
class Service:
    process: subprocess.Popen
    output: pathlib.Path

    def kill(self) -> None:
        """``kill -9`` the service (not its workers: they must notice on their own)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def start_service(sc: ServiceCourse, name="service") -> Service:
    output = sc.course.parent / f"{name}.out"
    env = dict(sc.env, ATTN_SERVICE_COURSE=str(sc.course))  # lets the clean-up find what a kill left behind
    with output.open("ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "coursekit.service", "--course", str(sc.course)],
                                   cwd=sc.course, env=env, stdout=out, stderr=subprocess.STDOUT)
    before = sc.log().count("ready (its kernel template is warm)")
    wait_for(lambda: sc.log().count("ready (its kernel template is warm)") > before or process.poll() is not None,
             90, "the service's first worker ready")
    assert process.poll() is None, output.read_text()[-3000:]
    return Service(process, output)


def stop_service(sc: ServiceCourse, service: Service) -> None:
    """SIGTERM (the service stops its workers), SIGKILL after 30 s; then any process it left."""
    if service.process.poll() is None:
        service.process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            service.process.wait(30)
    if service.process.poll() is None:
        service.process.kill()
        service.process.wait()
    deadline = time.monotonic() + 30
    while (left := _service_pids(sc.course)) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def running_service(sc: ServiceCourse, name="service"):
    service = start_service(sc, name)
    try:
        yield service
    finally:
        stop_service(sc, service)


def graded_line(student, timestamp):
    """A regular expression for the log line of ``student``'s submission at ``timestamp`` being graded."""
    clock = short_time(timestamp)
    return re.compile(rf"  {re.escape(student)}  submitted {clock} → graded ")

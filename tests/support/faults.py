"""The fault table: what the machine can do wrong while a class is graded, made to happen for real.

Each row is one infrastructure fault (coursekit.faults): how to cause it on a real course, how to
repair it, and what the instructor must be told. tests/integration/test_faults_grade.py runs every row
of ``make grade`` through the real ``make grade`` (``python -m coursekit.grading``), and
tests/integration/test_faults_service.py the rows of :data:`SERVICE` through the real grading service
(``python -m coursekit.service``) and checks the same things of each: nobody got a grade, a comment
or feedback from it; the one line names the cause; the exit status (or the service's status) says
"the machine's"; after the repair, a run grades everyone exactly as a class without the fault.
A new fault is one new row.

Rows act on the test's own processes only: each run carries :data:`MARK` in its environment, and
a row that kills finds its victims by it.
"""
import contextlib
import os
import pathlib
import re
import shutil
import signal
import subprocess
import threading

from coursekit.language import WORDS

MARK = "ATTN_FAULT_TABLE_RUN"  # in the environment of every process a row may kill: the row's name


def processes(mark: str, command: str) -> list:
    """pids of live processes whose environment carries ``MARK=mark`` and whose command line holds ``command``."""
    needle, found = f"{MARK}={mark}\0".encode(), []
    for environ in pathlib.Path("/proc").glob("[0-9]*/environ"):
        with contextlib.suppress(OSError):
            if needle in environ.read_bytes() and command.encode() in (environ.parent / "cmdline").read_bytes():
                found.append(int(environ.parent.name))
    return found


def kill(pids) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def watching(action, every: float = 0.05):
    """``action()`` again and again in a thread while the block runs (a fault that keeps happening)."""
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            action()
            stop.wait(every)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def pieces(lang: str, msgid: str, known=None) -> list:
    """What any line saying ``msgid`` in ``lang`` shows whatever its values: its template's text between its
    placeholders, the ``known`` values filled in first."""
    template = WORDS.template(lang, msgid)
    for name, value in (known or {}).items():
        template = template.replace("{" + name + "}", str(value))
    return [piece.strip() for piece in re.split(r"\{[^{}]*\}", template) if piece.strip()]


def says(line: str, lang: str, msgid: str, known=None) -> bool:
    """Does ``line`` say ``msgid`` of the course's catalogue in ``lang`` (:func:`pieces`)?"""
    return all(piece in line for piece in pieces(lang, msgid, known))


def second_begun(course: pathlib.Path) -> bool:
    """Has nbgrader begun a second student (made its autograded folder)? With one worker: the first is done."""
    return len(list((course / "autograded").glob("*/*/"))) >= 2


class Row:
    """One fault. ``prepare`` sets up what it needs (``stack``: what to undo when the test ends); ``inject`` makes
    it happen while its block runs (``env``: the run's environment, which it may change; ``wrap``: what the faulty
    run is started through); ``repair`` undoes it for good. ``mid_class``: it strikes after the first student was
    graded."""

    name = ""
    cause = ""            # the one line the instructor must see holds this tool's own words (data), or
    causes = ()           # one of these messages of the course's catalogue (the fault's cause, coursekit.faults)
    known = {}            # with these values
    mid_class = False
    grade = True          # a row of make grade
    service = True        # a row of the grading service
    needs_root = False

    def prepare(self, course: pathlib.Path, env: dict, stack: contextlib.ExitStack) -> dict:
        return env

    @contextlib.contextmanager
    def inject(self, course: pathlib.Path, env: dict):
        yield env

    def repair(self, course: pathlib.Path) -> None:
        pass

    def wrap(self, course: pathlib.Path) -> list:
        """The command line the faulty run is started through (before its own): none by default."""
        return []

    def named_in(self, line: str, lang: str) -> bool:
        """Does ``line`` name this fault's cause, in the course's language ``lang``?"""
        if self.cause:
            return self.cause in line
        return any(says(line, lang, msgid, self.known) for msgid in self.causes)


class TemplateDiesAtStart(Row):
    """The kernel template is killed as it starts (the out-of-memory killer, a broken library): every time."""
    name, causes = "template_dies_at_start", ("fault.template_not_started",)

    @contextlib.contextmanager
    def inject(self, course, env):
        with watching(lambda: kill(processes(self.name, "coursekit.sandbox.template"))):
            yield dict(env, **{MARK: self.name})


class BubblewrapRefuses(Row):
    """bubblewrap cannot make namespaces (a non-root instructor where user namespaces are off): here a ``bwrap``
    first on PATH that says what Debian's says then and fails, since this machine's kernel allows them."""
    name, cause = "bwrap_refuses", "bwrap: No permissions to create a new namespace"
    SAYS = ("bwrap: No permissions to create a new namespace, likely because the kernel does not allow "
            "non-privileged user namespaces.")

    @contextlib.contextmanager
    def inject(self, course, env):
        tools = course.parent / "refusing-bwrap"
        tools.mkdir(exist_ok=True)
        (tools / "bwrap").write_text(f"#!/bin/sh\necho '{self.SAYS}' >&2\nexit 1\n")
        (tools / "bwrap").chmod(0o755)
        yield dict(env, PATH=f"{tools}:{env['PATH']}")

    def repair(self, course):
        shutil.rmtree(course.parent / "refusing-bwrap")  # a process started with that PATH finds the real one now


class GraderUnreadable(Row):
    """The grader readable by its owner only (mode 600, owner root) where every sandboxed kernel is another user."""
    name, causes, needs_root = "grader_unreadable", ("fault.grader_unreadable_others",), True

    def _chmod(self, course, mode):
        for path in (course / "grader").rglob("*.py"):
            path.chmod(mode)

    @contextlib.contextmanager
    def inject(self, course, env):
        self._chmod(course, 0o600)
        yield env

    def repair(self, course):
        self._chmod(course, 0o644)


class GraderRemoved(Row):
    name, causes = "grader_removed", ("fault.grader_missing",)

    @contextlib.contextmanager
    def inject(self, course, env):
        (course / "grader").rename(course / "grader-elsewhere")
        yield env

    def repair(self, course):
        (course / "grader-elsewhere").rename(course / "grader")


class DiskFull(Row):
    """``autograded/`` on a small file system that holds one student's folder, not two."""
    name, causes, mid_class, needs_root = "disk_full", ("fault.disk_full",), True, True
    SIZE = "700k"

    def prepare(self, course, env, stack):
        (course / "autograded").mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.SIZE}", "tmpfs", str(course / "autograded")],
                       check=True)
        stack.callback(subprocess.run, ["umount", "-l", str(course / "autograded")], capture_output=True)
        return env

    def repair(self, course):
        subprocess.run(["mount", "-o", "remount,size=64m", str(course / "autograded")], check=True)


class TmpFull(Row):
    """The machine's /tmp is full (a student's kernel once filled it from its own folder there, issue 54): ``make
    grade`` runs in a mount namespace of its own whose /tmp is a tmpfs too small for a copy of the release, the
    rest of the machine as it is (the course, the sandbox's uid locks). Its first copy into /tmp fails inside
    ``shutil.copytree``, which wraps each file's ENOSPC in a ``shutil.Error``. The repair: /tmp has room again
    (the next run is started plainly)."""
    name, causes, service, needs_root = "tmp_full", ("fault.disk_full",), False, True
    known = {"where": " (/tmp/"}
    SIZE = str(48 * 1024)

    def wrap(self, course):
        from coursekit.sandbox.identity import LOCKS

        LOCKS.mkdir(mode=0o700, exist_ok=True)
        keep = [course.parent, LOCKS]  # the course and the run's home beside it; the locks every grading shares
        return ["bwrap", "--dev-bind", "/", "/", "--size", self.SIZE, "--tmpfs", "/tmp", "--cap-add", "ALL",
                "--die-with-parent", *[arg for path in keep for arg in ("--bind", str(path), str(path))], "--"]


class WorkerKilled(Row):
    """A ``make grade`` worker killed with SIGKILL once the class is under way."""
    name, mid_class, service = "worker_killed", True, False
    causes, known = ("fault.worker_killed_grading", "fault.worker_killed_idle"), {"signal": 9}

    @contextlib.contextmanager
    def inject(self, course, env):
        done = []

        def strike():
            if not done and second_begun(course):
                victims = processes(self.name, "spawn_main")  # a worker, not multiprocessing's resource tracker
                kill(victims[:1])
                done.extend(victims[:1])

        with watching(strike):
            yield dict(env, **{MARK: self.name})


class ExchangeUnreadable(Row):
    """The exchange's ``inbound/`` cannot be listed. As root, permissions would not stop the service, so a file
    stands where the folder was (listing it fails as an unreadable folder fails: an OSError)."""
    name, causes, grade = "exchange_unreadable", ("service.inbound_unreadable",), False
    inbound: pathlib.Path = None

    @contextlib.contextmanager
    def inject(self, course, env):
        self.inbound = pathlib.Path(env["ATTN_EXCHANGE"]) / env["ATTN_COURSE_ID"] / "inbound"
        self.inbound.rename(self.inbound.with_name("inbound-elsewhere"))
        self.inbound.write_text("not a folder")
        yield env

    def repair(self, course):
        self.inbound.unlink()
        self.inbound.with_name("inbound-elsewhere").rename(self.inbound)


class PostgresStopped(Row):
    """The course's PostgreSQL gradebook stops (a restart, a crash) after the first student, and starts again."""
    name, causes, mid_class = "postgres_stopped", ("fault.gradebook_unreachable",), True
    server = None

    def prepare(self, course, env, stack):
        from support.course_tools import ASSIGNMENT, run_nbgrader
        from support.postgres_server import postgres_server

        self.server = stack.enter_context(postgres_server())
        env = dict(env, DB_URL=self.server.url)
        generated = run_nbgrader("generate_assignment", ASSIGNMENT, "--force",
                                 f"--CourseDirectory.db_url={self.server.url}", cwd=course, env=env)
        assert generated.returncode == 0, generated.stderr[-2000:]
        return env

    def stop(self):
        subprocess.run(self.server.ctl("stop", "-m", "immediate"), capture_output=True, timeout=60)

    @contextlib.contextmanager
    def inject(self, course, env):
        with watching(lambda: second_begun(course) and self.server.running() and self.stop()):
            yield env

    def repair(self, course):
        subprocess.run(self.server.ctl("start"), check=True, capture_output=True, timeout=60)


ROWS = (TemplateDiesAtStart(), BubblewrapRefuses(), GraderUnreadable(), GraderRemoved(), DiskFull(), TmpFull(),
        WorkerKilled(), ExchangeUnreadable(), PostgresStopped())
# The rows the real grading service runs (its wiring: WAITING with the cause, the retry, nothing released, the
# submission graded after the repair): one before its first student (the exchange, which only the service reads)
# and one mid-class. Which kind each fault is, the service's decision included: tests/unit/test_faults.py and
# test_service_scheduler.py.
SERVICE = ("exchange_unreadable", "disk_full")


def copy_without_generated(course: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """A copy of a generated course (release and gradebook included), nothing graded yet."""
    shutil.copytree(course, dest, symlinks=True, ignore=shutil.ignore_patterns("autograded", "feedback",
                                                                                 "grading-logs", "grading-service"))
    return dest

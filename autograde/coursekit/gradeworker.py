"""One long-lived grading process: nbgrader's own autograde, set up once, one student at a time.

The worker builds nbgrader's ``AutogradeApp`` once in the course folder, so the course's
``nbgrader_config.py`` is loaded exactly as ``nbgrader autograde`` loads it. For each student it
runs nbgrader's ``Autograde`` converter, i.e. ``nbgrader autograde <assignment> --student <id>
--force``, without paying Python's and nbgrader's start-up again. The one change: the configured
executor (nbgrader's ``Execute``, or the course's output-capping subclass of it) also gets
:class:`~coursekit.warm_execute.WarmExecute`'s next kernel started ahead. Every student still runs
in a kernel of their own.

Its log (nbgrader's, and what kernels print) goes to ``<course>/grading-logs/worker-<k>.log``;
the parent process shows the progress. Ctrl-C in the terminal reaches only the parent, which
stops the workers with SIGTERM: nbgrader then removes the interrupted student's half-written
``autograded/`` folder and the kernel is shut down.
"""
import logging
import os
import resource
import signal
import sys
import time

from nbgrader.apps.autogradeapp import AutogradeApp
from nbgrader.converters import Autograde, NbGraderException
from nbgrader.preprocessors import Execute

from coursekit.progress import Outcome
from coursekit.warm_execute import TIMINGS, WarmExecute, shutdown_spare

__all__ = ["make_app", "grade_student", "run_worker"]

_DB_TROUBLE = "error accessing the nbgrader database"  # nbgrader's words for any OperationalError


class _Errors(logging.Handler):
    """Keeps the ERROR records nbgrader logs while one student is graded."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def make_app(course, assignment: str, db_url: str, warm: bool = True) -> AutogradeApp:
    """nbgrader's autograde application for ``course``, configured as on the command line."""
    os.chdir(course)
    app = AutogradeApp()
    app.initialize([assignment, f"--CourseDirectory.db_url={db_url}"])
    app.coursedir.assignment_id = assignment
    if warm:
        steps = Autograde.class_traits()["autograde_preprocessors"].default()
        configured = app.config.Autograde.get("autograde_preprocessors", steps)
        app.config.Autograde.autograde_preprocessors = [_warm(p) for p in configured]
    return app


def _warm(step):
    """``step`` with kernels started ahead when it executes the notebook (nbgrader's Execute or the
    course's subclass of it, e.g. the output cap's CappedExecute); other steps unchanged."""
    if not (isinstance(step, type) and issubclass(step, Execute)) or issubclass(step, WarmExecute):
        return step
    if step is Execute:
        return WarmExecute
    return type(f"Warm{step.__name__}", (WarmExecute, step), {})


def grade_student(app: AutogradeApp, student: str, retries: int = 1) -> Outcome:
    """Autograde ``student`` with nbgrader's converter; a gradebook error is retried ``retries`` times."""
    errors, started = _Errors(), time.perf_counter()
    app.log.addHandler(errors)
    try:
        for _ in range(retries + 1):
            errors.messages.clear()
            ok = _convert(app, student)
            if ok or not any(_DB_TROUBLE in m for m in errors.messages):
                break
    finally:
        app.log.removeHandler(errors)
    reason = "" if ok else failure_reason(errors.messages)
    return Outcome(student, ok, reason, time.perf_counter() - started)


def _convert(app: AutogradeApp, student: str) -> bool:
    app.coursedir.student_id = student
    converter = Autograde(coursedir=app.coursedir, parent=app)
    converter.force = True  # the scheduler chose this student: graded again even if autograded/ exists
    try:
        converter.start()
    except NbGraderException:
        return False
    except Exception:  # nbgrader lets a few errors escape its own handler (e.g. a bad submitted path)
        app.log.exception("grading %s failed", student)
        return False
    return True


def failure_reason(messages) -> str:
    """One line from nbgrader's error log: the course's own reason, else a traceback's last line."""
    for message in messages:
        if "Not graded automatically" in message:
            return message.split(": ", 1)[-1]
    for message in messages:
        if "Traceback (most recent call last)" in message:
            last = message.strip().splitlines()[-1]
            return f"gradebook unavailable (not graded; the next make grade grades it): {last}" \
                if any(_DB_TROUBLE in m for m in messages) else last
    return next((m for m in messages if m.strip()), "nbgrader reported an error without a message")


def run_worker(index: int, course: str, assignment: str, db_url: str, tasks, results, log_path: str,
               warm: bool = True) -> None:
    """Process body: grade the students taken from ``tasks`` until ``None``; report to ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it sends SIGTERM
    signal.signal(signal.SIGTERM, _interrupt)
    _log_to(log_path)
    try:
        app = make_app(course, assignment, db_url, warm)
        while (student := tasks.get()) is not None:
            results.put(("start", index, student))
            before = _cpu_seconds()
            outcome = grade_student(app, student)
            after = _cpu_seconds()
            outcome.worker, outcome.timings = index, dict(TIMINGS)
            # the kernel stopped after the notebook was reaped by this process: its CPU counts as a child's
            outcome.timings.update(worker_cpu=after[0] - before[0], kernel_cpu=after[1] - before[1])
            results.put(("done", index, outcome))
    except KeyboardInterrupt:
        pass
    finally:
        shutdown_spare()
        results.put(("exit", index, None))


def _cpu_seconds():
    """(CPU seconds of this process, of its reaped children): user + system."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _log_to(path: str) -> None:
    """This process's stdout/stderr (nbgrader's log, kernels' output) into ``path``."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stdout.flush(), sys.stderr.flush()
    os.dup2(fd, 1), os.dup2(fd, 2)
    os.close(fd)

"""One long-lived grading process: nbgrader's own autograde, set up once, one student at a time.

The worker builds nbgrader's ``AutogradeApp`` once in the course folder, so the course's
``nbgrader_config.py`` is loaded exactly as ``nbgrader autograde`` loads it, and grades into the
gradebook :func:`coursekit.gradebook.resolve_gradebook` chose. For each student it runs
nbgrader's ``Autograde`` converter, i.e. ``nbgrader autograde <assignment> --student <id>
--force``, without paying Python's and nbgrader's start-up again. One change: the converter keeps
why a student failed as data (:class:`_Recording`), instead of leaving it in the log. The app is
built with two of the course's speed-ups to nbgrader's own bookkeeping
(:func:`coursekit.plugins.check_schemas_once`, :func:`coursekit.plugins.share_engines`).

Its log (nbgrader's, and what kernels print) goes to ``<course>/grading-logs/worker-<k>.log``;
the parent process shows the progress. Ctrl-C in the terminal reaches only the parent, which
stops the workers with SIGTERM: nbgrader then removes the interrupted student's half-written
``autograded/`` folder and the kernel is shut down.
"""
import ctypes
import gc
import os
import pathlib
import resource
import signal
import sys
import time

import sqlalchemy.exc
from nbgrader.apps.autogradeapp import AutogradeApp
from nbgrader.converters import Autograde, NbGraderException

from attnkit.record import LIMIT

from ..autograded import read_graded_notebook
from ..plugins import check_schemas_once, share_engines
from ..plugins.kernel import TIMINGS
from .progress import StudentResult

__all__ = ["make_app", "grade_student", "run_worker", "terminate_with_parent", "log_to"]

GRADEBOOK_TROUBLE = "gradebook unavailable (not graded; the next make grade grades it)"


class _Recording(Autograde):
    """nbgrader's Autograde that remembers the exception which failed the student (nbgrader only logs it)."""

    error = None

    def init_assignment(self, assignment_id, student_id):  # the gradebook's submission rows are written here
        return self._recorded(super().init_assignment, assignment_id, student_id)

    def convert_single_notebook(self, notebook_filename):
        return self._recorded(super().convert_single_notebook, notebook_filename)

    def _recorded(self, step, *args):
        try:
            return step(*args)
        except BaseException as exc:
            self.error = exc
            raise


def make_app(course, assignment: str, db_url: str) -> AutogradeApp:
    """nbgrader's autograde application for ``course``, configured as on the command line."""
    check_schemas_once()
    share_engines()
    os.chdir(course)  # nbgrader finds nbgrader_config.py in the current folder
    app = AutogradeApp()
    app.initialize([assignment, f"--CourseDirectory.db_url={db_url}"])
    app.coursedir.assignment_id = assignment
    return app


def grade_student(app: AutogradeApp, student: str, retries: int = 1) -> StudentResult:
    """Autograde ``student`` with nbgrader's converter; a gradebook error is retried ``retries`` times."""
    started = time.perf_counter()
    for _ in range(retries + 1):
        reason = _convert(app, student)
        if reason is None or not reason.startswith(GRADEBOOK_TROUBLE):
            break
    result = StudentResult(student, reason is None, reason or "", time.perf_counter() - started)
    if result.ok:
        result.notes = notes(app, student)
    return result


def notes(app: AutogradeApp, student: str) -> list:
    """What the instructor should see about a graded student: test cells changed, sandbox limits hit.

    Read from the autograded notebooks nbgrader just wrote: the sanitizing step's record of changed
    cells (trusted) and the grader's records of cells that went over a limit.
    """
    folder = pathlib.Path(app.coursedir.format_path(app.coursedir.autograded_directory, student,
                                                   app.coursedir.assignment_id))
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        try:
            graded = read_graded_notebook(path)
        except (OSError, ValueError) as exc:
            found.append(f"{path.name} could not be read back: {type(exc).__name__}")
            continue
        found += [f"changed test cell {grade_id} (the released cell was graded)" for grade_id in graded.changed_cells]
        found += [f"{grade_id} over a sandbox limit: {record.reason}" for grade_id, record in graded.records.items()
                  if record.status == LIMIT]
    return found


def _convert(app: AutogradeApp, student: str):
    """None when ``student`` was graded, else why not (one line)."""
    app.coursedir.student_id = student
    converter = _Recording(coursedir=app.coursedir, parent=app)
    converter.force = True  # the scheduler chose this student: graded again even if autograded/ exists
    try:
        converter.start()
    except NbGraderException:
        return failure_reason(converter)
    except Exception as exc:  # nbgrader lets a few errors escape its own handler (e.g. a bad submitted path)
        app.log.exception("grading %s failed", student)
        return f"{type(exc).__name__}: {exc}"
    return None


def failure_reason(converter) -> str:
    """Why the converter failed: the course's recorded reason, else the exception nbgrader caught."""
    failure = getattr(converter.exporter, "failure", None)  # coursekit.plugins.failures.ZeroOnFailureExporter
    if failure is not None:
        return failure.reason
    error = converter.error
    if isinstance(error, sqlalchemy.exc.OperationalError):
        return f"{GRADEBOOK_TROUBLE}: {type(error).__name__}: {str(error).splitlines()[0]}"
    if error is not None:
        return f"{type(error).__name__}: {str(error).strip()[:300]}"
    return "nbgrader stopped before the notebook was converted; see the worker's log"


def run_worker(index: int, course: str, assignment: str, db_url: str, tasks, results, log_path: str) -> None:
    """Process body: grade the students taken from ``tasks`` until ``None``; report to ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it sends SIGTERM
    signal.signal(signal.SIGTERM, _interrupt)
    terminate_with_parent()
    log_to(log_path)
    try:
        app = make_app(course, assignment, db_url)
        while (student := tasks.get()) is not None:
            results.put(("start", index, student))
            before = _cpu_seconds()
            result = grade_student(app, student)
            after = _cpu_seconds()
            result.worker, result.timings = index, dict(TIMINGS)
            # a kernel this process started was reaped by it: its CPU counts as a child's (a forked one's: TIMINGS)
            result.timings.update(worker_cpu=after[0] - before[0],
                                  kernel_cpu=result.timings.get("kernel_cpu", after[1] - before[1]))
            results.put(("done", index, result))
            if not gc.get_freeze_count():  # nbgrader's, SQLAlchemy's and nbconvert's objects, all made by now
                gc.collect()
                gc.freeze()  # the collector no longer walks them for every later student
    except KeyboardInterrupt:
        pass
    finally:
        results.put(("exit", index, None))


def _cpu_seconds():
    """(CPU seconds of this process, of its reaped children): user + system."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def terminate_with_parent() -> None:
    """SIGTERM this worker when ``make grade`` dies without stopping it (SIGKILL, a closed terminal).

    multiprocessing's daemon flag only covers a parent that exits normally. Linux only; elsewhere
    a killed parent leaves the worker to finish its queue.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the call
        os.kill(os.getpid(), signal.SIGTERM)


def log_to(path: str) -> None:
    """This process's stdout/stderr (nbgrader's log, kernels' output) into ``path``."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stdout.flush(), sys.stderr.flush()
    os.dup2(fd, 1), os.dup2(fd, 2)
    os.close(fd)

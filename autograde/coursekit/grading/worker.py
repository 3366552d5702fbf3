"""One long-lived grading process: nbgrader's own autograde, set up once, one student at a time.

The worker builds nbgrader's ``AutogradeApp`` once in the course folder, so the course's
``nbgrader_config.py`` is loaded exactly as ``nbgrader autograde`` loads it, and grades into the
gradebook :func:`coursekit.gradebook.resolve_gradebook` chose. For each student it runs
nbgrader's ``Autograde`` converter, i.e. ``nbgrader autograde <assignment> --student <id>
--force``, without paying Python's and nbgrader's start-up again. Two changes (:class:`_Recording`): the
converter keeps why a student failed as data, instead of leaving it in the log; and it reads the answers of the
autograded copy it replaces before nbgrader removes it, so that a written answer marked before keeps its mark only
if its text is the same (:mod:`coursekit.plugins.saved_grades`). The app is
built with two of the course's speed-ups to nbgrader's own bookkeeping
(:func:`coursekit.upstream.nbgrader.check_schemas_once`, :func:`coursekit.upstream.nbgrader.share_engines`), and
its ``Execute`` set to grade in the course's kernels (:func:`coursekit.kernel.grade_with`, as the course config
sets it for nbgrader's own commands). Where each kernel's time went comes back in the autograded notebook
(:func:`coursekit.autograded.kernel_seconds`).

A student's notebook that cannot be graded is that student's result (0 with the reason); a fault
of the machine (:mod:`coursekit.faults`: the gradebook, the disk, the sandbox) is raised instead,
and nobody is graded by it. :class:`GraderSetup` is what each ``make grade`` worker
(:mod:`.pool`) builds once, after the canary (:mod:`coursekit.canary`) has graded the untouched
release in the same sandbox.
"""
import dataclasses
import functools
import os
import pathlib
import resource
import time

from nbgrader.apps.autogradeapp import AutogradeApp
from nbgrader.converters import Autograde, NbGraderException

from ..language import WORDS
from ..autograded import ANSWERS_BEFORE, answers_in, read_graded_notebook
from ..canary import canary_fault, measure_release
from ..faults import InfrastructureFault, evident_fault
from ..gradebook import open_gradebook
from ..kernel import grade_with
from ..late import LatePolicy, settle
from ..record import LIMIT
from ..sandbox.forkserver import template_died
from ..settings import course_config, course_settings
from ..upstream.nbgrader import check_schemas_once, share_engines
from .progress import StudentResult

__all__ = ["make_app", "grade_student", "GraderSetup", "timed_grading"]


class _Recording(Autograde):
    """nbgrader's Autograde that remembers the exception which failed the student (nbgrader only logs it), and hands
    each notebook's grading the answers of the autograded copy it replaces."""

    error = None
    answers_before: dict = {}  # {notebook name: answers_in(its autograded copy)}, read before nbgrader removes it

    def init_destination(self, assignment_id, student_id):
        folder = pathlib.Path(self.coursedir.format_path(self.coursedir.autograded_directory, student_id,
                                                         assignment_id))
        self.answers_before = {path.stem: answers_in(path) for path in sorted(folder.glob("*.ipynb"))}
        return super().init_destination(assignment_id, student_id)

    def init_single_notebook_resources(self, notebook_filename):
        resources = super().init_single_notebook_resources(notebook_filename)
        before = self.answers_before.get(resources["nbgrader"]["notebook"])
        if before is not None:
            resources["nbgrader"][ANSWERS_BEFORE] = before
        return resources

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
    grade_with(app.config)  # every notebook runs in a grading kernel (coursekit.kernel), the grader beside it
    return app


def grade_student(app: AutogradeApp, student: str, retries: int = 1) -> StudentResult:
    """Autograde ``student`` with nbgrader's converter.

    A fault of the machine (:class:`coursekit.faults.InfrastructureFault`) is raised, never returned as
    the student's result; one that may pass (the gradebook busy or unreachable) is tried again
    ``retries`` times first.
    """
    started = time.perf_counter()
    for attempt in range(retries + 1):
        try:
            reason = _convert(app, student)
            break
        except InfrastructureFault as fault:
            if attempt == retries or fault.cause != "fault.gradebook_unreachable":
                raise
    result = StudentResult(student, reason is None, reason or "", time.perf_counter() - started)
    if result.ok:
        result.notes, result.timings = notes(app, student)
        settle_penalties(app, student)
    return result


def _penalises(policy: LatePolicy) -> bool:
    return policy.penalty_method != "none" or bool(policy.late_days)


def settle_penalties(app: AutogradeApp, student: str) -> None:
    """Every late penalty of ``student`` written again by the course's late policy as its config says now
    (:func:`coursekit.late.settle`): a long-lived worker (the grading service's) keeps the config it started with,
    and with late days this submission may change what the student's other work costs."""
    now = course_config(app.coursedir.root)
    if _penalises(LatePolicy(config=app.config)) or _penalises(LatePolicy(config=now)):
        with open_gradebook(app.coursedir.db_url, app.coursedir.course_id) as gradebook:
            settle(gradebook, student, now)


def notes(app: AutogradeApp, student: str) -> tuple:
    """(what the instructor should see about a graded student: test cells changed or tampered with, sandbox limits
    hit; where its kernels' time went).

    Read from the autograded notebooks nbgrader just wrote: the sanitizing step's record of changed
    cells (trusted), the grader's records of cells that went over a limit and the kernel's timings.
    """
    folder = pathlib.Path(app.coursedir.format_path(app.coursedir.autograded_directory, student,
                                                   app.coursedir.assignment_id))
    lang, found, seconds = course_settings(app.coursedir.root).language, [], {}  # the instructor's words: the course's
    for path in sorted(folder.glob("*.ipynb")):
        try:
            graded = read_graded_notebook(path)
        except (OSError, ValueError) as exc:
            found.append(WORDS.say(lang, "grading.unreadable", name=path.name, error=type(exc).__name__))
            continue
        seconds = {key: seconds.get(key, 0.0) + value for key, value in graded.kernel_seconds.items()}
        found += [WORDS.say(lang, "grading.changed", grade_id=grade_id) for grade_id in graded.changed_cells]
        if graded.tampered_cells:
            found.append(WORDS.say(lang, "grading.tampered", grade_ids=", ".join(graded.tampered_cells)))
        found += [WORDS.say(lang, "grading.remark", grade_id=grade_id) for grade_id in graded.marks_to_redo]
        found += [WORDS.say(lang, "grading.limit", grade_id=grade_id, reason=record.reason)  # as its student read it
                  for grade_id, record in graded.records.items() if record.status == LIMIT]
    return found, seconds


def _convert(app: AutogradeApp, student: str):
    """None when ``student`` was graded, else why not (one line); the machine's faults are raised."""
    app.coursedir.student_id = student
    converter = _Recording(coursedir=app.coursedir, parent=app)
    converter.force = True  # the scheduler chose this student: graded again even if autograded/ exists
    try:
        converter.start()
    except NbGraderException:
        error = converter.error
        fault = evident_fault(error, app.coursedir.root, template_died()) if error is not None else None
        if fault is not None:
            raise fault from converter.error
        return failure_reason(converter)
    except InfrastructureFault:
        raise
    except Exception as exc:  # nbgrader lets a few errors escape its own handler (e.g. a bad submitted path)
        fault = evident_fault(exc, app.coursedir.root, template_died())
        if fault is not None:
            raise fault from exc
        app.log.exception("grading %s failed", student)
        return f"{type(exc).__name__}: {exc}"
    return None


def failure_reason(converter) -> str:
    """Why the converter failed: the course's recorded reason, else the exception nbgrader caught."""
    failure = getattr(converter.exporter, "failure", None)  # coursekit.plugins.failures.ZeroOnFailureExporter
    if failure is not None:
        return failure.reason
    error = converter.error
    if error is not None:
        return f"{type(error).__name__}: {str(error).strip()[:300]}"
    return "nbgrader stopped before the notebook was converted; see the worker's log"


@dataclasses.dataclass(frozen=True)
class GraderSetup:
    """What a ``make grade`` worker builds once (:func:`coursekit.grading.pool.serve` calls it): nbgrader's
    app for the course, tried on the untouched release first (the canary: the sandbox and the kernel
    template start, the figure cache is drawn), then the release graded again, warm, and timed (what one
    student's time is derived from, :func:`coursekit.canary.student_budget`); then a handler grading one
    student per job."""
    course: str
    assignment: str
    db_url: str

    def __call__(self, note):
        app = make_app(self.course, self.assignment, self.db_url)
        fault = canary_fault(self.course, self.assignment, app.config)
        if fault is not None:
            raise fault
        measure_release(self.course, self.assignment, app.config)
        return functools.partial(timed_grading, app)


def timed_grading(app: AutogradeApp, student: str) -> StudentResult:
    """:func:`grade_student`, with where its time went (kernel ready, cells, CPU of the worker and the kernel)."""
    before = _cpu_seconds()
    result = grade_student(app, student)
    after = _cpu_seconds()
    # a kernel this process started was reaped by it: its CPU counts as a child's (a forked one's: the notebook says)
    result.timings.update(worker_cpu=after[0] - before[0],
                          kernel_cpu=result.timings.get("kernel_cpu", after[1] - before[1]))
    return result


def _cpu_seconds():
    """(CPU seconds of this process, of its reaped children): user + system."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime

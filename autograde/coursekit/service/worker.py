"""What one grading process of the service does: a student's job at a time, on nbgrader's app built once.

Each worker of the service is a process of :mod:`coursekit.grading.pool`, as ``make grade``'s
are; :class:`ServiceSetup` is what it builds once: nbgrader's ``AutogradeApp`` per assignment
(:func:`coursekit.grading.worker.make_app`), each released one tried first on its untouched release (the canary,
:mod:`coursekit.canary`), so the grading kernels' pre-imported template is warm before the first
submission (a release that fails there is told, :class:`CannotGrade`, and tried again before each job). An
assignment released while the service runs is tried when the scheduler sees the release (:class:`Warm`).
Each job (:func:`run_job`), under the course's shared grading lock (:mod:`coursekit.grading.lock`):

1. ``grade``: collect the student's newest submission and autograde it with
   :func:`coursekit.grading.worker.grade_student` — the course's one grading path — and tell the
   scheduler the result at once (:class:`Graded`); a submission refused as it is collected
   (:mod:`coursekit.inbound`: it changed since it was listed) is told as such, and nothing more is done;
2. unless the job says the feedback waits: generate and release that student's feedback, or,
   for a submission that could not be graded, the page saying so (:mod:`.notice`).

A fault of the machine on any step — the exchange, the gradebook, the sandbox, nbgrader's feedback
machinery — is raised as :class:`~coursekit.faults.InfrastructureFault`: the scheduler keeps that
submission waiting and tries again; nothing is released for it.
"""
import contextlib
import dataclasses
import pathlib
import time
import traceback

from ..canary import canary_fault
from ..faults import InfrastructureFault, evident_fault
from ..grading import lock
from ..grading.worker import grade_student, make_app
from ..inbound import Refused
from ..language import marked
from ..sandbox.forkserver import template_died
from . import steps
from .fair_queue import GRADE

__all__ = ["ServiceSetup", "Graded", "CannotGrade", "JobOutcome", "Warm", "released", "run_job"]


@dataclasses.dataclass(frozen=True)
class Graded:
    """Told as soon as a job's grading is done, before its feedback: the submission's timestamp, the result."""
    timestamp: str
    result: dict  # {"ok", "score", "max_score", "reason", "notes", "seconds"}; "refused": True when nothing was collected


@dataclasses.dataclass(frozen=True)
class CannotGrade:
    """Told by a worker whose canary failed as it set up: the machine's fault (its ids and values, said by the
    scheduler in the course's language). The worker stays, and tries the release again before each job."""
    fault: InfrastructureFault


@dataclasses.dataclass(frozen=True)
class Warm:
    """A job of no student: try ``assignment``'s release (the canary) now, as it was just released, so that its
    first submission waits no longer than its tenth. A failure is the machine's fault, told as any job's."""
    assignment: str


def released(course, assignment: str) -> tuple:
    """What ``course``'s release of ``assignment`` is now (its notebooks' names and times), ``()`` before there is
    one: an assignment not released yet is nothing to try, and no fault."""
    folder = pathlib.Path(course) / "release" / assignment
    return tuple((path.name, path.stat().st_mtime_ns) for path in sorted(folder.glob("*.ipynb")))


@dataclasses.dataclass(frozen=True)
class JobOutcome:
    timestamp: str    # the submission the job did (collect may find a newer one than the job named)
    released: bool    # its feedback (or "not graded" page) is fetchable now
    timings: dict     # seconds of each step (collect, grade, feedback, release)


@dataclasses.dataclass(frozen=True)
class ServiceSetup:
    """Builds a worker's handler (:func:`coursekit.grading.pool.serve` calls it)."""
    course: str
    db_url: str
    assignments: tuple

    def __call__(self, note):
        handler = _Handler(self.course, self.db_url, note)
        for assignment in [a for a in self.assignments if released(self.course, a)]:  # before the first submission
            try:
                handler.app(assignment)
            except InfrastructureFault as fault:
                note(CannotGrade(fault))
        return handler


class _Handler:
    def __init__(self, course: str, db_url: str, note):
        self.course, self.db_url, self.note = course, db_url, note
        self.apps, self.failing = {}, {}  # assignment -> why its canary failed (tried again before each job)

    def app(self, assignment: str):
        """The assignment's app, once its release grades here; else the fault, raised."""
        if assignment not in self.apps:
            self.apps[assignment] = make_app(self.course, assignment, self.db_url)
            self.failing[assignment] = "not tried"
        if self.failing[assignment]:
            self.failing[assignment] = canary_fault(self.course, assignment, self.apps[assignment].config)
            if self.failing[assignment]:
                raise self.failing[assignment]
        return self.apps[assignment]

    def __call__(self, job) -> JobOutcome:
        if isinstance(job, Warm):  # released since this worker set up: its canary, ahead of the first submission
            self.failing[job.assignment] = "released again"
            self.app(job.assignment)
            return JobOutcome("", False, {})
        with lock.shared(self.course):
            return run_job(self.app(job.assignment), job, self.note)


def run_job(app, job, note) -> JobOutcome:
    """Do ``job`` (a :class:`.fair_queue.Job` with ``release`` and ``notice``); ``note(Graded(…))`` once graded.

    The machine's faults are raised (:class:`~coursekit.faults.InfrastructureFault`); a student's notebook that
    cannot be graded is a result (``ok`` false, its reason) whose "not graded" page is released.
    """
    student, timings = job.student, {}
    timestamp, notice = job.timestamp, job.notice
    clock = _Stopwatch(timings)
    try:
        if job.kind == GRADE:
            graded = _grade(app, job, note, clock)
            if graded is None:  # refused as it was collected: nothing to grade, nothing to release
                return JobOutcome(job.timestamp, False, timings)
            timestamp, notice = graded
        if job.release:
            with clock("feedback"):
                if notice:
                    steps.write_notice(app, student, notice)
                else:
                    steps.generate_feedback(app, student)
            with clock("release"):
                steps.release_feedback(app, student)
    except InfrastructureFault:
        raise
    except steps.StepFailed as error:  # nbgrader's exchange or converters, for reasons of the course
        raise InfrastructureFault(marked("fault.said"), marked("fault.fix_step"), said=str(error)) from error
    except Exception as error:  # the course's code or nbgrader: never the student's (that is `reason`)
        app.log.error("service job %s failed:\n%s", job, traceback.format_exc())
        raise evident_fault(error, app.coursedir.root, template_died()) or InfrastructureFault(
            marked("fault.error"), marked("fault.fix_service_log"), kind=type(error).__name__, error=str(error)) from error
    return JobOutcome(timestamp, job.release, timings)


def _grade(app, job, note, clock):
    """Collect and autograde ``job``'s student, ``note`` the result; (the submission's timestamp, the reason it
    could not be graded or ""), or None when its folder was refused as it was collected (:mod:`coursekit.inbound`)."""
    with clock("collect"):
        try:
            timestamp = steps.collect(app, job.student, job.folder)
        except Refused as refused:
            note(Graded(job.timestamp, {"ok": False, "refused": True, "score": 0, "max_score": 0,
                                        "reason": str(refused.refusal), "notes": [], "seconds": 0}))
            return None
    with clock("grade"):
        graded = grade_student(app, job.student)
        points, total = steps.score(app, job.student)
    note(Graded(timestamp, {"ok": graded.ok, "score": points, "max_score": total, "reason": graded.reason,
                            "notes": graded.notes, "seconds": round(graded.seconds, 2)}))
    return timestamp, "" if graded.ok else graded.reason


class _Stopwatch:
    """``with clock("step"):`` adds the block's wall seconds to ``timings["step"]``."""

    def __init__(self, timings: dict):
        self.timings = timings

    @contextlib.contextmanager
    def __call__(self, step: str):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[step] = round(time.perf_counter() - started, 2)

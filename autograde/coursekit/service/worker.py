"""One grading process of the service: a student's job at a time, on nbgrader's app built once.

The process builds nbgrader's ``AutogradeApp`` for the course once per assignment
(:func:`coursekit.grading.worker.make_app`, as ``make grade``'s workers do), so the grading
kernels' pre-imported template stays warm between submissions. Each job, under the course's
shared grading lock (:mod:`coursekit.grading.lock`):

1. ``grade``: collect the student's newest submission and autograde it with
   :func:`coursekit.grading.worker.grade_student` — the course's one grading path;
2. unless the job says the feedback waits: generate and release that student's feedback, or,
   for a submission that could not be graded, the page saying so (:mod:`.notice`).

It tells the scheduler what happened as plain tuples on ``results``: ``("ready", k, None)``, ``("start", k, key)``,
``("graded", k, key, timestamp, result)``, ``("done", k, key, outcome)``, ``("exit", k, None)``.
It dies with the scheduler (``PR_SET_PDEATHSIG``): nbgrader removes a half-written autograded
folder, and the journal makes the restarted service do that submission again.
"""
import contextlib
import os
import signal
import tempfile
import time
import traceback

from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from traitlets.utils.importstring import import_item

from ..grading import lock
from ..grading.worker import GRADEBOOK_TROUBLE, grade_student, log_to, make_app, terminate_with_parent
from . import steps
from .fair_queue import GRADE

__all__ = ["serve", "run_job"]


def serve(index: int, course: str, db_url: str, assignments, jobs, results, log_path: str) -> None:
    """Process body: run the jobs taken from ``jobs`` until ``None``; report to ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the scheduler decides; it sends SIGTERM
    signal.signal(signal.SIGTERM, _interrupt)
    terminate_with_parent()
    log_to(log_path)
    apps = {}
    try:
        for assignment in assignments:  # before the first submission arrives, not after
            apps[assignment] = ready_app(course, assignment, db_url)
        results.put(("ready", index, None))
        while (job := jobs.get()) is not None:
            results.put(("start", index, job.key))
            if job.assignment not in apps:
                apps[job.assignment] = ready_app(course, job.assignment, db_url)
            with lock.shared(course):
                outcome = run_job(apps[job.assignment], job, lambda *msg: results.put((msg[0], index, *msg[1:])))
            results.put(("done", index, job.key, outcome))
    except KeyboardInterrupt:
        pass
    finally:
        results.put(("exit", index, None))


def ready_app(course: str, assignment: str, db_url: str):
    """nbgrader's autograde app for ``assignment``, with one grading kernel started and stopped.

    The first kernel of a process pays for the kernel template (the pre-imported, sandboxed parent
    every later kernel is forked from) and for drawing the figure cache: here, at start-up, rather
    than in the first student's wait.
    """
    app = make_app(course, assignment, db_url)
    try:
        run_sync(_one_kernel)(app)
    except Exception:  # the first student's grading says what is wrong, with nbgrader's own words
        app.log.exception("warming up a grading kernel failed")
    return app


async def _one_kernel(app) -> None:
    manager = app.config.Execute.get("kernel_manager_class", AsyncKernelManager)
    if isinstance(manager, str):
        manager = import_item(manager)
    with tempfile.TemporaryDirectory(prefix="attn-warm-") as folder:
        km = manager(config=app.config, kernel_name="python3")
        await km.start_kernel(cwd=folder, env=dict(os.environ, NBGRADER_EXECUTION="autograde"))
        await km.shutdown_kernel(now=True)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def run_job(app, job, report) -> dict:
    """Do ``job`` (a :class:`.fair_queue.Job` with ``release`` and ``notice``); the outcome as a dict.

    ``timings``: seconds of each step (collect, grade, feedback, release), for the log and the benchmark.
    """
    student, timings = job.student, {}
    timestamp, notice = job.timestamp, job.notice
    clock = _Stopwatch(timings)
    try:
        if job.kind == GRADE:
            with clock("collect"):
                timestamp = steps.collect(app, student)
            with clock("grade"):
                graded = grade_student(app, student)
                if graded.reason.startswith(GRADEBOOK_TROUBLE):  # the course's trouble, not the student's: retried
                    raise steps.StepFailed(graded.reason)
                points, total = steps.score(app, student)
            result = {"ok": graded.ok, "score": points, "max_score": total, "reason": graded.reason,
                      "notes": graded.notes, "seconds": round(graded.seconds, 2)}
            report("graded", job.key, timestamp, result)
            notice = "" if graded.ok else graded.reason
        if job.release:
            with clock("feedback"):
                if notice:
                    steps.write_notice(app, student, notice)
                else:
                    steps.generate_feedback(app, student)
            with clock("release"):
                steps.release_feedback(app, student)
    except steps.StepFailed as error:
        return {"timestamp": timestamp, "released": False, "error": str(error), "timings": timings}
    except Exception as error:  # the course's code or nbgrader: never the student's (that is `reason`)
        app.log.error("service job %s failed:\n%s", job, traceback.format_exc())
        return {"timestamp": timestamp, "released": False, "error": f"{type(error).__name__}: {error}",
                "timings": timings}
    return {"timestamp": timestamp, "released": job.release, "error": "", "timings": timings}


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

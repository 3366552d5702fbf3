"""``make grade``: autograde a whole class with several long-lived nbgrader workers.

    cd <course> && python -m coursekit.grading ch04_attention --workers 2 [--db-url URL]
                                                [--shard i/n] [--force]

Grades the students of ``submitted/`` that are not graded yet (:mod:`.selection`), each in a
fresh kernel by nbgrader's own autograde machinery (:mod:`.worker`), ``--workers`` students at a
time (default :func:`default_workers`) in the processes of :mod:`.pool`, into the gradebook
:func:`coursekit.gradebook.resolve_gradebook` picks; prints one line per student with the failures
so far and an ETA, then the failed students with nbgrader's reasons.

A fault of the machine (:mod:`coursekit.faults`) is nobody's grade: found before the class (the
checks of :func:`preflight`, then each worker's canary), nobody is graded; found on a student, the
workers are stopped, the students graded before it keep their grades, and the summary says what to
fix; the next run grades everyone else, and nobody twice. Exit status: 0; 1 when a student's notebook
could not be graded (as nbgrader's); 2 after a fault of the machine; 130 after Ctrl-C (workers and
kernels stopped, no half-written autograded folder).
"""
import argparse
import dataclasses
import json
import os
import pathlib
import shutil
import signal
import sys
import tempfile

import sqlalchemy.exc
from nbgrader.api import MissingEntry

from ..assignments import assignment_of, world_of
from ..faults import InfrastructureFault, evident_fault, grader_unreadable
from ..gradebook import alembic_on_path, describe, open_gradebook, resolve_gradebook
from ..paths import default_assignment, find_course
from ..plugins.kernel import UNSANDBOXED
from ..sandbox import missing_tool, private_python
from ..sandbox.forkserver import leftovers_said, remove_leftovers
from ..settings import course_config, course_settings
from . import lock
from .pool import LOGS, Done, Faulted, WorkerPool
from .progress import Progress
from .selection import graded_students, parse_shard, submitted_students, to_grade
from .worker import GraderSetup

__all__ = ["main", "grade_class", "default_workers", "preflight"]

FAULT_STATUS = 2


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        shard = parse_shard(args.shard)
    except ValueError as error:
        parser.error(str(error))
    if args.workers < 1:
        parser.error(f"WORKERS must be a positive number of processes, got {args.workers}")
    try:
        course = find_course(args.course)
        args.assignment = args.assignment or default_assignment(course)
    except (FileNotFoundError, ValueError) as error:
        parser.error(str(error))
    alembic_on_path()  # for the gradebook opened here and in the workers
    sandboxed = course_settings(course).sandbox
    url = resolve_gradebook(course, args.db_url)
    try:
        preflight(course, args.assignment, sandboxed)
        students = _select(course, args.assignment, url, shard, args.force)
    except InfrastructureFault as fault:
        print(f"make grade: {fault}", file=sys.stderr)
        return FAULT_STATUS
    if not students:
        print("Nothing to grade: every submitted student of this shard is graded (FORCE=1 grades them again).")
        return 0
    # Ctrl-C, or SIGTERM (a Kubernetes pod being stopped): the same clean stop, even when started in the background
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    in_shard = f" (shard {shard})" if shard.count > 1 else ""
    print(f"Grading {len(students)} students{in_shard} with {args.workers} workers into {describe(url)}, "
          f"{'each kernel in a sandbox' if sandboxed else 'WITHOUT A SANDBOX'}; nbgrader's logs: {course / LOGS}/",
          flush=True)
    if not sandboxed:
        print(f"WARNING: {UNSANDBOXED}", flush=True)
    # the grading service (coursekit.service) takes no new job meanwhile; the one in progress ends first
    with lock.exclusive(course, "make grade", notify=lambda text: print(f"make grade: {text}", flush=True)):
        progress, stopped = grade_class(course, args.assignment, students, url, args.workers)
    print(progress.summary(stopped), flush=True)
    _save_results(course / LOGS / "last-run.json", progress)
    if stopped:
        return 130 if stopped == Progress.INTERRUPTED else FAULT_STATUS
    return 1 if progress.failed else 0


def preflight(course: pathlib.Path, assignment: str, sandboxed: bool) -> None:
    """Faults of the machine found before anyone is graded, each raised as an :class:`InfrastructureFault`:
    no sandbox, an interpreter the sandbox cannot use, a grader the kernels cannot read, a course folder
    that cannot be written."""
    config = course_config(course)
    problem = (missing_tool() or private_python(world_of(config).folders)) if sandboxed else ""
    if problem:
        raise InfrastructureFault(problem, "Then run make grade again.")
    for line in leftovers_said(remove_leftovers()):
        print(f"make grade: {line}", flush=True)
    grader = assignment_of(assignment, config).grader
    fault = grader_unreadable(pathlib.Path(grader).parent, os.geteuid() == 0) if sandboxed and grader else None
    if fault is not None:
        raise fault
    try:
        (course / "autograded").mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=course / "autograded", prefix=".write-test-"):
            pass
    except OSError as error:
        raise evident_fault(error, course) or InfrastructureFault(f"the course folder cannot be written ({error})",
                                                                  "Fix it, then run make grade again.") from error


def _save_results(path: pathlib.Path, progress: Progress) -> None:
    """Per student: ok, reason, seconds, where they went (benchmarks/bench_class.py reads this)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([dataclasses.asdict(r) for r in progress.results], indent=1), encoding="utf-8")


def default_workers() -> int:
    """One more worker than cores: a worker and its kernel take turns (the worker waits on the cells, the
    kernel on the worker's bookkeeping), so one per core leaves the cores idle part of the time. Measured
    (benchmarks/bench_class.py's machine, 300 students, 2 cores): 3 workers 91 s, 2 workers 106 s."""
    return (os.cpu_count() or 1) + 1


def _parser():
    parser = argparse.ArgumentParser(prog="make grade", description=__doc__.split("\n\n")[0])
    parser.add_argument("assignment", nargs="?", default="", help="the assignment (default: $ASSIGNMENT, else the "
                                                                   "course's only one)")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="nbgrader workers at once (default: one more than the cores, %(default)s here)")
    parser.add_argument("--db-url", default="", help="gradebook URL (default: DB_URL, the course config, "
                                                     "sqlite:///<course>/gradebook.db)")
    parser.add_argument("--shard", default="", help="i/n: grade only shard i (0-based) of n")
    parser.add_argument("--force", action="store_true", help="grade again students already graded")
    parser.add_argument("--course", default=None, help="the course folder (default: the current one when it "
                                                       "holds nbgrader_config.py, else the repository's autograde/)")
    return parser


def _select(course, assignment, url, shard, force) -> list:
    """The students to grade; the gradebook is opened (and created) once, before any worker."""
    submitted = submitted_students(course, assignment)
    if not submitted:
        sys.exit(f"No submissions in {course / 'submitted'}/<student>/{assignment}/: "
                 f"collect them first (nbgrader collect {assignment})")
    try:
        with open_gradebook(url, course_settings(course).course_id) as gradebook:
            in_gradebook = {s.student.id for s in gradebook.find_assignment(assignment).submissions}
    except MissingEntry:
        sys.exit(f"{assignment} is not in the gradebook {describe(url)}: "
                 f"run `nbgrader generate_assignment {assignment}` in {course} first")
    except sqlalchemy.exc.SQLAlchemyError as error:
        raise evident_fault(error, course) or InfrastructureFault(f"the gradebook {describe(url)} cannot be read "
                                                                  f"({error})", "Check it, then run make grade again.")
    done = graded_students(course, assignment, submitted, in_gradebook)
    return to_grade(submitted, done.__contains__, shard, force=force)


def grade_class(course, assignment, students, url, workers, show=print):
    """Grade ``students`` with ``workers`` processes; ``(Progress, why it stopped early: "" or a Progress.* or the
    machine's fault)``."""
    pool = WorkerPool(GraderSetup(str(course), assignment, url), max(1, min(workers, len(students))),
                      pathlib.Path(course) / LOGS, "worker")
    progress, todo, busy = Progress(len(students)), list(students), {}
    try:
        while todo or busy:
            for index in pool.idle()[:len(todo)]:
                busy[index] = todo.pop(0)
                pool.send(index, busy[index])
            message = pool.get(timeout=1.0)
            if isinstance(message, Done):
                busy.pop(message.worker, None)
                pool.finished(message.worker)
                show(progress.record(dataclasses.replace(message.outcome, worker=message.worker)), flush=True)
            elif isinstance(message, Faulted):
                return progress, message.fault
            elif message is None and (died := pool.dead(restart=False)):
                for index, _, _ in died:  # killed mid-student: what nbgrader would remove on any other failure
                    if index in busy:
                        shutil.rmtree(pathlib.Path(course) / "autograded" / busy[index] / assignment,
                                      ignore_errors=True)
                return progress, _killed(died, busy)
        return progress, ""
    except KeyboardInterrupt:
        show("Ctrl-C: stopping the workers and their kernels …", flush=True)
        return progress, Progress.INTERRUPTED
    finally:
        pool.stop()


def _killed(died, busy) -> str:
    """The fault of workers that died (killed: SIGKILL, the out-of-memory killer), as one line."""
    index, _, code = died[0]
    what = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
    student = busy.get(index)
    during = f"while it graded {student} (not graded, no grade written)" if student else "before it graded anyone"
    return str(InfrastructureFault(f"grading worker {index} was killed ({what}) {during}",
                                   "See the system log (out of memory?), then run make grade again."))


if __name__ == "__main__":
    sys.exit(main())

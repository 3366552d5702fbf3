"""``make grade``: autograde a whole class with several long-lived nbgrader workers.

    cd <course> && python -m coursekit.grading ch04_attention --workers 2 [--db-url URL]
                                                [--shard i/n] [--force]

Grades the students of ``submitted/`` that are not graded yet (:mod:`.selection`), each in a
fresh kernel by nbgrader's own autograde machinery (:mod:`.worker`), ``--workers`` students at a
time (default :func:`default_workers`), into the gradebook :func:`coursekit.gradebook.resolve_gradebook`
picks; prints one line per student with the failures so far and an ETA, then the failed students
with nbgrader's reasons. Exit status as nbgrader's: 0, or 1 when a student
failed; 130 after Ctrl-C (workers and kernels stopped, no half-written autograded folder).
"""
import argparse
import dataclasses
import json
import multiprocessing
import os
import pathlib
import queue
import signal
import sys

from nbgrader.api import MissingEntry

from ..gradebook import alembic_on_path, describe, open_gradebook, resolve_gradebook
from ..paths import ASSIGNMENT, find_course
from ..plugins.kernel import UNSANDBOXED
from ..sandbox import missing_tool
from ..settings import course_settings
from . import lock
from .progress import Progress, StudentResult
from .selection import graded_students, parse_shard, submitted_students, to_grade
from .worker import run_worker

__all__ = ["main", "grade_class", "default_workers"]

LOGS = "grading-logs"
STOP_SECONDS = 30  # after Ctrl-C: how long workers get to stop their kernels before being killed


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
    except FileNotFoundError as error:
        parser.error(str(error))
    alembic_on_path()  # for the gradebook opened here and in the workers
    sandboxed = course_settings(course).sandbox
    problem = missing_tool() if sandboxed else ""
    if problem:
        print(f"make grade: {problem}", file=sys.stderr)
        return 2
    url = resolve_gradebook(course, args.db_url)
    students = _select(course, args.assignment, url, shard, args.force)
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
        progress, interrupted = grade_class(course, args.assignment, students, url, args.workers)
    print(progress.summary(interrupted), flush=True)
    _save_results(course / LOGS / "last-run.json", progress)
    return 130 if interrupted else (1 if progress.failed else 0)


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
    parser.add_argument("assignment", nargs="?", default=ASSIGNMENT)
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
    with open_gradebook(url, course_settings(course).course_id) as gradebook:
        try:
            in_gradebook = {s.student.id for s in gradebook.find_assignment(assignment).submissions}
        except MissingEntry:
            sys.exit(f"{assignment} is not in the gradebook {describe(url)}: "
                     f"run `nbgrader generate_assignment {assignment}` in {course} first")
    done = graded_students(course, assignment, submitted, in_gradebook)
    return to_grade(submitted, done.__contains__, shard, force=force)


def grade_class(course, assignment, students, url, workers, show=print):
    """Grade ``students`` with ``workers`` processes; ``(Progress, interrupted)``."""
    context = multiprocessing.get_context("spawn")  # clean interpreters: nothing inherited but sys.path
    tasks, results = context.Queue(), context.Queue()
    for student in students:
        tasks.put(student)
    count = max(1, min(workers, len(students)))
    for _ in range(count):
        tasks.put(None)
    logs = pathlib.Path(course) / LOGS
    procs = [context.Process(target=run_worker, name=f"grade-worker-{k}", daemon=True,
                             args=(k, str(course), assignment, url, tasks, results, str(logs / f"worker-{k}.log")))
             for k in range(count)]
    for proc in procs:
        proc.start()
    progress = Progress(len(students))
    try:
        _collect(procs, results, progress, show)
        return progress, False
    except KeyboardInterrupt:
        show("Ctrl-C: stopping the workers and their kernels …", flush=True)
        _stop(procs)
        return progress, True


def _collect(procs, results, progress, show):
    """Show each worker report until every worker has exited; a worker that dies fails its student."""
    busy, running = {}, set(range(len(procs)))
    while running:
        try:
            kind, index, payload = results.get(timeout=1.0)
        except queue.Empty:
            for index in [k for k in running if not procs[k].is_alive()]:
                running.discard(index)
                if index in busy:
                    reason = f"the grading worker died (exit code {procs[index].exitcode}); see its log"
                    show(progress.record(StudentResult(busy.pop(index), False, reason, worker=index)), flush=True)
            continue
        if kind == "start":
            busy[index] = payload
        elif kind == "done":
            busy.pop(index, None)
            show(progress.record(payload), flush=True)
        else:
            running.discard(index)
    for proc in procs:
        proc.join()


def _stop(procs):
    """SIGTERM (nbgrader cleans up the current student, the kernels are shut down), then SIGKILL."""
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    try:
        for proc in procs:
            proc.join(STOP_SECONDS)
    except KeyboardInterrupt:
        pass
    for proc in procs:
        if proc.is_alive():
            proc.kill()  # its kernels notice their parent is gone and exit (ipykernel's parent poller)
            proc.join()


if __name__ == "__main__":
    sys.exit(main())

"""``make grade``: autograde a whole class with several long-lived nbgrader workers.

    cd <course> && python -m coursekit.grading [NAME] --workers 2 [--db-url URL] [--shard i/n] [--force]

Grades the students of ``submitted/`` that are not graded yet (:mod:`.selection`), each in a
fresh kernel by nbgrader's own autograde machinery (:mod:`.worker`), ``--workers`` students at a
time (default :func:`default_workers`) in the processes of :mod:`.pool`, into the gradebook
:func:`coursekit.gradebook.resolve_gradebook` picks; prints one line per student with the failures
so far and an ETA, then the failed students with nbgrader's reasons, in the course's language
(``c.CourseKit.language``: the course's catalogue, ``grading.*``). Without an assignment (nor ``$ASSIGNMENT``) it
grades the course's only one, or each of its editions that has submissions (``ch04_attention``, then
``ch04_attention_en``: :func:`coursekit.assignments.default_assignments`), one after the other.

A fault of the machine (:mod:`coursekit.faults`) is nobody's grade: found before the class (the
checks of :func:`preflight`, then each worker's canary), nobody is graded; found on a student, the
workers are stopped, the students graded before it keep their grades, and the summary says what to
fix; the next run grades everyone else, and nobody twice. A student whose grading takes longer than one student's
time (``c.CourseKit.student_seconds``, else derived from the release's grading time the workers measure:
:func:`coursekit.canary.student_budget`) is stopped there, scores 0 with the reason and is named in the summary.
Exit status
(:data:`STATUS`): 0 every student graded; 1 some students' notebooks could not be graded (their fault:
each scored 0 with the reason, the class graded); 3 a fault of the machine (nobody's grade; the line
says what to fix); 2 it could not start (bad arguments, nothing submitted, the assignment not generated); 130
after Ctrl-C (workers and kernels stopped, no half-written autograded folder).
Through ``make grade`` (autograde/Makefile) the students' 1 is 0, and the machine's 3 and Ctrl-C are make's 2.
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
import time

import sqlalchemy.exc
from nbgrader.api import MissingEntry

from ..language import WORDS, marked
from ..assignments import assignment_of, default_assignments, world_of
from ..faults import CourseFault, InfrastructureFault, evident_fault, grader_unreadable
from ..gradebook import alembic_on_path, describe, not_graded_reason, open_gradebook, resolve_gradebook, zero_submission
from ..grades import grades_of
from ..late import late_policy
from ..lms import outbox as lms_outbox
from ..paths import add_course_option, find_course, usage_errors
from ..sandbox import cgroups, missing_tool, private_python
from ..sandbox.forkserver import leftovers_said, remove_leftovers
from ..canary import Budget, student_budget
from ..settings import course_settings, over_budget, unsandboxed
from . import lock
from .pool import LOGS, Done, Faulted, Ready, WorkerPool
from .progress import Progress, StudentResult
from .selection import graded_students, parse_shard, submitted_students, to_grade
from .worker import GraderSetup

__all__ = ["main", "grade_class", "default_workers", "preflight", "nothing_collected", "class_wide_failure", "STATUS",
           "CLASS_WIDE"]

# what make grade's exit status says: the class graded, some students' notebooks not, the machine's fault
STATUS = {"graded": 0, "students": 1, "cannot_start": 2, "machine": 3, "interrupted": 130}
FAULT_STATUS = STATUS["machine"]
# The first this many students of a run (or all, in a smaller class, at least two) failing the same way with nobody
# graded: the course's fault, not theirs (class_wide_failure).
CLASS_WIDE = 3


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"WORKERS must be a positive number of processes, got {args.workers}")
    with usage_errors(parser):
        shard = parse_shard(args.shard)
        course = find_course(args.course)
        settings = course_settings(course)  # read once; a wrong value (a language no tool speaks …): its file and key
        late_policy(course, settings.config)
        names = _assignments(course, args.assignment)
    alembic_on_path()  # for the gradebook opened here and in the workers
    lang, url = settings.language, resolve_gradebook(course, args.db_url)
    if not any(submitted_students(course, name) for name in names):  # not a failure: nothing has arrived yet
        print(nothing_collected(course, names, lang), flush=True)
        return STATUS["graded"]
    try:
        preflight(course, names, settings.sandbox, lang)
        plan = [(name, _select(course, name, url, shard, args.force, lang)) for name in names]
    except InfrastructureFault as fault:
        print(f"make grade: {fault.said(lang)}", file=sys.stderr)
        return FAULT_STATUS
    # Ctrl-C, or SIGTERM (a Kubernetes pod being stopped): the same clean stop, even when started in the background
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    status, results = 0, []  # results: every graded student of this run, of each assignment in turn
    for assignment, students in plan:
        status = max(status, _grade_assignment(course, assignment, students, url, args, shard, settings, results))
        if status > 1:  # interrupted, or a fault of the machine: the next edition waits for the next run
            break
    return status


def _assignments(course, explicit: str) -> list:
    """The assignment named, else the course's (:func:`coursekit.assignments.default_assignments`): of several
    editions, those with submissions (all of them when none has)."""
    if explicit:
        return [explicit]
    found = default_assignments(course, course_settings(course).config)
    return [name for name in found if submitted_students(course, name)] or found


def nothing_collected(course, assignments, lang: str) -> str:
    """One line for a course with no submission of ``assignments`` in ``submitted/``: how they get there (nbgrader's
    collect, or the course's grading service, which collects each as it arrives)."""
    joined = WORDS.say(lang, "grading.and")
    if lock.service_running(course):
        how = WORDS.say(lang, "grading.service_collects")
    else:
        how = WORDS.say(lang, "grading.collect", commands=joined.join(f"`nbgrader collect {a}`" for a in assignments))
    return WORDS.say(lang, "grading.nothing_collected", assignments=joined.join(assignments),
                     folder=course / "submitted", how=how)


def _grade_assignment(course, assignment, students, url, args, shard, settings, results: list) -> int:
    """Grade one assignment's ``students``: the header, a line per student, the summary; the exit status. Their results
    join ``results``, which ``grading-logs/last-run.json`` holds."""
    lang = settings.language
    if not students:
        scope = WORDS.say(lang, "grading.this_shard", shard=shard) if shard.count > 1 else ""
        print(WORDS.say(lang, "grading.nothing", assignment=assignment, scope=scope), flush=True)
        return 0
    in_shard = WORDS.say(lang, "grading.shard", shard=shard) if shard.count > 1 else ""
    sandbox = _sandbox_said(lang, settings.sandbox)
    print(WORDS.say(lang, "grading.header", assignment=assignment, count=len(students), shard=in_shard,
                    workers=args.workers, gradebook=describe(url), logs=course / LOGS, sandbox=sandbox), flush=True)
    if not settings.sandbox:
        print(WORDS.say(lang, "grading.warning", warning=unsandboxed(lang)), flush=True)
    # the grading service (coursekit.service) takes no new job meanwhile; the one in progress ends first
    with lock.exclusive(course, "make grade", notify=lambda said: print(f"make grade: {said}", flush=True),
                        lang=settings.language):
        progress, stopped = grade_class(course, assignment, students, url, args.workers, lang=settings.language)
    print(progress.summary(stopped), flush=True)
    if not stopped or stopped == Progress.INTERRUPTED:  # a fault of the machine may be the gradebook itself: no line
        print(grades_line(url, assignment, settings.config, lang), flush=True)
    results += [{"assignment": assignment, **dataclasses.asdict(r)} for r in progress.results]
    _save_results(course / LOGS / "last-run.json", results)
    lms_outbox.mark_everyone(course, "make grade")
    if stopped:
        return STATUS["interrupted"] if stopped == Progress.INTERRUPTED else FAULT_STATUS
    return STATUS["students"] if progress.failed else STATUS["graded"]


def _sandbox_said(lang: str, sandboxed: bool) -> str:
    """The header's words on the sandbox: none, or one, each kernel capped as a whole or per process only
    (:mod:`coursekit.sandbox.cgroups`)."""
    if not sandboxed:
        return WORDS.say(lang, "grading.unsandboxed")
    groups = cgroups.describe(cgroups.find())
    capped = WORDS.say(lang, "grading.capped_whole", groups=groups) if groups else WORDS.say(lang, "grading.capped_each")
    return WORDS.say(lang, "grading.sandboxed") + capped


def grades_line(url: str, assignment: str, config, lang: str) -> str:
    """The class's grades as every surface shows them (:func:`coursekit.grades.grades_of`: the late penalty taken
    off), in one line, in ``lang``: how many, their mean, how many lost points for lateness and how many."""
    with open_gradebook(url) as gradebook:
        grades = list(grades_of(gradebook, assignment, config=config).values())
    if not grades:
        return WORDS.say(lang, "grading.no_grades", assignment=assignment)
    late = [g for g in grades if g.penalty > 0]
    said = WORDS.say(lang, "grading.late", count=len(late), points=sum(g.raw - g.score for g in late)) if late else ""
    return WORDS.say(lang, "grading.grades", assignment=assignment, count=len(grades), late=said,
                     mean=sum(g.score for g in grades) / len(grades), max_score=grades[0].max_score)


def preflight(course: pathlib.Path, assignments, sandboxed: bool, lang: str = "en") -> None:
    """Faults of the machine found before anyone is graded, each raised as an :class:`InfrastructureFault`:
    no sandbox, an interpreter the sandbox cannot use, a grader the kernels cannot read (of ``assignments``, one
    id or several), a course folder that cannot be written. What the sandbox's checks find is said in ``lang``."""
    config = course_settings(course).config
    problem = (missing_tool(lang) or private_python(world_of(config).folders, lang)) if sandboxed else ""
    if problem:
        raise InfrastructureFault(marked("fault.said"), marked("fault.fix_grade_again"), said=problem)
    for line in leftovers_said(remove_leftovers()):
        print(f"make grade: {line}", flush=True)
    names = [assignments] if isinstance(assignments, str) else assignments
    for grader in dict.fromkeys(assignment_of(name, config).grader for name in names):
        fault = grader_unreadable(pathlib.Path(grader).parent, os.geteuid() == 0) if sandboxed and grader else None
        if fault is not None:
            raise fault
    try:
        (course / "autograded").mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=course / "autograded", prefix=".write-test-"):
            pass
    except OSError as error:
        raise evident_fault(error, course) or InfrastructureFault(
            marked("fault.course_unwritable"), marked("fault.fix_it_grade_again"), error=str(error)) from error


def _save_results(path: pathlib.Path, results: list) -> None:
    """Per student of the run: the assignment, ok, reason, seconds, where they went (benchmarks/bench_class.py reads
    this)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1), encoding="utf-8")


def default_workers() -> int:
    """One more worker than cores: a worker and its kernel take turns (the worker waits on the cells, the
    kernel on the worker's bookkeeping), so one per core leaves the cores idle part of the time. Measured
    (benchmarks/bench_class.py's machine, 300 students, 2 cores): 3 workers 91 s, 2 workers 106 s."""
    return (os.cpu_count() or 1) + 1


def _parser():
    parser = argparse.ArgumentParser(prog="make grade", description=__doc__.split("\n\n")[0])
    parser.add_argument("assignment", nargs="?", default="", help="the assignment (default: $ASSIGNMENT, else the "
                                                                   "course's only one, or each of its editions that "
                                                                   "has submissions)")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="nbgrader workers at once (default: one more than the cores, %(default)s here)")
    parser.add_argument("--db-url", default="", help="gradebook URL (default: DB_URL, the course config, "
                                                     "sqlite:///<course>/gradebook.db)")
    parser.add_argument("--shard", default="", help="i/n: grade only shard i (0-based) of n")
    parser.add_argument("--force", action="store_true", help="grade again students already graded")
    add_course_option(parser)
    return parser


def _select(course, assignment, url, shard, force, lang: str) -> list:
    """The students to grade; the gradebook is opened (and created) once, before any worker."""
    submitted = submitted_students(course, assignment)
    try:
        with open_gradebook(url, course_settings(course).course_id) as gradebook:
            in_gradebook = {s.student.id for s in gradebook.find_assignment(assignment).submissions}
    except MissingEntry:
        print(WORDS.say(lang, "grading.not_generated", assignment=assignment, gradebook=describe(url), course=course),
              file=sys.stderr)
        sys.exit(STATUS["cannot_start"])
    except sqlalchemy.exc.SQLAlchemyError as error:
        raise evident_fault(error, course) or InfrastructureFault(
            marked("fault.gradebook_unreadable"), marked("fault.fix_check_grade_again"), gradebook=describe(url),
            error=str(error))
    done = graded_students(course, assignment, submitted, in_gradebook)
    return to_grade(submitted, done.__contains__, shard, force=force)


def grade_class(course, assignment, students, url, workers, show=print, lang="zh", budget=None):
    """Grade ``students`` with ``workers`` processes; ``(Progress, why it stopped early: "" or a Progress.* or the
    machine's or the course's fault, a coursekit.faults.InfrastructureFault)``; the progress said in ``lang``. A student whose grading takes more than ``budget`` seconds
    (None: :func:`coursekit.canary.student_budget`, read again as each worker is ready, its release measured) is
    stopped there (their worker replaced) and scores 0 with the reason: one notebook costs the class at most that."""
    pool = WorkerPool(GraderSetup(str(course), assignment, url), max(1, min(workers, len(students))),
                      pathlib.Path(course) / LOGS, "worker")
    progress, todo, busy, since = Progress(len(students), lang=lang), list(students), {}, {}
    fixed = None if budget is None else Budget(float(budget), "config")
    progress.budget = fixed or student_budget(course, [assignment])
    try:
        while todo or busy:
            for index in pool.idle()[:len(todo)]:
                busy[index], since[index] = todo.pop(0), time.monotonic()
                pool.send(index, busy[index])
            message = pool.get(timeout=1.0)
            if isinstance(message, Ready) and fixed is None:
                progress.budget = student_budget(course, [assignment])
            if isinstance(message, Done):
                busy.pop(message.worker, None)
                pool.finished(message.worker)
                show(progress.record(dataclasses.replace(message.outcome, worker=message.worker)), flush=True)
                fault = class_wide_failure(progress.results, len(students), assignment)
                if fault:  # nobody keeps the 0 the course's own fault gave them
                    pool.stop()  # those in progress stop before their rows go
                    _not_graded_after_all(course, url, assignment, [r.student for r in progress.results], busy)
                    progress.results.clear()
                    return progress, fault
            elif isinstance(message, Faulted):
                return progress, message.fault
            elif message is None and (died := pool.dead(restart=False)):
                for index, _, _ in died:  # killed mid-student: what nbgrader would remove on any other failure
                    if index in busy:
                        shutil.rmtree(pathlib.Path(course) / "autograded" / busy[index] / assignment,
                                      ignore_errors=True)
                return progress, _killed(died, busy)
            for index in [k for k in busy if time.monotonic() - since[k] > progress.budget.seconds]:
                result = _over_budget(pool, index, busy.pop(index), progress.budget.seconds, (course, assignment, url))
                show(progress.record(result), flush=True)
        return progress, ""
    except KeyboardInterrupt:
        show(WORDS.say(progress.lang, "grading.stopping"), flush=True)
        return progress, Progress.INTERRUPTED
    finally:
        pool.stop()


def class_wide_failure(results: list, total: int, assignment: str):
    """The course's fault (a :class:`CourseFault`) when the first students of a run (:data:`CLASS_WIDE` of ``total``, at least
    two) all failed with the same reason, their ids aside, and nobody was graded; None otherwise. A notebook's own
    fault is its student's; the same fault in every notebook is the course's own cells' (an older course, a broken
    release), detected from the failures themselves whatever the canary saw."""
    needed = min(CLASS_WIDE, total)
    if needed < 2 or len(results) < needed or any(r.ok for r in results):
        return None
    reasons = {r.reason.replace(r.student, "<student>") for r in results}
    if len(reasons) != 1:
        return None
    error = next(iter(reasons)).split("scored 0: ", 1)[-1].split(". After fixing", 1)[0]
    return CourseFault(marked("fault.class_wide"), marked("fault.fix_course_notebooks"), count=len(results),
                       assignment=assignment, error=error)


def _not_graded_after_all(course, url, assignment, students, busy) -> None:
    """``students`` (and those still being graded, ``busy``) back to collected but not graded: their 0 and any half-made
    autograded folder removed, so that the next run grades them."""
    with open_gradebook(url) as gradebook:
        for student in [*students, *busy.values()]:
            try:
                gradebook.remove_submission(assignment, student)
            except MissingEntry:
                pass
            shutil.rmtree(pathlib.Path(course) / "autograded" / student / assignment, ignore_errors=True)


def _over_budget(pool, index: int, student: str, budget: float, where: tuple) -> StudentResult:
    """``student`` took longer than ``budget``: their worker stopped and started again, their half-made autograded
    folder removed, 0 with the reason in the gradebook; their result, a failed one."""
    course, assignment, url = where
    pool.replace(index)
    shutil.rmtree(pathlib.Path(course) / "autograded" / student / assignment, ignore_errors=True)
    reason = not_graded_reason(over_budget(budget), assignment, student)
    zero_submission(url, assignment, student, reason)
    return StudentResult(student, False, reason, budget, index, over_budget=True)


def _killed(died, busy) -> InfrastructureFault:
    """The fault of workers that died (killed: SIGKILL, the out-of-memory killer)."""
    index, _, code = died[0]
    student = busy.get(index)
    cause = marked("fault.worker_killed_grading") if student else marked("fault.worker_killed_idle")
    if code is None or code >= 0:
        cause = marked("fault.worker_exited_grading") if student else marked("fault.worker_exited_idle")
    return InfrastructureFault(cause, marked("fault.fix_system_log_grade"), worker=index, student=student or "",
                               signal=-(code or 0), status=code)


if __name__ == "__main__":
    sys.exit(main())

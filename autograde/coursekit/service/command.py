"""``python -m coursekit.service``: the course's grading service, and the instructor's handles on it.

    python -m coursekit.service [run] [--course DIR]   # until SIGTERM/Ctrl-C (JupyterHub runs this)
    python -m coursekit.service pause                  # no new job; returns once nothing is being graded
    python -m coursekit.service resume
    python -m coursekit.service status                 # per student: graded, score, feedback, waiting; refused folders

The course's own ``make pause-service`` / ``make resume-service`` / ``make service-status`` run these.
"""
import argparse
import os
import signal
import sys

from ..gradebook import alembic_on_path, describe, resolve_gradebook
from ..grading import lock
from ..grading.pool import LOGS, WorkerPool
from ..late import late_policy
from ..lms import outbox as lms_outbox
from ..language import WORDS
from ..locks import take
from ..paths import add_course_option, find_course, usage_errors
from ..people import read_people
from ..printable import printable
from ..sandbox import missing_tool
from ..sandbox.forkserver import leftovers_said, remove_leftovers
from ..settings import course_settings
from . import control
from .inbox import Inbox, nbgrader_config
from .journal import Journal
from .log import ServiceLog, clock_time, short_time
from .dates import DueDates
from .policy import load_policy
from .scheduler import Scheduler
from .worker import ServiceSetup

__all__ = ["main", "journal_of"]


def journal_of(course) -> Journal:
    return Journal(control.state_dir(course) / "journal.json")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursekit.service", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", nargs="?", default="run", choices=["run", "pause", "resume", "status"])
    add_course_option(parser)
    args = parser.parse_args(argv)
    with usage_errors(parser):
        course = find_course(args.course)
    lang = course_settings(course).language  # the instructor's
    if args.action == "pause":
        control.pause(course, notify=print, lang=lang)
        print(WORDS.say(lang, "service.paused"))
        return 0
    if args.action == "resume":
        print(WORDS.say(lang, "service.resumed") if control.resume(course) else WORDS.say(lang, "service.not_paused"))
        return 0
    if args.action == "status":
        print(printable(status(course)))  # students' ids and reasons in it
        return 0
    return run(course)


def _single_instance(course):
    """An open, locked file while this is the course's only service; None when another one runs."""
    control.state_dir(course).mkdir(parents=True, exist_ok=True)
    fd = take(lock.service_pid_file(course))
    if fd is None:
        return None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def run(course) -> int:
    log = ServiceLog(course / LOGS / "service.log")
    alembic_on_path()
    try:
        policy, settings = load_policy(course), course_settings(course)
        late_policy(course, settings.config)
    except ValueError as error:
        log.write(f"cannot start: {error}")
        return 2
    problem = missing_tool(settings.language) if settings.sandbox else ""
    if problem:
        log.write(WORDS.say(settings.language, "service.cannot_grade", problem=problem))
        return 2
    me = _single_instance(course)
    if me is None:
        log.write(f"another grading service already runs on {course}: this one stops")
        return 1
    try:
        config = nbgrader_config(course)
        inbox = Inbox(config, course)
    except (Exception, SystemExit) as error:  # nbgrader's app exits on a config it cannot load
        log.write(f"cannot start: the course's nbgrader exchange cannot be set up ({type(error).__name__}: {error})")
        os.close(me)
        return 2
    url = resolve_gradebook(course)
    for line in leftovers_said(remove_leftovers()):
        log.write(line)
    on = ", ".join(policy.assignments) or "none (set c.GradingService.assignments in nbgrader_config.py)"
    log.write(f"started (pid {os.getpid()}) on {course}: assignments {on}; {policy.workers} worker(s); "
              f"cooldown {policy.cooldown:g} s; max attempts {policy.max_attempts or 'no limit'}; "
              f"gradebook {describe(url)}; exchange {settings.exchange}")
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append("SIGTERM"))
    signal.signal(signal.SIGINT, lambda *_: stopping.append("SIGINT"))
    pool = WorkerPool(ServiceSetup(str(course), url, tuple(policy.assignments)), policy.workers, course / LOGS,
                      "service-worker")
    dates = DueDates(url, config, settings.exchange, settings.course_id, log)
    scheduler = Scheduler(course, policy, settings.exchange, settings.course_id, journal_of(course), pool, log,
                          inbox=inbox, dates=dates, lang=settings.language)
    log.write(f"submissions listed by {inbox.describe()}")
    try:
        scheduler.resume()
        said = ""
        while not stopping:
            policy, problem = _reloaded(course, scheduler.policy)  # settings edited while it runs apply
            if problem and problem != said:
                log.write(f"settings not applied, the previous ones stay: {problem}")
            scheduler.policy, said = policy, problem
            scheduler.step(scheduler.policy.poll_seconds)
    finally:
        pool.stop()
        log.write(f"stopped ({', '.join(stopping) or 'error'}); "
                  f"{len(scheduler.running)} job(s) interrupted, done again at the next start")
        os.close(me)
    return 0


def _reloaded(course, current):
    """(the course's policy as its config says now, "") — or (``current``, why not) while the config is wrong."""
    try:
        return load_policy(course), ""
    except ValueError as error:
        return current, str(error)


def status(course) -> str:
    """``make service-status``, in the course's language: paused or not, the LMS's scores, then per student (named as
    the gradebook names them, :mod:`coursekit.people`)."""
    journal, lang = journal_of(course), course_settings(course).language
    people = read_people(resolve_gradebook(course))
    state = WORDS.say(lang, "service.state_paused") if control.is_paused(course) else \
        WORDS.say(lang, "service.state_running")
    lines = [WORDS.say(lang, "service.status", course=course, state=state)]
    lines += [line for line in [lms_outbox.status_line(course)] if line]  # the scores waiting for the LMS, if any
    if journal.machine:
        lines.append(WORDS.say(lang, "service.machine_waiting", since=clock_time(journal.machine["since"]),
                               cause=journal.machine["cause"]))
    for (assignment, student), entry in sorted(journal.entries.items()):
        held = WORDS.say(lang, "service.held", reason=entry.held["reason"]) if entry.held else ""
        busy = WORDS.say(lang, "service.busy", since=entry.in_flight["since"]) if entry.in_flight else ""
        waiting = WORDS.say(lang, "service.waiting", cause=entry.waiting["cause"],
                            retry=clock_time(entry.waiting["retry_at"])) if entry.waiting else ""
        lines.append(WORDS.say_n(lang, "service.entry", len(entry.releases), assignment=assignment, student=people.called(student),
                                 submitted=short_time(entry.graded), outcome=_outcome(entry, lang), held=held,
                                 busy=busy, waiting=waiting))
    lines += [WORDS.say(lang, "service.refused", name=name, reason=reason)
              for name, reason in sorted(journal.refused.items())]
    return "\n".join(lines)


def _outcome(entry, lang: str) -> str:
    """What became of an entry's newest submission, in a few words."""
    result = entry.result or {}
    if result.get("ok"):
        return f"{result['score']:g}/{result['max_score']:g}"
    if result.get("refused"):
        return WORDS.say(lang, "service.refused_at_collect", reason=result.get("reason", "").split(": ", 1)[-1][:80])
    if result:
        return WORDS.say(lang, "service.not_graded", reason=result.get("reason", "")[:60])
    return WORDS.say(lang, "service.not_graded_yet") if entry.waiting or entry.in_flight else \
        WORDS.say(lang, "service.graded_elsewhere")


if __name__ == "__main__":
    sys.exit(main())

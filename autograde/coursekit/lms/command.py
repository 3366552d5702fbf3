"""``python -m coursekit.lms``: the course's LMS sync, run by the hub, and the instructor's ``make lms-sync``.

    python -m coursekit.lms run  [--course DIR]   # until SIGTERM: roster and changed scores, every few seconds
    python -m coursekit.lms sync [--course DIR]   # make lms-sync: the roster, then every score that differs
    python -m coursekit.lms status [--course DIR] # the line make service-status prints

Exit status of ``sync``: 0 when every score is in the LMS; 2 when some wait (the LMS down, a score refused): the
machine's, never a student's; the last line says what happened, and the hub's sync posts them later.
"""
import argparse
import signal
import sys
import threading
import time

from ..language import WORDS
from ..paths import add_course_option, find_course, usage_errors
from ..settings import course_settings
from . import outbox
from .hub_client import HubBroker, NoHub
from .platform import LMSDown, Refused
from .sync import Sync

__all__ = ["main", "run", "sync_now"]

POLL_SECONDS = 2.0


def _say(line: str) -> None:
    print(time.strftime("%Y-%m-%d %H:%M:%S"), line, flush=True)


def sync_now(course, broker) -> int:
    """``make lms-sync``: everyone's score compared with the LMS's, what differs posted; the exit status. Said in the
    course's language."""
    lang = course_settings(course).language
    outbox.mark_everyone(course, "make lms-sync")
    sync = Sync(course, broker)
    try:
        print(WORDS.say_n(lang, "lms.roster_changed", sync.roster(force=True)))
    except (LMSDown, Refused) as error:
        print(WORDS.say(lang, "lms.roster_not_read", error=error))
    result = sync.post(everyone=True)
    print(result.line(lang))
    return 0 if not result.waiting else 2


def run(course, broker, stop: threading.Event, poll: float = POLL_SECONDS) -> int:
    """The hub's LMS sync until ``stop`` is set: each round the roster (when due) and the changed scores."""
    sync, said, lang = Sync(course, broker), "", course_settings(course).language
    _say(WORDS.say(lang, "lms.started", course=course))
    while not stop.is_set():
        try:
            changed = sync.roster()
            if changed:
                _say(WORDS.say_n(lang, "lms.roster_changed", changed))
        except (LMSDown, Refused) as error:
            _say(WORDS.say(lang, "lms.roster_not_read", error=error))
        result = sync.post()
        line = result.line(lang)
        if result.posted or result.refused or (result.down and line != said):
            _say(line)
        said = line
        stop.wait(poll)
    _say(WORDS.say(lang, "lms.stopped"))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursekit.lms", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["run", "sync", "status"])
    add_course_option(parser)
    args = parser.parse_args(argv)
    with usage_errors(parser):
        course = find_course(args.course)
    lang = course_settings(course).language
    if args.action == "status":
        print(outbox.status_line(course) or WORDS.say(lang, "lms.no_lms_folder", course=course, folder=outbox.FOLDER))
        return 0
    if not outbox.connected(course):
        print(WORDS.say(lang, "lms.not_connected", course=course, folder=outbox.FOLDER))
        return 2
    try:
        broker = HubBroker.from_environment()
    except NoHub as error:
        print(WORDS.say(lang, "lms.no_hub", error=error))
        return 2
    if args.action == "sync":
        return sync_now(course, broker)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    return run(course, broker, stop)


if __name__ == "__main__":
    sys.exit(main())

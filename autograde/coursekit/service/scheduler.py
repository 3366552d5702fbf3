"""The service's main loop: notice submissions, queue them fairly, hand them to workers, keep the journal.

Each round (every ``poll_seconds``):

1. ask the course's exchange what was submitted (:mod:`.inbox`: on the folder exchange through
   :mod:`coursekit.inbound`, else nbgrader's configured ``ExchangeList``, inbound); a student's newest acceptable
   submission that is newer than what the journal has graded becomes (or replaces) that student's pending job.
   An inbound folder refused (a link, a pipe, too big, named for someone other than its owner) is logged once,
   kept in the journal for ``make service-status``, and never graded; a job whose folder is refused as it is
   collected (it changed since it was listed) ends so too, with no feedback. An exchange that cannot say is the
   machine's fault: nothing is graded until it can;
2. feedback that waited (cooldown) and may go now becomes a release-only job;
3. unless the service is paused or ``make grade`` holds the course, idle workers get the fairest
   jobs (:mod:`.fair_queue`); the policy (:mod:`.policy`) decides, as each job starts, whether its
   feedback goes out at the end;
4. the workers' reports (:mod:`coursekit.grading.pool`'s messages) update the journal
   (:mod:`.journal`) and the log (:mod:`.log`). A fault of the machine on a job — reported by the
   worker, or a worker that died — is nobody's grade: the submission waits, with the cause in the
   journal and the log, and is tried again after a back-off (the policy's ``retry_seconds``); nothing is released
   for it until it has really been graded. A job that overruns ``job_timeout`` is stopped and its
   submission gets the "not graded" page (a notebook that keeps the grader busy that long is the student's).

The pool, the clock and the log are given, so the whole loop is unit-tested with a fake pool.
"""
import dataclasses
import pathlib
import time

from nbgrader.utils import parse_utc

from ..grading import lock
from ..grading.pool import Done, Faulted, Note, Ready
from ..language import DEFAULT, WORDS, marked
from ..lms import outbox as lms_outbox
from ..settings import over_budget
from . import control
from .fair_queue import GRADE, RELEASE, FairQueue, Job
from .inbox import Inbox, InboxUnreadable, folder_config
from .log import short_time
from .policy import decide
from .student_status import StatusBoard
from .worker import CannotGrade, Graded, Warm, released

__all__ = ["Scheduler"]


@dataclasses.dataclass
class _Running:
    job: Job
    worker: int
    started: float       # monotonic
    decision: object     # policy.Decision taken when it started
    result: dict = None  # the grading's result, once reported


class Scheduler:
    def __init__(self, course, policy, exchange_root, course_id, journal, pool, log,
                 clock=time.time, monotonic=time.monotonic, inbox=None, dates=None, lang=DEFAULT):
        """``inbox``: what was submitted, as the course's exchange classes list it (:class:`.inbox.Inbox`);
        None: nbgrader's folder exchange at ``exchange_root``. ``dates``: the course's due dates
        (:class:`.dates.DueDates`); None: no assignment has one. ``lang``: the course's, in which a fault of the
        machine is logged and kept in the journal (``make service-status`` shows it)."""
        self.course, self.policy, self.journal, self.pool, self.log = pathlib.Path(course), policy, journal, pool, log
        self.lang = lang
        self.inbox = Inbox(folder_config(exchange_root, course_id), course) if inbox is None else inbox
        self.clock, self.monotonic = clock, monotonic
        self.queue, self.running, self.faults, self.retry_after = FairQueue(), {}, {}, {}
        self._waiting_for = ""
        self._redo = set()  # keys whose grading a stop cut short: graded again even if autograded/ looks current
        self.board = StatusBoard(exchange_root, course_id, self.inbox.secret, log, clock)  # what students are told
        # each assignment's release as the workers set up on it; one released later is tried by every worker at once
        self._released = {a: released(course, a) for a in policy.assignments}
        self._to_warm = {index: set() for index in range(len(pool.holding))}
        self.dates = dates

    # ---------- start-up ----------

    def resume(self) -> None:
        """Jobs the journal says were running when the service stopped are done again."""
        for key, flight in self.journal.interrupted().items():
            self.journal.stopped(key)
            entry = self.journal.entry(key)
            self._redo.add(key)
            self.log.write(f"interrupted while doing the submission of {short_time(flight['timestamp'])} "
                           "(service stopped or killed): doing it again", key)
            if flight["kind"] == RELEASE or entry.graded == flight["timestamp"]:
                self._offer_release(key, entry)

    # ---------- one round ----------

    def step(self, wait: float) -> None:
        if self.dates is not None:
            self.dates.publish()
        self.poll()
        self.notice_releases()
        self.offer_waiting_feedback()
        self.dispatch()
        message = self.pool.get(timeout=wait)
        while message is not None:  # every report that is in, then the next round at once
            self.handle(message)
            message = self.pool.get(timeout=0)
        self.watch()

    def poll(self) -> None:
        now = self.clock()
        self.board.announce(self.policy.assignments)
        try:
            found = self.inbox.newest(self.policy.assignments)
        except InboxUnreadable as error:  # nothing of the exchange can be seen: no submission is lost, none is graded
            self._machine(error.said(self.lang))
            return
        self._machine("")
        self._report_refused()
        for key, submission in found.items():
            if self._backing_off(key) or not self._is_new(key, submission):
                continue
            folder = submission.folder.name if submission.folder else ""
            replaced = self.queue.offer(Job(key, GRADE, submission.timestamp, arrived=now, folder=folder))
            if replaced is not None and replaced.kind == GRADE:
                self.log.write(f"newer submission {short_time(submission.timestamp)} replaces the pending one of "
                               f"{short_time(replaced.timestamp)} (only the newest is graded)", key)

    def notice_releases(self) -> None:
        """An assignment released (or released again) since the last look: every worker tries it (:class:`Warm`)."""
        for assignment in self.policy.assignments:
            now = released(self.course, assignment)
            if now and now != self._released.get(assignment):
                for pending in self._to_warm.values():
                    pending.add(assignment)
                self.log.write(f"{assignment} released: each grading worker tries it now, before its first submission")
            self._released[assignment] = now

    def _report_refused(self) -> None:
        """Each inbound folder refused since the last poll, logged once (under the student its name claims); the list
        kept in the journal for ``make service-status``."""
        refused = self.inbox.refused
        for name in self.journal.set_refused({name: refusal.reason for name, refusal in refused.items()}):
            refusal = refused[name]
            key = (refusal.assignment, refusal.student) if refusal.student else None
            self.log.write(f"REFUSED inbound/{name}: {refusal.reason}; never collected", key)

    def _backing_off(self, key) -> bool:
        return self.retry_after.get(key, 0) > self.monotonic()

    def _is_new(self, key, submission) -> bool:
        known = [self.journal.entries[key].graded] if key in self.journal.entries else []
        if key in self.running:
            known.append(self.running[key].job.timestamp)
        pending = self.queue.pending(key)
        if pending is not None and pending.kind == GRADE:
            known.append(pending.timestamp)
        return all(not ts or parse_utc(ts) < submission.when for ts in known)

    def _graded_by_hand(self, job) -> bool:
        """Is ``autograded/`` already this submission's (``make grade`` or ``nbgrader autograde`` while paused,
        or before the service ran), and not because a job of ours was cut short after grading it?"""
        if job.key in self._redo:
            return False
        stamp = self.course / "autograded" / job.student / job.assignment / "timestamp.txt"
        try:
            return stamp.read_text(encoding="utf-8").strip() == job.timestamp
        except OSError:
            return False

    def offer_waiting_feedback(self) -> None:
        now = self.clock()
        for key, entry in self.journal.entries.items():
            if entry.held and key not in self.running and self.queue.pending(key) is None \
                    and not self._backing_off(key) and self._decide(key, entry, now).release:
                self._offer_release(key, entry)

    def _offer_release(self, key, entry) -> None:
        notice = "" if not entry.result or entry.result.get("ok") else entry.result.get("reason", "")
        self.queue.offer(Job(key, RELEASE, entry.graded, arrived=self.clock(), notice=notice))

    def dispatch(self) -> None:
        for index in self.pool.idle():  # a release to try first: no student's job, so even while paused
            if self._to_warm.get(index):
                self.pool.send(index, Warm(self._to_warm[index].pop()))
        if not self._may_start():
            return
        for index in self.pool.idle():
            started = self._start_next(index)
            if not started:
                return

    def _start_next(self, index: int) -> bool:
        """Give worker ``index`` the fairest job still worth doing; False when there is none."""
        while (job := self.queue.take()) is not None:
            entry, now = self.journal.entry(job.key), self.clock()
            if job.kind == GRADE and entry.graded and parse_utc(job.timestamp) <= parse_utc(entry.graded):
                self.queue.done(job.key)  # collected and graded already by the job before it (it took the newest)
                continue
            if job.kind == GRADE and self._graded_by_hand(job):
                self.queue.done(job.key)
                self.journal.graded(job.key, job.timestamp, None)
                self.log.write(f"submission of {short_time(job.timestamp)} was graded by hand (autograded/ holds it): "
                               "left to the instructor, no automatic feedback", job.key)
                continue
            decision = self._decide(job.key, entry, now)
            if not decision.release:
                self.board.held(job.key, job.timestamp, decision, self.policy)
            if job.kind == RELEASE and not decision.release:
                self.queue.done(job.key)
                self.journal.finished(job.key, job.timestamp, held={"reason": decision.reason, "until": decision.until})
                continue
            job = dataclasses.replace(job, release=decision.release)
            self.journal.begin(job.key, job.kind, job.timestamp, now)
            self.running[job.key] = _Running(job, index, self.monotonic(), decision)
            self.pool.send(index, job)
            return True
        return False

    def _decide(self, key, entry, now):
        """The policy's decision on ``key``'s feedback now, with that student's due date when the policy asks it."""
        due = self.dates.due(key) if self.dates is not None and self.policy.hold_after_due else None
        return decide(self.policy, key[0], entry.releases, now, due)

    def _may_start(self) -> bool:
        paused = control.is_paused(self.course)
        self.board.pause(self.queue.jobs(), paused)
        waiting_for = ("the pause file (python -m coursekit.service resume)" if paused
                       else lock.gate_holder(self.course))
        if waiting_for != self._waiting_for:
            self.log.write(f"paused: waiting for {waiting_for}" if waiting_for else "resumed")
            self._waiting_for = waiting_for
        return not waiting_for

    # ---------- reports ----------

    def handle(self, message) -> None:
        if isinstance(message, (Done, Faulted)) and isinstance(message.job, Warm):
            return self._warmed(message)
        if isinstance(message, Ready):
            self.log.write(f"grading worker {message.worker} ready (its kernel template is warm)")
        elif isinstance(message, Note) and isinstance(message.what, CannotGrade):
            self._machine(self._cannot_grade(message.worker, message.what.fault))
        elif isinstance(message, Note) and isinstance(message.what, Graded):
            key, graded = message.job.key, message.what
            if key in self.running:
                self.running[key].result = graded.result
                self.running[key].job = dataclasses.replace(self.running[key].job, timestamp=graded.timestamp)
            self.journal.graded(key, graded.timestamp, graded.result)
        elif isinstance(message, Done):
            self._machine("")  # it graded: whatever kept the service from grading is gone
            self._done(message.worker, message.job.key, message.outcome)
        elif isinstance(message, Faulted) and message.job is None:
            self._machine(self._cannot_grade(message.worker, message.fault))
        elif isinstance(message, Faulted):
            self._faulted(message.worker, message.job.key, message.fault.said(self.lang))

    def _cannot_grade(self, worker: int, fault, assignment: str = "") -> str:
        """A worker that cannot grade (``assignment``'s release, or any), its fault said in the course's language."""
        spaced = f" {assignment}" if assignment else ""
        return WORDS.say(self.lang, "service.worker_cannot_grade", worker=worker, fault=fault.said(self.lang),
                         assignment=spaced)

    def _warmed(self, message) -> None:
        """A worker tried a release: ready for its first submission, or the machine's fault, said once."""
        self.pool.finished(message.worker)
        assignment = message.job.assignment
        if isinstance(message, Faulted):
            self._machine(self._cannot_grade(message.worker, message.fault, assignment))
        else:
            self.log.write(f"grading worker {message.worker} ready for {assignment} (its release grades here)")

    def _machine(self, cause: str) -> None:
        """What keeps the whole service from grading ("" once nothing does), logged once when it changes."""
        if self.journal.machine_fault(cause, self.clock()):
            self.log.write(WORDS.say(self.lang, "service.machine_fault", cause=cause) if cause else
                           WORDS.say(self.lang, "service.machine_fault_gone"))

    def _faulted(self, index, key, fault: str) -> None:
        """A fault of the machine stopped this job (``fault``: it, said in the course's language): the submission
        waits and is tried again; nothing released."""
        running = self.running.pop(key, None)
        if index is not None:
            self.pool.finished(index)
        self.queue.done(key)
        self._redo.add(key)  # autograded/ may hold what the cut-short grading began: not a grading by hand
        tries = self.faults[key] = self.faults.get(key, 0) + 1
        first, longest = self.policy.retry_seconds
        wait = min(first * 2 ** (tries - 1), longest)
        self.retry_after[key] = self.monotonic() + wait
        waiting = {"cause": fault, "since": self.clock(), "retry_at": self.clock() + wait}
        if running is not None and running.result is not None:  # graded: only its feedback waits
            self.journal.finished(key, running.job.timestamp, held={"reason": "fault", "until": None})
        self.journal.stopped(key, waiting)
        timestamp = short_time(running.job.timestamp) if running else "?"
        self.log.write(WORDS.say(self.lang, "service.job_fault", submitted=timestamp, fault=fault, seconds=wait), key)

    def _done(self, index, key, outcome) -> None:
        running = self.running.pop(key, None)
        self.pool.finished(index)
        self.queue.done(key)
        self.faults.pop(key, None)
        self._redo.discard(key)
        if running is None:
            return
        timestamp, decision = outcome.timestamp or running.job.timestamp, running.decision
        if outcome.released:
            self.journal.finished(key, timestamp, released_at=self.clock())
            lms_outbox.mark(self.course, key[0], [key[1]], "feedback released")
        elif (running.result or {}).get("refused"):  # nothing was collected: no feedback, none held back
            self.journal.finished(key, timestamp)
        else:
            self.journal.finished(key, timestamp, held={"reason": decision.reason, "until": decision.until})
        steps = outcome.timings
        spent = f" [{', '.join(f'{k} {v:.1f} s' for k, v in steps.items())}]" if steps else ""
        self.log.write(self._describe(running, timestamp, outcome) + spent, key)

    def _describe(self, running, timestamp, outcome) -> str:
        entry, result = self.journal.entry(running.job.key), running.result
        attempt = f" (automatic feedback {len(entry.releases)})" if outcome.released else ""
        then = ("feedback released" + attempt) if outcome.released else \
            running.decision.describe(self.policy, len(entry.releases))
        if running.job.kind == RELEASE:
            return f"submission of {short_time(timestamp)}: {then}"
        if result is None:
            return f"submission of {short_time(timestamp)}: {then}"
        if result.get("refused"):
            return f"REFUSED (submitted {short_time(timestamp)}): {result['reason']}; never collected, no feedback"
        if not result["ok"]:
            return f"NOT GRADED (submitted {short_time(timestamp)}): {result['reason']}; {then}" + \
                ("; the feedback says so" if outcome.released else "")
        notes = "".join(f"; NOTE {note}" for note in result.get("notes", []))
        return (f"submitted {short_time(timestamp)} → graded {result['score']:g}/{result['max_score']:g} "
                f"in {result['seconds']:.1f} s; {then}{notes}")

    # ---------- workers that die or overrun ----------

    def watch(self) -> None:
        for index, job, code in self.pool.dead():
            if job is not None and job.key in self.running:  # killed (out of memory?): the machine's, never a grade
                died = (marked("service.process_killed") if code is not None and code < 0
                        else marked("service.process_exited"))
                self._faulted(None, job.key, WORDS.say(self.lang, died, signal=-(code or 0), status=code))
        now = self.monotonic()
        for key, running in list(self.running.items()):
            if now - running.started > self.policy.job_timeout:
                self.pool.replace(running.worker)
                self.running.pop(key)
                self.queue.done(key)
                self.journal.stopped(key)
                self._ungradable(running.job, over_budget(self.policy.job_timeout))

    def _ungradable(self, job, reason) -> None:
        self.journal.graded(job.key, job.timestamp, {"ok": False, "score": 0, "max_score": 0, "reason": reason})
        self.log.write(f"NOT GRADED (submitted {short_time(job.timestamp)}): {reason}", job.key)
        self._offer_release(job.key, self.journal.entry(job.key))

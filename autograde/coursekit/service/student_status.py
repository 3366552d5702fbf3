"""What a student may know about a submission's feedback, published where their own Jupyter server reads it.

The grading service decides whether feedback goes out (:mod:`.policy`) in the instructor's course
folder, which students cannot read. Each decision a student should hear about is published here,
per submission, as one small JSON file in the exchange (a :class:`FeedbackStatus`):

* ``waiting``, with why: the cooldown (and when it ends: the service releases it then), the attempt
  limit or the deadline (the instructor releases it), the service paused by the instructor
  (:class:`StatusBoard`, called by :mod:`.scheduler` where it decides);
* ``queued``: waiting for a grader again, after a pause;
* ``released``: the feedback page is in the exchange, with the score it shows. The course's
  ``release_feedback`` (:class:`coursekit.plugins.ReleaseFeedbackTellingPending`) writes it, so the
  service's release and the instructor's after marking tell the student alike.

**Due dates and extensions** (:func:`publish_dates`): the due date of every assignment with one, in
``due_dates.json`` beside the statuses (not secret: every student of the course has it); each student's own
extension in ``<exchange>/<course>/students/<student>/extensions.json``, a folder the hub makes for that student
(as root: the instructor's, that student's group, mode 2750; ``make hub``, :mod:`hub.accounts`), so that only
they and the instructor can read it. Their server reads both (:func:`dates_for`); their Lab shows them in the
Assignment List, in their language and time zone. Where no such folder was made (demo mode, a course without the
hub) the instructor's tools make it 700: the instructor's alone.

No file: submitted and not decided yet (being graded, queued, or held back by a machine fault that
the service retries): the student's Lab says "still grading" — for an assignment the service grades,
which it announces in ``service.json`` beside the statuses (:func:`announce`; not secret: the
assignments' names). Any other assignment's feedback comes from the instructor, and the Lab says so.

**Who can read it.** The files live in ``<exchange>/<course>/feedback_status/``, mode 711: anyone
may open a file whose name they know, nobody may list the folder. A file is named by a hash of its
submission's secret (``submission_secret.txt``: 128 hex digits that only the student's nbgrader
cache and the course's inbound copy hold), as nbgrader names the feedback pages it releases into
``<exchange>/<course>/feedback/`` (also 711). Whoever could read a student's page could read the
status, and nobody else: the status says less than the page (no answers, no outputs). The student's
server (:mod:`coursekit.plugins.feedback_watch`) reads it; their Lab never touches the exchange.
"""
import dataclasses
import hashlib
import json
import os
import pathlib
import time

from .inbox import SECRET_FILE
from .journal import write_atomically
from .policy import ATTEMPTS, COOLDOWN, DEADLINE

__all__ = ["FeedbackStatus", "SUBMITTED", "QUEUED", "WAITING", "RELEASED", "PAUSED", "REASONS", "FOLDER", "status_folder",
           "status_path", "publish", "read", "held", "released", "announce", "announced", "StatusBoard", "DATES_FILE",
           "STUDENTS", "EXTENSIONS_FILE", "student_folder", "publish_dates", "dates_for"]

QUEUED, WAITING, RELEASED = "queued", "waiting", "released"
SUBMITTED = "submitted"  # no status published yet: what the student's server reports (never written here)
PAUSED = "paused"  # a reason to wait, beside the policy's own
REASONS = (COOLDOWN, ATTEMPTS, DEADLINE, PAUSED)
FOLDER = "feedback_status"  # beside nbgrader's feedback/ in <exchange>/<course>/
SERVICE_FILE = "service.json"  # in FOLDER: {"assignments": [...]}, those the grading service grades
_SALT = "attention-feedback-status:"  # the name is not the hash nbgrader gives the page
DATES_FILE = "due_dates.json"  # in FOLDER: {assignment: due date, ISO 8601 UTC}, every assignment with one
STUDENTS, EXTENSIONS_FILE = "students", "extensions.json"  # <exchange>/<course>/students/<student>/extensions.json


@dataclasses.dataclass(frozen=True)
class FeedbackStatus:
    """One submission's feedback, as its student may know it (read by the student's server and Lab)."""
    assignment: str
    timestamp: str                 # the submission's, as nbgrader wrote it
    state: str                     # QUEUED, WAITING or RELEASED (SUBMITTED: none published yet)
    reason: str = ""               # WAITING: one of REASONS
    until: float | None = None     # COOLDOWN: when it ends, seconds since the epoch
    limit: int = 0                 # ATTEMPTS: automatic feedbacks per student and assignment
    graded: bool = True            # RELEASED: False for the page of a submission that could not be graded
    score: float | None = None     # RELEASED: as the page shows it (None: a page without the course's summary)
    max_score: float | None = None
    pending: int = 0               # RELEASED: written answers not marked yet
    published: float = 0.0         # when it was written: a page released again is a status of its own

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "FeedbackStatus":
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})


def status_folder(exchange_root, course_id: str) -> pathlib.Path:
    return pathlib.Path(exchange_root) / course_id / FOLDER


def status_path(exchange_root, course_id: str, secret: str) -> pathlib.Path:
    """Where the status of the submission with ``secret`` lives: a name only its secret's holders can compute."""
    digest = hashlib.sha256((_SALT + secret.strip()).encode("ascii")).hexdigest()
    return status_folder(exchange_root, course_id) / f"{digest}.json"


def _folder(exchange_root, course_id: str) -> pathlib.Path:
    folder = status_folder(exchange_root, course_id)
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o711)  # not listable: names nobody can guess are the protection (module docstring)
    return folder


def publish(exchange_root, course_id: str, secret: str, status: FeedbackStatus) -> pathlib.Path:
    """Write ``status`` (atomically, readable by whoever knows its name) for the submission with ``secret``."""
    _folder(exchange_root, course_id)
    path = status_path(exchange_root, course_id, secret)
    write_atomically(path, json.dumps(status.to_dict(), ensure_ascii=False), mode=0o644)
    return path


def announce(exchange_root, course_id: str, assignments) -> pathlib.Path:
    """Say which assignments the grading service grades (their students' Labs say "grading…" after Submit)."""
    path = _folder(exchange_root, course_id) / SERVICE_FILE
    write_atomically(path, json.dumps({"assignments": sorted(assignments)}), mode=0o644)
    return path


def announced(exchange_root, course_id: str) -> tuple:
    """The assignments the grading service last said it grades (none when it never ran)."""
    try:
        text = (status_folder(exchange_root, course_id) / SERVICE_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    return tuple(json.loads(text)["assignments"])


def student_folder(exchange_root, course_id: str, student: str) -> pathlib.Path:
    """The folder of what only ``student`` (and the instructor) may read in the exchange."""
    if not student or student in (".", "..") or "/" in student:
        raise ValueError(f"not a student id: {student!r}")
    return pathlib.Path(exchange_root) / course_id / STUDENTS / student


def _json_if_changed(path: pathlib.Path, data, mode: int) -> None:
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (FileNotFoundError, UnicodeDecodeError):
        pass
    write_atomically(path, text, mode=mode)


def publish_dates(exchange_root, course_id: str, due: dict, extensions: dict) -> None:
    """``due`` ({assignment: ISO date}) for every student; ``extensions`` ({student: {assignment: ISO end}}, a student
    with none: {}) each into that student's own folder (written only when it changed)."""
    _json_if_changed(_folder(exchange_root, course_id) / DATES_FILE, due, 0o644)
    for student, ends in sorted(extensions.items()):
        folder = student_folder(exchange_root, course_id, student)
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            os.chmod(folder, 0o700)  # no hub made it for the student: the instructor's alone
        _json_if_changed(folder / EXTENSIONS_FILE, ends, 0o640)


def _read_json(path: pathlib.Path) -> dict:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def dates_for(exchange_root, course_id: str, student: str) -> dict:
    """``{assignment: {"due": ISO, "until": ISO or None}}``: what ``student`` may know of the due dates (their own
    extension's end as ``until``); what cannot be read counts as not published."""
    due = _read_json(status_folder(exchange_root, course_id) / DATES_FILE)
    try:
        ends = _read_json(student_folder(exchange_root, course_id, student) / EXTENSIONS_FILE)
    except ValueError:
        ends = {}
    return {name: {"due": str(when), "until": str(ends[name]) if ends.get(name) else None}
            for name, when in sorted(due.items())}


def read(exchange_root, course_id: str, secret: str) -> FeedbackStatus | None:
    """The status published for the submission with ``secret``; None while there is none."""
    try:
        text = status_path(exchange_root, course_id, secret).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return FeedbackStatus.from_dict(json.loads(text))


def held(assignment: str, timestamp: str, reason: str, until=None, limit: int = 0, now=None) -> FeedbackStatus:
    """The feedback of that submission waits, for ``reason`` (one of :data:`REASONS`)."""
    if reason not in REASONS:
        raise ValueError(f"a feedback waits for one of {', '.join(REASONS)}: got {reason!r}")
    return FeedbackStatus(assignment, timestamp, WAITING, reason=reason, until=until,
                          limit=limit if reason == ATTEMPTS else 0, published=time.time() if now is None else now)


def released(assignment: str, timestamp: str, graded=True, score=None, max_score=None, pending=0,
             now=None) -> FeedbackStatus:
    """The feedback page of that submission is in the exchange, showing ``score`` / ``max_score``."""
    return FeedbackStatus(assignment, timestamp, RELEASED, graded=graded, score=score, max_score=max_score,
                          pending=pending, published=time.time() if now is None else now)


class StatusBoard:
    """What the scheduler tells students, at the points where it decides about their feedback.

    A status that cannot be written is the machine's trouble, not the student's: it is logged (once
    per submission) and the service goes on; the student's Lab keeps saying "still grading".
    """

    def __init__(self, exchange_root, course_id: str, secret_of, log, clock=time.time):
        """``secret_of(key, timestamp)``: that submission's secret, "" when unknown (:meth:`.inbox.Inbox.secret`)."""
        self.exchange_root, self.course_id, self.secret_of = exchange_root, course_id, secret_of
        self.log, self.clock, self._failed = log, clock, set()
        self._paused = set()  # (key, timestamp) told they wait for the pause to end
        self._announced = None  # the assignments last announced

    def announce(self, assignments) -> None:
        """Every round: the assignments graded automatically, written again only when they change."""
        if tuple(assignments) == self._announced:
            return
        try:
            announce(self.exchange_root, self.course_id, assignments)
        except OSError as error:  # tried again next round, said once
            if "announce" not in self._failed:
                self._failed.add("announce")
                self.log.write(f"could not tell students which assignments are graded automatically: {error}")
            return
        self._announced = tuple(assignments)

    def held(self, key, timestamp: str, decision, policy) -> None:
        """The policy holds that submission's feedback back (``decision``: a :class:`.policy.Decision`)."""
        limit = policy.max_attempts if decision.reason == ATTEMPTS else 0
        self._publish(key, held(key[0], timestamp, decision.reason, decision.until, limit, self.clock()))

    def pause(self, jobs, paused: bool) -> None:
        """Every round: while ``paused``, each pending job's student is told once that it waits for the
        instructor's ``resume``; once resumed, they are told it waits for a grader again."""
        if paused:
            for job in jobs:
                if (job.key, job.timestamp) not in self._paused:
                    self._paused.add((job.key, job.timestamp))
                    self._publish(job.key, held(job.assignment, job.timestamp, PAUSED, now=self.clock()))
            return
        for key, timestamp in sorted(self._paused):
            self._publish(key, FeedbackStatus(key[0], timestamp, QUEUED, published=self.clock()))
        self._paused.clear()

    def _publish(self, key, status: FeedbackStatus) -> None:
        secret = self.secret_of(key, status.timestamp)
        try:
            if not secret:
                raise FileNotFoundError(f"no {SECRET_FILE} for the submission of {status.timestamp} in the exchange")
            publish(self.exchange_root, self.course_id, secret, status)
        except OSError as error:
            if (key, status.timestamp) not in self._failed:
                self._failed.add((key, status.timestamp))
                why = f" ({status.reason})" if status.reason else ""
                self.log.write(f"could not tell the student their feedback is {status.state}{why}: {error}; "
                               "their Lab keeps saying it is being graded", key)

"""What students have submitted, as nbgrader's configured exchange lists it (``nbgrader list --inbound``).

The service asks the course's exchange classes (``c.ExchangeFactory.list``, nbgrader's own folder
exchange unless the course plugs in another) for the inbound submissions, so any exchange plug-in
feeds it; ``collect`` and ``release_feedback`` go through the same factory (:mod:`.steps`).

nbgrader's folder exchange (:class:`nbgrader.exchange.default.Exchange` and its subclasses) has two
gaps the service closes, and only for it:

* ``nbgrader submit`` copies a student's folder to ``<exchange>/<course>/inbound/
  <student>+<assignment>+<timestamp>+<random>``, then writes ``timestamp.txt`` and, last,
  ``submission_secret.txt`` (128 hex digits), and its listing shows a folder still being copied. So
  a submission counts as arrived once that secret is whole, and is never collected half-way.
* its listing globs the inbound folder, and a folder it cannot read looks empty. So the folder is
  opened first: one it cannot open is the machine's fault (:class:`InboxUnreadable`), not "nothing yet".

An exchange of another kind (a server such as ngshare) stores a submission in one request: what it
lists has arrived. Any exchange that fails, or logs an error while it lists (ngshare's classes log
and go on), makes the whole listing fail: a partial list would look like students who never submitted.
The service keeps the newest submission of each student and assignment: ``collect --update``
collects that one too.
"""
import dataclasses
import datetime
import functools
import logging
import os
import pathlib
import time

from nbgrader.apps import NbGrader
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeError, ExchangeFactory
from nbgrader.exchange.default import Exchange as FolderExchange
from nbgrader.utils import parse_utc
from traitlets.config import Config

from ..upstream.nbgrader import SECRET_FILE, SECRET_LENGTH, parse_submission_name

__all__ = ["Submission", "Inbox", "InboxUnreadable", "course_config", "folder_config", "parse_name",
           "newest_submissions", "is_complete", "SECRET_FILE", "SECRET_LENGTH"]

# nbgrader's folder listing costs ≈ 0.3 ms a submission: it is asked again when inbound/ changes (a submission is a new
# entry), and at least this often (a file system whose folder times are coarse).
RELIST_SECONDS = 5.0


@functools.lru_cache(maxsize=100_000)
def _utc(timestamp: str) -> datetime.datetime:
    """nbgrader's ``parse_utc``, once per timestamp: dateutil takes ≈ 0.5 ms, and each poll meets every submission."""
    return parse_utc(timestamp)


class InboxUnreadable(RuntimeError):
    """The exchange cannot say what was submitted: the machine's fault, nobody's grade."""


@dataclasses.dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    timestamp: str                     # as nbgrader wrote it: "2026-12-01 15:30:01.123456 UTC"
    folder: pathlib.Path | None = None  # its inbound folder (nbgrader's folder exchange); None for a server's

    @property
    def key(self) -> tuple:
        return (self.assignment, self.student)

    @property
    def when(self) -> datetime.datetime:
        return _utc(self.timestamp)


def parse_name(name: str):
    """``"s1+ch04_attention+2026-12-01 15:30:01.123456 UTC+Ab3"`` -> (student, assignment, timestamp); None when not one
    (:func:`coursekit.upstream.nbgrader.parse_submission_name`: split from the right as nbgrader's collect does, so
    a student id may hold ``+``)."""
    return parse_submission_name(name, _utc)


def is_complete(folder: pathlib.Path) -> bool:
    """Has ``nbgrader submit`` finished writing ``folder`` (its secret is whole)?"""
    try:
        return len((folder / SECRET_FILE).read_text(encoding="ascii", errors="replace").strip()) >= SECRET_LENGTH
    except OSError:
        return False


def course_config(course) -> Config:
    """The nbgrader settings an nbgrader command run in ``course`` has: its config files, found as nbgrader finds them."""
    app = NbGrader()
    app.initialize([], root=str(course))
    return app.config


def folder_config(exchange_root, course_id: str) -> Config:
    """Settings for nbgrader's folder exchange at ``exchange_root`` alone (tests, a course without a config file)."""
    config = Config()
    config.Exchange.root = str(exchange_root)
    config.CourseDirectory.course_id = course_id
    return config


class _Errors(logging.Handler):
    """The errors an exchange class logs while it lists (ngshare's log a failed request and go on)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.said = []

    def emit(self, record):
        self.said.append(record.getMessage())


class Inbox:
    """The course's inbound submissions through its configured ``ExchangeList`` (built once, listed each poll)."""

    def __init__(self, config: Config, course_root=None):
        coursedir = CourseDirectory(config=config, **({"root": str(course_root)} if course_root else {}))
        coursedir.assignment_id, coursedir.student_id = "", ""  # every assignment, every student
        self.course_id = coursedir.course_id
        self.log = logging.getLogger(f"coursekit.service.inbox.{id(self)}")
        self.log.propagate, self.errors = False, _Errors()
        self.log.addHandler(self.errors)
        self.lister = ExchangeFactory(config=config).List(coursedir=coursedir, authenticator=Authenticator(config=config),
                                                        config=config, log=self.log, inbound=True)
        self.on_folders = isinstance(self.lister, FolderExchange)
        self.inbound = pathlib.Path(self.lister.root, self.course_id, "inbound") if self.on_folders else None
        self._folders = {}  # (key, timestamp) -> inbound folder, as last listed
        self._last, self._seen, self._listed_at = [], None, 0.0  # the folder exchange's last listing, and when

    def describe(self) -> str:
        kind = type(self.lister)
        where = f" at {self.lister.root}" if self.on_folders else ""
        return f"{kind.__module__}.{kind.__qualname__}{where}"

    def listed(self) -> list:
        """Every inbound submission the exchange lists (complete or not); :class:`InboxUnreadable` when it cannot say."""
        if self.on_folders:
            seen = self._folder_seen()
            if seen is None:
                return []
            if seen == self._seen and time.monotonic() - self._listed_at < RELIST_SECONDS:
                return self._last
            self._seen, self._listed_at = seen, time.monotonic()
        self.errors.said.clear()
        try:
            assignments = self.lister.start()
        except (ExchangeError, OSError, RuntimeError, ValueError) as error:
            raise InboxUnreadable(f"the exchange cannot list the submissions ({type(error).__name__}: {error})") from None
        if self.errors.said:
            raise InboxUnreadable(f"the exchange cannot list the submissions ({'; '.join(self.errors.said)[:300]})")
        found = [self._submission(info) for assignment in assignments or [] for info in assignment["submissions"]]
        self._folders = {(s.key, s.timestamp): s.folder for s in found if s.folder is not None}
        self._last = found
        return found

    def _folder_seen(self):
        """nbgrader's folder exchange: what tells a changed inbound folder (None while there is none: nothing submitted)."""
        try:
            os.scandir(self.inbound).close()
            stat = self.inbound.stat()
        except FileNotFoundError:
            return None
        except OSError as error:  # nbgrader's listing would see an empty folder
            raise InboxUnreadable(f"the exchange's inbound folder cannot be read ({error})") from None
        return (stat.st_ino, stat.st_mtime_ns, stat.st_nlink, stat.st_size)

    def _submission(self, info: dict) -> Submission:
        path = info.get("path")
        if self.on_folders and path:
            folder = pathlib.Path(path)
            # nbgrader's listing splits the name at its first "+"; collect reads it from the right, as here.
            named = parse_name(folder.name) or (info["student_id"], info["assignment_id"], info["timestamp"])
            return Submission(*named, folder)
        return Submission(info["student_id"], info["assignment_id"], info["timestamp"])

    def newest(self, assignments, complete: set = None) -> dict:
        """``{(assignment, student): Submission}``: each student's newest complete submission of ``assignments``."""
        return newest_submissions(self.listed(), assignments, complete)

    def secret(self, key: tuple, timestamp: str) -> str:
        """The secret of ``key``'s submission made at ``timestamp``, from the inbound copy the last listing showed
        ("" when it showed none: gone, or an exchange that keeps no folder the service can read)."""
        folder = self._folders.get((key, timestamp))
        try:
            return (folder / SECRET_FILE).read_text(encoding="ascii").strip() if folder else ""
        except OSError:
            return ""


def newest_submissions(submissions, assignments, complete: set = None) -> dict:
    """``{(assignment, student): Submission}``: the newest complete one of each student among ``submissions``.

    A submission in an inbound folder is complete once its secret is whole (module docstring); one without a
    folder (a server's exchange) is complete as listed. ``complete``: folders already found complete (a poll
    reads each secret once, not every time).
    """
    wanted, complete = set(assignments), set() if complete is None else complete
    newest = {}
    for submission in sorted((s for s in submissions if s.assignment in wanted), key=lambda s: s.when, reverse=True):
        if submission.key in newest:
            continue
        folder = submission.folder
        if folder is None or folder.name in complete or is_complete(folder):
            if folder is not None:
                complete.add(folder.name)
            newest[submission.key] = submission
    return newest

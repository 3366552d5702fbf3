"""What students have submitted: the course's exchange, as ``nbgrader list --inbound`` would say, read safely.

The service asks the course's exchange classes (``c.ExchangeFactory.list``) for the inbound
submissions, so any exchange plug-in feeds it; ``collect`` and ``release_feedback`` go through the
same factory (:mod:`.steps`). On nbgrader's folder exchange (:class:`nbgrader.exchange.default.Exchange`
and its subclasses) it reads ``inbound/`` itself, through :mod:`coursekit.inbound` only, never through
nbgrader's listing, which opens each folder's secret and notebooks following links (a pipe there would
block the service's loop, a link to ``/dev/zero`` exhaust its memory):

* every folder is examined (:func:`coursekit.inbound.examine`): one that may not leave ``inbound/``
  (a link, a pipe, too big, named for someone other than its owner) is refused, with its reason in
  :attr:`Inbox.refused`, and never hides its student's other folders;
* ``nbgrader submit`` copies a student's folder to ``<exchange>/<course>/inbound/
  <student>+<assignment>+<timestamp>+<random>``, then writes ``timestamp.txt`` and, last,
  ``submission_secret.txt`` (128 hex digits). So a submission counts as arrived once that secret is
  whole (:func:`coursekit.inbound.read_secret`), and is never collected half-way. Its time is when it arrived
  (:attr:`coursekit.inbound.Folder.arrived`: the folder's own newest change), never the name's or the file's, which
  the student wrote; collect writes the same into ``submitted/``, so the journal, the gradebook and this listing
  name one submission by one time (and the service grades it once);
* nbgrader's listing globs the inbound folder, and a folder it cannot read looks empty. Here one it cannot
  open is the machine's fault (:class:`InboxUnreadable`), not "nothing yet".

An exchange of another kind (a server such as ngshare) stores a submission in one request: what it
lists has arrived. Any exchange that fails, or logs an error while it lists (ngshare's classes log
and go on), makes the whole listing fail: a partial list would look like students who never submitted.
The service keeps the newest acceptable submission of each student and assignment: ``collect --update``
collects that one too.
"""
import dataclasses
import datetime
import logging
import os
import pathlib
import time

from nbgrader.apps import NbGrader
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeError, ExchangeFactory
from nbgrader.exchange.default import Exchange as FolderExchange
from traitlets.config import Config

from .. import inbound
from ..inbound import Refused, utc
from ..language import Worded, marked
from ..upstream.nbgrader import SECRET_FILE, SECRET_LENGTH, parse_submission_name

__all__ = ["Submission", "Inbox", "InboxUnreadable", "nbgrader_config", "folder_config", "parse_name",
           "SECRET_FILE", "SECRET_LENGTH"]

# inbound/ is examined again when it changes (a submission is a new entry), and at least this often (a file system
# whose folder times are coarse; a folder changed inside).
RELIST_SECONDS = 5.0


class InboxUnreadable(Worded, RuntimeError):
    """The exchange cannot say what was submitted: the machine's fault, nobody's grade; said in the course's language
    (the service's log and journal: :class:`coursekit.language.Worded`)."""


@dataclasses.dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    timestamp: str                     # when it arrived, as nbgrader writes a time: "2026-12-01 15:30:01.123456 UTC"
    folder: pathlib.Path | None = None  # its inbound folder (nbgrader's folder exchange); None for a server's

    @property
    def key(self) -> tuple:
        return (self.assignment, self.student)

    @property
    def when(self) -> datetime.datetime:
        return utc(self.timestamp)


def parse_name(name: str):
    """``"s1+ch04_attention+2026-12-01 15:30:01.123456 UTC+Ab3"`` -> (student, assignment, timestamp); None when not one
    (:func:`coursekit.upstream.nbgrader.parse_submission_name`: split from the right as nbgrader's collect does, so
    a student id may hold ``+``)."""
    return parse_submission_name(name, utc)


def nbgrader_config(course) -> Config:
    """The nbgrader settings an nbgrader command run in ``course`` has: every config file found as nbgrader finds it
    (the course's, and on the hub the system-wide one naming the exchange's classes), not the course's alone
    (:func:`coursekit.settings.course_config`)."""
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
    """The course's inbound submissions (built once, listed each poll): on nbgrader's folder exchange through
    :mod:`coursekit.inbound`, on any other through its configured ``ExchangeList``. ``refused``: the inbound folders
    refused as last examined, ``{name: Refusal}``."""

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
        self.limits, self.refused = inbound.limits_of(config), {}
        self._examined, self._named, self._secrets = {}, {}, {}  # name -> Folder; (key, timestamp) -> name; name -> secret
        self._last, self._seen, self._listed_at = [], None, 0.0  # the folder exchange's last listing, and when

    def describe(self) -> str:
        if self.on_folders:
            return f"coursekit.inbound at {self.inbound} (nbgrader's folder exchange)"
        kind = type(self.lister)
        return f"{kind.__module__}.{kind.__qualname__}"

    def listed(self) -> list:
        """Every inbound submission the exchange lists (complete or not); :class:`InboxUnreadable` when it cannot say."""
        return self._examine() if self.on_folders else self._ask_lister()

    def _examine(self) -> list:
        seen = self._folder_seen()
        if seen is None:
            return []
        if seen == self._seen and time.monotonic() - self._listed_at < RELIST_SECONDS:
            return self._last
        self._seen, self._listed_at = seen, time.monotonic()
        try:
            found, refused = inbound.examine(self.inbound, self.limits)
        except OSError as error:
            raise InboxUnreadable(marked("service.inbound_unreadable"), error=str(error)) from None
        self.refused = {refusal.folder: refusal for refusal in refused}
        self._examined = {folder.name: folder for folder in found}
        self._named = {((f.assignment, f.student), f.arrived): f.name for f in found}
        self._secrets = {name: secret for name, secret in self._secrets.items() if name in self._examined}
        self._last = [Submission(f.student, f.assignment, f.arrived, f.path) for f in found]
        return self._last

    def _ask_lister(self) -> list:
        self.errors.said.clear()
        try:
            assignments = self.lister.start()
        except (ExchangeError, OSError, RuntimeError, ValueError) as error:
            raise InboxUnreadable(marked("service.exchange_unlisted"), error=f"{type(error).__name__}: {error}") from None
        if self.errors.said:
            raise InboxUnreadable(marked("service.exchange_unlisted"), error="; ".join(self.errors.said)[:300])
        return [Submission(info["student_id"], info["assignment_id"], info["timestamp"])
                for assignment in assignments or [] for info in assignment["submissions"]]

    def _folder_seen(self):
        """nbgrader's folder exchange: what tells a changed inbound folder (None while there is none: nothing submitted)."""
        try:
            os.scandir(self.inbound).close()
            stat = self.inbound.stat()
        except FileNotFoundError:
            return None
        except OSError as error:  # nbgrader's listing would see an empty folder
            raise InboxUnreadable(marked("service.inbound_unreadable"), error=str(error)) from None
        return (stat.st_ino, stat.st_mtime_ns, stat.st_nlink, stat.st_size)

    def newest(self, assignments) -> dict:
        """``{(assignment, student): Submission}``: each student's newest complete submission of ``assignments``
        (one in an inbound folder is complete once its secret is whole; a server's, as listed)."""
        wanted, newest = set(assignments), {}
        for submission in sorted((s for s in self.listed() if s.assignment in wanted), key=lambda s: s.when, reverse=True):
            if submission.key not in newest and (submission.folder is None or self._complete(submission.folder.name)):
                newest[submission.key] = submission
        return newest

    def _complete(self, name: str) -> bool:
        """Is the inbound folder ``name``'s secret whole (read until it is, then kept)? A secret that is not one
        refuses its folder."""
        if name not in self._secrets:
            try:
                secret = inbound.read_secret(self._examined[name])
            except Refused as refused:
                self.refused[name] = refused.refusal
                return False
            if not secret:
                return False
            self._secrets[name] = secret
        return True

    def secret(self, key: tuple, timestamp: str) -> str:
        """The secret of ``key``'s submission made at ``timestamp``, as read from its inbound folder ("" when none was:
        gone, not whole yet, or an exchange that keeps no folder the service can read)."""
        return self._secrets.get(self._named.get((key, timestamp)), "")

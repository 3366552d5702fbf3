"""The student's own Jupyter server watches their submissions' feedback and tells their Lab at once.

nbgrader's Submit keeps a copy of each submission in the student's cache
(``<jupyter data>/nbgrader_cache/<course>/<student>+<assignment>+<timestamp>/``, with its secret);
the grading service and the course's ``release_feedback`` publish each submission's status in the
exchange under a name only that secret gives (:mod:`coursekit.service.student_status`).

:class:`FeedbackWatch` looks at both in the student's server, every :data:`LOOK_SECONDS` (a
directory listing and a ``stat`` per submission: files of the student's own and of the exchange,
no request to any server). When a status appears or changes (a new submission, a decision, a page
released, or released again after marking) it emits a Jupyter Server event (:data:`SCHEMA_ID`),
which JupyterLab's event stream brings to the student's Lab over the one events WebSocket Lab keeps
open anyway: the Lab is told, and sends no request while it waits. ``GET
<base_url>attention-feedback/status`` answers the newest submission's status per assignment, once,
for a Lab that has just opened (:data:`STATUS_URL`), the student's language: the edition of the
assignment they fetched last (:meth:`FeedbackWatch.language`), which the Lab speaks nbgrader's Assignment
List in, the due dates with this student's own extension (:meth:`FeedbackWatch.dates`), which the list shows, and
what the Lab has told the student already (``told``: per assignment, the status last shown, which the Lab ``POST``s
back as it shows one; kept in :data:`TOLD_FILE` of their Jupyter data folder), so that a log-in, from any browser,
shows nothing already seen.

Each status carries the submission's language (``metadata.edition.language`` of the submitted
notebook, as the chapter's editions mark it; Chinese when absent), so the Lab speaks it, and whether
the grading service grades that assignment (``automatic``: what it announced), so that "grading…" is
said only where a grading is coming.
"""
import dataclasses
import json
import os
import pathlib
import tempfile

from jupyter_core.paths import jupyter_data_dir
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from nbgrader.apps import NbGrader
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeFactory
from nbgrader.utils import get_username, parse_utc
from tornado import ioloop, web

from ..language import DEFAULT as DEFAULT_LANGUAGE
from ..language import LANGUAGES
from ..service import student_status
from . import lab_locale
from ..service.inbox import SECRET_FILE, SECRET_LENGTH, parse_name

__all__ = ["FeedbackWatch", "WATCH_SETTING", "language_of", "LAB_UP", "SCHEMA", "SCHEMA_ID", "STATUS_URL", "LANGUAGES",
           "LOOK_SECONDS", "TOLD_FILE", "start"]

SCHEMA_ID = "https://attention-course.example/events/feedback-status"
STATUS_URL = "attention-feedback/status"
WATCH_SETTING = "attention_feedback_watch"  # web_app.settings: this server's FeedbackWatch (read by .regrade_requests)
LAB_UP = "attention_feedback_lab_up"  # web_app.settings: what is called at the Lab's first ask (students.py)
LOOK_SECONDS = 0.5  # at most this beyond the release; a look costs ≈ 0.2 ms of CPU with 20 submissions (measured)
_NUMBER = {"type": ["number", "null"]}
SCHEMA = {  # one submission's student_status.FeedbackStatus, with what the Lab needs beside it
    "$id": SCHEMA_ID, "version": "1", "title": "The feedback status of one submission",
    "description": "Published by the course's grading service or release_feedback; see coursekit.service.student_status",
    "type": "object", "required": ["assignment", "timestamp", "state"],
    "properties": {"assignment": {"type": "string"}, "timestamp": {"type": "string"}, "state": {"type": "string"},
                   "reason": {"type": "string"}, "until": _NUMBER, "limit": {"type": "integer"},
                   "graded": {"type": "boolean"}, "score": _NUMBER, "max_score": _NUMBER,
                   "pending": {"type": "integer"}, "published": {"type": "number"},
                   "course_id": {"type": "string"}, "language": {"type": "string"},
                   "automatic": {"type": "boolean"}}}
_UNSEEN = ("unseen",)  # a submission whose status was never looked at: its first look is a change
TOLD_FILE = "attention-feedback/told.json"  # in the student's Jupyter data folder: what their Lab has told them
_TOLD_LIMIT = (200, 200)  # assignments remembered; characters of a name or a status's key


@dataclasses.dataclass
class _Submission:
    assignment: str
    timestamp: str
    secret: str
    language: str
    seen: tuple = _UNSEEN  # the status file's (inode, mtime, size) when last told; None: no file


def language_of(folder: pathlib.Path) -> str:
    """The edition's language of the submitted notebook(s) in ``folder``: ``metadata.edition.language``."""
    for notebook in sorted(folder.glob("*.ipynb")):
        try:
            edition = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get("edition") or {}
        except (OSError, ValueError):
            continue
        if edition.get("language") in LANGUAGES:
            return edition["language"]
    return DEFAULT_LANGUAGE


def _stat(path: pathlib.Path):
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return (found.st_ino, found.st_mtime_ns, found.st_size)  # a status rewritten is a new file (os.replace)


class FeedbackWatch:
    """The student's submissions of one course and their feedback status; :meth:`look` finds what changed."""

    def __init__(self, exchange_root, cache, course_id: str, root=".", student: str = "", lab_settings=None,
                 told_file=None):
        self.exchange_root, self.course_id, self.root = exchange_root, course_id, pathlib.Path(root)
        self.lab_settings = lab_settings  # the student's JupyterLab settings (None: their own, as JupyterLab finds it)
        self.student = student or get_username()  # who submits from this server, as nbgrader names them
        self.told_file = pathlib.Path(told_file) if told_file else None
        self.cache = pathlib.Path(cache) / course_id
        self.submissions = {}  # cache folder name -> _Submission
        self._service = (None, ())  # (stat of the service's announcement, the assignments it grades)

    def look(self) -> list:
        """The statuses (as :meth:`describe` gives them) that appeared or changed since the last look."""
        self._find_submissions()
        changed = []
        for submission in self.submissions.values():
            seen = _stat(student_status.status_path(self.exchange_root, self.course_id, submission.secret))
            if seen != submission.seen:
                submission.seen = seen
                changed.append(self.describe(submission))
        return changed

    def newest(self) -> list:
        """The status of each assignment's newest submission."""
        return [self.describe(submission) for submission in self._newest().values()]

    def newest_timestamp(self, assignment: str) -> str:
        """The timestamp of the student's newest submission of ``assignment`` as their cache (and so its feedback
        page's folder) names it; "" before any. Not the published status's: that names when it reached the course."""
        newest = self._newest().get(assignment)
        return newest.timestamp if newest else ""

    def _newest(self) -> dict:
        """``{assignment: its newest submission}``, by the times the student's own cache names them."""
        newest = {}
        for submission in sorted(self.submissions.values(), key=lambda s: parse_utc(s.timestamp)):
            newest[submission.assignment] = submission
        return newest

    def told(self) -> dict:
        """``{assignment: the key of the status the Lab last showed}`` ({} before any, or unreadable)."""
        try:
            found = json.loads(self.told_file.read_text(encoding="utf-8")) if self.told_file else {}
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)} \
            if isinstance(found, dict) else {}

    def remember(self, told: dict) -> None:
        """The Lab showed these (``{assignment: key}``): kept, so that no log-in shows them again. A ValueError names
        what is not a short text."""
        names, length = _TOLD_LIMIT
        if not isinstance(told, dict) or not all(isinstance(k, str) and isinstance(v, str) and len(k) <= length
                                                 and len(v) <= length for k, v in told.items()):
            raise ValueError(f"told must map assignments to keys, texts of at most {length} characters")
        if self.told_file is None:
            return
        merged = {**self.told(), **told}
        merged = dict(list(merged.items())[-names:])
        self.told_file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=self.told_file.parent, delete=False, encoding="utf-8") as handle:
            json.dump(merged, handle)
        os.replace(handle.name, self.told_file)

    def language(self) -> str:
        """The student's language: the edition of the released assignment whose folder in their root (nbgrader fetches
        there) changed last; before they fetch any, the one their LMS launch named (:func:`.lab_locale.remembered`),
        else "" (their Lab then asks their browser, and falls back on the course's own)."""
        return self.fetched_language() or lab_locale.remembered(self.lab_settings)

    def fetched_language(self) -> str:
        """The edition's language of the released assignment fetched last; "" before any."""
        outbound = pathlib.Path(self.exchange_root) / self.course_id / "outbound"
        try:
            released = [entry.name for entry in os.scandir(outbound)]
        except OSError:
            return ""
        fetched = [self.root / name for name in released if (self.root / name).is_dir()]
        return language_of(max(fetched, key=lambda folder: folder.stat().st_mtime)) if fetched else ""

    def dates(self) -> dict:
        """``{assignment: {"due", "until"}}``: the due dates published for the course, and this student's extension
        (:func:`coursekit.service.student_status.dates_for`)."""
        return student_status.dates_for(self.exchange_root, self.course_id, self.student)

    def describe(self, submission: _Submission) -> dict:
        """Its published status, or ``submitted`` while there is none, with the course, the language and whether
        the service grades it. The submission is named by the student's own timestamp (their cache's, which names
        their feedback folder and the Assignment List's row), not by its arrival, under which the course publishes
        it (:mod:`coursekit.inbound`): the Lab and the regrade dialog find the submission by that name."""
        status = student_status.read(self.exchange_root, self.course_id, submission.secret) or \
            student_status.FeedbackStatus(submission.assignment, submission.timestamp, student_status.SUBMITTED)
        return {**status.to_dict(), "timestamp": submission.timestamp, "course_id": self.course_id,
                "language": submission.language, "automatic": submission.assignment in self._graded_automatically()}

    def _graded_automatically(self) -> tuple:
        """The assignments the grading service announced (read again only when its file changes)."""
        seen = _stat(student_status.status_folder(self.exchange_root, self.course_id) / student_status.SERVICE_FILE)
        if seen != self._service[0]:
            self._service = (seen, student_status.announced(self.exchange_root, self.course_id) if seen else ())
        return self._service[1]

    def _find_submissions(self) -> None:
        try:
            entries = [entry for entry in os.scandir(self.cache) if entry.name not in self.submissions]
        except FileNotFoundError:
            return
        for entry in entries:
            parsed, secret = parse_name(entry.name), _secret(pathlib.Path(entry.path))
            if parsed is not None and secret:  # Submit writes the secret last: until then, not yet a submission
                _, assignment, timestamp = parsed
                language = language_of(pathlib.Path(entry.path))
                self.submissions[entry.name] = _Submission(assignment, timestamp, secret, language)


def _secret(folder: pathlib.Path) -> str:
    try:
        secret = (folder / SECRET_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return secret if len(secret) >= SECRET_LENGTH else ""


class StatusHandler(APIHandler):
    """``GET``: the newest submission's status per assignment, the student's language, the due dates and what they
    were told, ``{"statuses": [...], "language": "zh", "dates": {assignment: {"due", "until"}}, "told": {...}}``;
    ``POST {"told": {assignment: key}}``: shown now."""

    @web.authenticated
    def get(self):
        self.settings.get(LAB_UP, lambda: None)()  # the student's Lab is up: what waited for it may start
        watch = self.settings.get(WATCH_SETTING)
        answer = {"statuses": watch.newest(), "language": watch.language(), "dates": watch.dates(),
                  "told": watch.told()} if watch else \
            {"statuses": [], "language": lab_locale.remembered(), "dates": {}, "told": {}}
        if watch and watch.fetched_language():  # JupyterLab's own words follow the edition from its next page
            lab_locale.follow(watch.fetched_language(), watch.lab_settings)
        answer["default"] = DEFAULT_LANGUAGE
        self.finish(json.dumps(answer))

    @web.authenticated
    def post(self):
        watch = self.settings.get(WATCH_SETTING)
        try:
            told = json.loads(self.request.body or b"{}").get("told")
            if watch is not None:
                watch.remember(told)
        except (ValueError, AttributeError) as error:
            raise web.HTTPError(400, str(error)) from None
        self.finish(json.dumps({"told": watch.told() if watch else {}}))


def nbgrader_places() -> tuple:
    """(exchange root, cache, course id) as nbgrader's own Assignment List finds them in this server: its
    settings on the Jupyter config path and in the server's working folder (the student's home)."""
    app = NbGrader()
    app.load_config_file()
    exchange = ExchangeFactory(config=app.config).List(config=app.config)
    return exchange.root, exchange.cache, CourseDirectory(config=app.config).course_id


def start(serverapp) -> FeedbackWatch | None:
    """Watch this server's student's submissions: the status handler, the event, a look every LOOK_SECONDS."""
    exchange_root, cache, course_id = nbgrader_places()
    web_app = serverapp.web_app
    web_app.add_handlers(".*$", [(url_path_join(web_app.settings["base_url"], STATUS_URL), StatusHandler)])
    if not course_id:
        serverapp.log.warning("no nbgrader course id in this server's settings: feedback is not watched")
        return None
    told_file = pathlib.Path(jupyter_data_dir()) / TOLD_FILE
    watch = FeedbackWatch(exchange_root, cache, course_id, serverapp.root_dir, told_file=told_file)
    web_app.settings[WATCH_SETTING] = watch
    serverapp.event_logger.register_event_schema(SCHEMA)
    watch.look()  # what is there already is the Lab's to ask for (STATUS_URL), not news

    def look():
        for status in watch.look():
            serverapp.event_logger.emit(schema_id=SCHEMA_ID, data=status)

    ioloop.PeriodicCallback(look, LOOK_SECONDS * 1000).start()
    return watch

"""A student's regrade request: what it may say, how it travels from their server to the course, and its answer.

**The request** (:class:`Request`): one graded cell (a written answer or a test cell) of one submission, and the
student's reason, plain text of at most :data:`REASON_MOST` characters. :func:`check_reason` and :func:`check` are the
one judgement of what may be filed: the student's own server asks them to refuse at once, in the student's words,
and the course asks them again when it takes a request in, since a student controls their server and may write the
file by hand. Refused: an empty or too long reason, HTML markup, control characters (terminal escape codes, bidi
overrides), a cell the submission does not have, an assignment whose requests are not open
(``c.CourseKit.regrade_deadlines``) or past its deadline.

**How it travels**, as a submission does: the student's server writes one small JSON file into the exchange,
``<exchange>/<course>/regrade_requests/`` (mode 1733: anyone may drop a file, nobody but the instructor may list,
and nobody may remove another's), named ``<student>+<assignment>+<id>.json`` with a random id. The instructor's
processes take it in (:func:`take_in`) with the care of :mod:`coursekit.inbound`: never through a link, a regular
file of at most :data:`FILE_MOST` bytes, with one name, owned by the student the name claims; its time is the file's
``ctime``, which its owner cannot set back. An authenticated hub service would have known the user from the hub's
token, but the exchange works wherever nbgrader's does (``make lab``, the hub, TLJH), needs no other server, and its
files are read by the code that already reads students' submissions.

**The answer** goes back the same way: the instructor's side publishes what the student may know of it
(:func:`publish_status`: open, or decided with the TA's comment and the score) under
``<exchange>/<course>/regrade_status/`` (711), named by a hash of the request's id, which only the student and the
course hold. The deadlines are published beside (:func:`publish_deadlines`), so a student's server can say "closed"
before filing anything. Where requests live once taken in: the gradebook (:mod:`coursekit.regrade_book`).
"""
import dataclasses
import datetime
import hashlib
import json
import os
import pathlib
import re
import secrets
import stat
import tempfile
import unicodedata

from .assignments import assignment_of
from .inbound import Limits, owner_refusal
from .language import DEFAULT, LANGUAGES, WORDS, marked
from .settings import CourseKit
from .student_files import UnreadableFile, read_capped

__all__ = ["REASON_MOST", "FILE_MOST", "KINDS", "FOLDER", "STATUS_FOLDER", "DEADLINES_FILE", "Request", "Refusal", "Taken",
           "check_reason", "check", "deadline_of", "new_id", "drop", "publish_deadlines", "read_deadlines",
           "take_in", "remove", "publish_status", "read_status"]

REASON_MOST = 2000          # characters of a reason: a long paragraph, never a document
FILE_MOST = 16 * 1024       # bytes of a request's file (the reason's 2,000 characters as UTF-8, and room to spare)
FOLDER = "regrade_requests"  # in <exchange>/<course>/, 1733
STATUS_FOLDER = "regrade_status"  # in <exchange>/<course>/, 711
DEADLINES_FILE = "regrade_deadlines.json"  # in <exchange>/<course>/, 644: {assignment: ISO 8601}
_ID = re.compile(r"^[0-9a-f]{32}$")
_PART = re.compile(r"^[^+/\x00-\x1f]{1,100}$")  # a student's or an assignment's name in a file's name
_NAME = re.compile(r"^(?P<student>[^+/]+)\+(?P<assignment>[^+/]+)\+(?P<id>[0-9a-f]{32})\.json$")
# HTML: a tag, a comment, a declaration or a processing instruction opening ("a < b" is no tag), or an entity.
_MARKUP = re.compile(r"<[A-Za-z!/?]|&#?[A-Za-z0-9]+;")
_SALT = "attention-regrade-status:"


@dataclasses.dataclass(frozen=True)
class Request:
    """One regrade request as a student's server files it (the fields of its JSON file)."""
    id: str
    course_id: str
    student: str
    assignment: str
    submission: str     # the submission's timestamp, as nbgrader wrote it
    question: str       # the graded cell's grade id
    reason: str
    language: str       # the student's (their submission's edition)
    filed: float = 0.0  # the student's clock, as they filed it (the course goes by the file's ctime)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data) -> "Request":
        names = [field.name for field in dataclasses.fields(cls)]
        if not isinstance(data, dict) or set(data) != set(names):
            raise Refusal("malformed")
        if not all(isinstance(data[n], str) for n in names if n != "filed") or \
                not isinstance(data["filed"], (int, float)) or isinstance(data["filed"], bool):
            raise Refusal("malformed")
        return cls(**data)


class Refusal(ValueError):
    """Why a request may not be filed: ``kind`` (a message of the catalogue, ``regrade.refused.<kind>``) and its
    values; :meth:`message` says it in a student's language."""

    def __init__(self, kind: str, **values):
        super().__init__(f"{kind} {values}" if values else kind)
        self.kind, self.values = kind, values

    def message(self, lang: str) -> str:
        msgid = "regrade.refused." + self.kind  # each one marked in _MESSAGES
        return WORDS.say(lang, msgid, **self.values)


# Every refusal's message (Refusal.kind is the part after the prefix), marked for `make translations` to find.
_MESSAGES = (marked("regrade.refused.empty"), marked("regrade.refused.too_long"), marked("regrade.refused.markup"),
             marked("regrade.refused.control"), marked("regrade.refused.question"), marked("regrade.refused.closed"),
             marked("regrade.refused.late"), marked("regrade.refused.malformed"), marked("regrade.refused.already"),
             marked("regrade.refused.not_newest"), marked("regrade.refused.owner"))
KINDS = tuple(message.rsplit(".", 1)[1] for message in _MESSAGES)


def check_reason(text) -> str:
    """``text`` as a reason may be filed (surrounding blanks dropped), or a :class:`Refusal`."""
    if not isinstance(text, str) or not text.strip():
        raise Refusal("empty")
    text = text.strip()
    if len(text) > REASON_MOST:
        raise Refusal("too_long", most=REASON_MOST, length=len(text))
    if _MARKUP.search(text):
        raise Refusal("markup")
    if any(_is_control(char) for char in text):
        raise Refusal("control")
    return text


def _is_control(char: str) -> bool:
    """A character a terminal or a page would act on: C0/C1 controls (escape codes) but tab and newline, format
    characters (bidi overrides, zero-width marks), surrogates and unassigned code points."""
    return char not in "\n\t" and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn")


def check(request: Request, questions, deadline: datetime.datetime | None, at: datetime.datetime) -> Request:
    """``request`` if it may be filed at ``at`` (UTC): its fields well formed, its reason checked, its question one of
    ``questions`` (grade ids of the submission's graded cells), its assignment open until ``deadline``."""
    if not _ID.match(request.id) or not all(_PART.match(part) for part in (request.student, request.assignment)):
        raise Refusal("malformed")
    reason = check_reason(request.reason)
    if request.question not in set(questions):
        raise Refusal("question")
    if deadline is None:
        raise Refusal("closed")
    if at > deadline:
        raise Refusal("late", deadline=deadline.isoformat(" ", "minutes"))
    return dataclasses.replace(request, reason=reason,
                               language=request.language if request.language in LANGUAGES else DEFAULT)


def deadline_of(config, assignment: str) -> datetime.datetime | None:
    """The end of ``assignment``'s regrade requests (``c.CourseKit.regrade_deadlines``; an edition's falls back to its
    master's), timezone-aware; None when the instructor opened none."""
    deadlines = CourseKit(config=config).regrade_deadlines if config is not None else {}
    text = deadlines.get(assignment) or deadlines.get(assignment_of(assignment, config).master)
    return _when(text) if text else None


def _when(text: str) -> datetime.datetime:
    moment = datetime.datetime.fromisoformat(str(text))
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def new_id() -> str:
    return secrets.token_hex(16)


def _course(exchange_root, course_id: str) -> pathlib.Path:
    return pathlib.Path(exchange_root) / course_id


def drop(exchange_root, course_id: str, request: Request) -> pathlib.Path:
    """(The student's server.) Write ``request`` into the exchange's drop folder, once: never over a file, never
    through a link."""
    path = _course(exchange_root, course_id) / FOLDER / f"{request.student}+{request.assignment}+{request.id}.json"
    data = json.dumps(request.to_dict(), ensure_ascii=False).encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return path


def _write(path: pathlib.Path, data, mode: int) -> None:
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False)
    os.chmod(temp, mode)
    os.replace(temp, path)


def publish_deadlines(exchange_root, course_id: str, config, assignments) -> dict:
    """(The instructor's side.) Make the drop and status folders and publish each of ``assignments``' deadline
    (null: not open); ``{assignment: ISO 8601 or None}``."""
    course = _course(exchange_root, course_id)
    for name, mode in ((FOLDER, 0o1733), (STATUS_FOLDER, 0o711)):
        (course / name).mkdir(parents=True, exist_ok=True)
        os.chmod(course / name, mode)
    published = {a: (lambda d: d.isoformat() if d else None)(deadline_of(config, a)) for a in assignments}
    _write(course / DEADLINES_FILE, published, 0o644)
    return published


def read_deadlines(exchange_root, course_id: str) -> dict:
    """(The student's server.) ``{assignment: deadline or None}`` as the course published them ({} when none)."""
    try:
        data = json.loads(read_capped(_course(exchange_root, course_id) / DEADLINES_FILE, FILE_MOST))
    except (UnreadableFile, ValueError):
        return {}
    return {str(a): _when(d) if isinstance(d, str) else None for a, d in data.items()} if isinstance(data, dict) else {}


@dataclasses.dataclass(frozen=True)
class Taken:
    """A request file read from the drop folder: the request (None when refused), its file and when it was filed."""
    path: pathlib.Path
    request: Request | None
    filed: datetime.datetime | None
    refusal: Refusal | None = None


def take_in(exchange_root, course_id: str, limits: Limits = Limits()) -> list:
    """(The instructor's side.) Every file of the drop folder as a :class:`Taken`, oldest first: read as a student's
    file (module docstring), its name matched against its content; nothing is removed (:func:`remove`)."""
    folder = _course(exchange_root, course_id) / FOLDER
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    taken = [_take(folder / name, limits) for name in names if not name.startswith(".")]
    return sorted(taken, key=lambda t: (t.filed is None, t.filed or 0, t.path.name))


def _take(path: pathlib.Path, limits: Limits) -> Taken:
    found = _NAME.match(path.name)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return Taken(path, None, None, Refusal("malformed"))
    filed = datetime.datetime.fromtimestamp(info.st_ctime, datetime.timezone.utc)
    if found is None or not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_size > FILE_MOST:
        return Taken(path, None, filed, Refusal("malformed"))
    if owner_refusal(found["student"], info.st_uid, limits) is not None:
        return Taken(path, None, filed, Refusal("owner"))
    try:
        request = Request.from_dict(json.loads(read_capped(path, FILE_MOST)))
    except (UnreadableFile, ValueError, RecursionError) as error:
        return Taken(path, None, filed, error if isinstance(error, Refusal) else Refusal("malformed"))
    if (request.student, request.assignment, request.id) != (found["student"], found["assignment"], found["id"]):
        return Taken(path, None, filed, Refusal("malformed"))
    return Taken(path, request, filed)


def remove(taken: Taken) -> None:
    """Remove a request's file once it is stored (or refused): the instructor owns the sticky folder."""
    try:
        os.unlink(taken.path)
    except FileNotFoundError:
        pass


def _status_path(exchange_root, course_id: str, request_id: str) -> pathlib.Path:
    name = hashlib.sha256((_SALT + request_id).encode()).hexdigest() + ".json"
    return _course(exchange_root, course_id) / STATUS_FOLDER / name


def publish_status(exchange_root, course_id: str, request_id: str, status: dict) -> None:
    """(The instructor's side.) What the student may know of their request (state, outcome, the TA's comment, the
    score before and after), where only its id finds it."""
    path = _status_path(exchange_root, course_id, request_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, status, 0o644)


def read_status(exchange_root, course_id: str, request_id: str) -> dict | None:
    """(The student's server.) The published status of the request ``request_id`` (None: none yet)."""
    if not _ID.match(request_id):
        return None
    try:
        data = json.loads(read_capped(_status_path(exchange_root, course_id, request_id), FILE_MOST))
    except (UnreadableFile, ValueError):
        return None
    return data if isinstance(data, dict) else None

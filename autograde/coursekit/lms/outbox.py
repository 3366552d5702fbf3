"""The course's side of the LMS on disk: what changed, what was posted, what waits; read and written by the
instructor's processes only (the grading service, the marking page, ``make grade``, the LMS sync).

A course is connected to an LMS when its folder holds ``lms/`` (the hub makes it when it runs with LTI settings;
:func:`connected`). Then:

* ``lms/changed/`` — one small file per (assignment, student) whose score may have changed (:func:`mark`), or
  ``all.json`` for "anyone's" (:func:`mark_everyone`): what the grading service, the marking page and ``make grade``
  write, in microseconds, never waiting for the LMS. A marker is removed only once its score is in the LMS
  (or there is nothing to post); a marker written again meanwhile stays for the next round.
* ``posted.json`` — the ledger: each (line item, student)'s last score the LMS accepted, and when. A score equal to
  it is not posted again: posting is idempotent.
* ``state.json`` — what the course learned from the LMS: for each of the course's own LMS contexts (``contexts``)
  its line items and membership URLs and each line item's URL (found or made once); each learner's context
  (``sections``); and the LMS being down (since when, why, when it is tried again).

Standard library only; every time comes from the caller's clock, so the retry rules are tested without waiting.
"""
import contextlib
import dataclasses
import hashlib
import json
import os
import pathlib
import tempfile
import time

from ..language import WORDS
from ..settings import course_settings

__all__ = ["FOLDER", "write_json", "Marker", "connected", "folder", "mark", "mark_everyone", "markers", "done",
           "Ledger", "State", "backoff", "status_line"]

FOLDER = "lms"
EVERYONE = "all.json"
RETRY_SECONDS = (5.0, 300.0)  # the first wait after the LMS failed, doubling up to the second


def folder(course) -> pathlib.Path:
    return pathlib.Path(course) / FOLDER


def connected(course) -> bool:
    """Is the course connected to an LMS (``<course>/lms/`` exists)?"""
    return folder(course).is_dir()


def write_json(path: pathlib.Path, data) -> None:
    """``data`` as JSON into ``path`` with one rename: a reader sees the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False, indent=1, sort_keys=True)
    os.replace(tmp, path)


def _read_json(path: pathlib.Path, default):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


@dataclasses.dataclass(frozen=True)
class Marker:
    path: pathlib.Path
    text: str          # as read: removed only if still this
    assignment: str    # "" with student "": everyone's
    student: str

    @property
    def everyone(self) -> bool:
        return not self.student


def _name(assignment: str, student: str) -> str:
    return hashlib.sha256(f"{assignment}\n{student}".encode()).hexdigest()[:24] + ".json"


def mark(course, assignment: str, students, why: str, now=time.time) -> bool:
    """The scores of ``assignment`` of ``students`` may have changed; False (nothing written) when not connected.
    The hooks of the grading service, the marking page and ``make grade`` call this: it never raises (a marker that
    cannot be written is the machine's fault, found again by ``make lms-sync``), and it never waits for the LMS."""
    if not connected(course):
        return False
    try:
        for student in students:
            write_json(folder(course) / "changed" / _name(assignment, student),
                        {"assignment": assignment, "student": student, "why": why, "at": now()})
    except OSError:
        return False
    return True


def mark_everyone(course, why: str, now=time.time) -> bool:
    """Anyone's score may have changed (``make grade``, ``make lms-sync``); False when not connected (or not
    written: never raises, as :func:`mark`)."""
    if not connected(course):
        return False
    try:
        write_json(folder(course) / "changed" / EVERYONE, {"assignment": "", "student": "", "why": why, "at": now()})
    except OSError:
        return False
    return True


def markers(course) -> list:
    """The markers waiting, oldest first (unreadable ones are skipped: a marker being written is seen next round)."""
    found = []
    for path in sorted((folder(course) / "changed").glob("*.json"), key=lambda p: p.stat().st_mtime_ns):
        with contextlib.suppress(OSError, ValueError, KeyError):
            text = path.read_text(encoding="utf-8")
            data = json.loads(text)
            found.append(Marker(path, text, str(data["assignment"]), str(data["student"])))
    return found


def done(marker: Marker) -> None:
    """Remove ``marker`` unless it was written again since it was read."""
    with contextlib.suppress(OSError):
        if marker.path.read_text(encoding="utf-8") == marker.text:
            marker.path.unlink()


def _key(key: tuple) -> str:
    return "\n".join(key)


class Ledger:
    """``posted.json``: each (line item, student)'s last score the LMS accepted."""

    def __init__(self, course):
        self.path = folder(course) / "posted.json"
        self.entries = _read_json(self.path, {})

    def same(self, key: tuple, body: dict) -> bool:
        return self.entries.get(_key(key), {}).get("body") == body

    def posted(self, key: tuple, body: dict, timestamp: str, now: float) -> None:
        self.entries[_key(key)] = {"body": body, "timestamp": timestamp, "at": now}
        write_json(self.path, self.entries)

    def last(self) -> float:
        return max((e["at"] for e in self.entries.values()), default=0.0)


def backoff(attempts: int, first: float = RETRY_SECONDS[0], most: float = RETRY_SECONDS[1]) -> float:
    """Seconds before try number ``attempts + 1`` after ``attempts`` failed ones in a row."""
    return min(most, first * 2 ** max(0, attempts - 1))


class State:
    """``state.json``: each context's service and line item URLs, each learner's context, whether the LMS is down."""

    def __init__(self, course):
        self.path = folder(course) / "state.json"
        self.data = _read_json(self.path, {})

    def get(self, name: str, default=None):
        return self.data.get(name, default)

    def set(self, **values) -> None:
        self.data.update(values)
        write_json(self.path, self.data)

    def failed(self, cause: str, now: float) -> float:
        """The LMS failed (the machine's fault): remembered with when to try again; that time."""
        down = self.data.get("down") or {"since": now, "attempts": 0}
        attempts = down["attempts"] + 1
        self.set(down={"since": down["since"], "attempts": attempts, "cause": cause,
                       "retry_at": now + backoff(attempts)})
        return self.data["down"]["retry_at"]

    def answered(self) -> None:
        if self.data.get("down"):
            self.set(down=None)

    def may_try(self, now: float) -> bool:
        down = self.data.get("down")
        return not down or now >= down["retry_at"]


def _clock(seconds: float, lang: str) -> str:
    return time.strftime("%H:%M:%S", time.localtime(seconds)) if seconds else WORDS.say(lang, "lms.never")


def _refused_lines(refused: dict, lang: str) -> str:
    """The scores the LMS (or the course: no line item to post to yet) refused, one line per reason."""
    by_cause = {}
    for name, entry in sorted(refused.items()):
        by_cause.setdefault(entry["cause"], []).append((name, entry["retry_at"]))
    return "".join(WORDS.say(lang, "lms.refused_line", count=len(names), cause=cause,
                             names=", ".join(n for n, _ in names[:3]), more=" …" if len(names) > 3 else "",
                             retry=_clock(min(t for _, t in names), lang))
                   for cause, names in by_cause.items())


def status_line(course) -> str:
    """One line for ``make service-status``, in the course's language: how many scores wait for the LMS and why, then
    one per reason a score was refused; "" when not connected."""
    if not connected(course):
        return ""
    lang = course_settings(course).language
    waiting, state, ledger = markers(course), State(course), Ledger(course)
    posted = WORDS.say(lang, "lms.in_the_lms", count=len(ledger.entries), last=_clock(ledger.last(), lang))
    down, refused = state.get("down"), _refused_lines(state.get("refused") or {}, lang)
    if down:
        return WORDS.say(lang, "lms.status_down", waiting=len(waiting), since=_clock(down["since"], lang),
                         cause=down["cause"], retry=_clock(down["retry_at"], lang), posted=posted, refused=refused)
    return WORDS.say(lang, "lms.status", waiting=len(waiting), posted=posted, refused=refused)

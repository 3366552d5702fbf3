"""When a piece of work is due, for the class and for one student: the due date and the per-student extensions.

**One due date per piece of work**, where nbgrader keeps it: the gradebook's ``Assignment.duedate`` (the formgrader's
"Manage assignments", ``nbgrader db assignment add … --duedate``, or ``make due``). The editions of one master are one
piece of work: the master's date is theirs (:func:`due_date`); an edition's own row gets a copy (:func:`sync`), because
nbgrader computes lateness from each assignment's own row.

**Extensions** have no home in nbgrader before a student has submitted (``SubmittedAssignment.extension`` is a
column of the submission; nbgrader#943, #660). They live in the gradebook too, in a table of the course's own,
:data:`TABLE`: the one database every course command already opens by one rule (SQLite or PostgreSQL, on the hub and
with ``make``, shared by ``make grade SHARD=…`` pods, with transactions for two writers at once), never a file beside
it. A row is written, never changed: who granted it, when, until when and why; the newest row of a student and a
piece of work is their extension (its ``until`` None: withdrawn). nbgrader's own column is kept equal to it by
:func:`sync`, so ``nbgrader export`` and its ``total_seconds_late`` count the extension as the course does.

Times are naive UTC, as nbgrader stores them; :func:`parse_when` reads what an instructor types.
"""
import dataclasses
import datetime
import zoneinfo

from nbgrader.api import Assignment, MissingEntry, Student, SubmittedAssignment
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, Text, select

from .assignments import assignment_of, editions_of
from .language import Refusal, marked

__all__ = ["TABLE", "Extension", "BadExtension", "parse_when", "due_date", "extension_of", "extensions_of",
           "due_for", "grant", "published", "set_due_date", "sync", "utc_text", "zone_text"]

_METADATA = MetaData()
TABLE = Table(
    "coursekit_extension", _METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("assignment", String(128), nullable=False, index=True),  # the master: the piece of work
    Column("student", String(128), nullable=False),
    Column("until", DateTime, nullable=True),   # naive UTC; None: the extension was withdrawn
    Column("reason", Text, nullable=False),
    Column("granted_by", String(128), nullable=False),
    Column("granted_at", DateTime, nullable=False),
)


class BadExtension(Refusal):
    """An extension or a due date refused, with what was wrong and what was expected; nothing was changed. Said in
    the course's language by make due / make extend, in the page's by the marking page."""


@dataclasses.dataclass(frozen=True)
class Extension:
    assignment: str                      # the master
    student: str
    until: datetime.datetime | None      # naive UTC; None: withdrawn
    reason: str
    granted_by: str
    granted_at: datetime.datetime        # naive UTC


def utc_text(when: datetime.datetime | None) -> str:
    """A naive UTC time as ISO 8601 with its zone (``2027-01-15T15:59:00+00:00``); "" for None."""
    return "" if when is None else when.replace(tzinfo=datetime.timezone.utc).isoformat()


def zone_text(when: datetime.datetime | None, timezone: str = "UTC") -> str:
    """A naive UTC time as a person reads it in ``timezone``, its offset said: ``2027-01-15 23:59 (UTC+08:00)``."""
    if when is None:
        return ""
    local = when.replace(tzinfo=datetime.timezone.utc).astimezone(zoneinfo.ZoneInfo(timezone))
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M} (UTC{offset[:3]}:{offset[3:]})"


def parse_when(text: str, timezone: str = "UTC", what: str = "UNTIL") -> datetime.datetime:
    """``"2027-01-20 23:59"``, ``"2027-01-20T23:59:00+08:00"``, ``"2027-01-20"`` (its end of day) -> naive UTC.

    A time without a zone is in ``timezone`` (the course's, ``c.CourseKit.timezone``). A text that is not a date is a
    :class:`BadExtension` naming ``what`` and the form expected."""
    text = str(text).strip()
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise BadExtension(marked("dates.refused_not_a_date"), what=what, text=text, timezone=timezone) from None
    if len(text) == 10:  # a day only: until its end
        when = when.replace(hour=23, minute=59, second=59)
    if when.tzinfo is None:
        when = when.replace(tzinfo=zoneinfo.ZoneInfo(timezone))
    return when.astimezone(datetime.timezone.utc).replace(tzinfo=None)


def _master(assignment: str, config) -> str:
    return assignment_of(assignment, config).master


def due_date(gradebook, assignment: str, config=None) -> datetime.datetime | None:
    """The due date of ``assignment``'s piece of work (naive UTC): its master's in the gradebook, else its own; None
    when neither has one (or the gradebook does not know the assignment)."""
    for name in dict.fromkeys((_master(assignment, config), assignment)):
        try:
            due = gradebook.find_assignment(name).duedate
        except MissingEntry:
            continue
        if due is not None:
            return due
    return None


def _table(gradebook) -> Table:
    """:data:`TABLE`, made in ``gradebook`` the first time (in its own transaction's connection: SQLite's one writer)."""
    _METADATA.create_all(gradebook.db.connection(), checkfirst=True)
    return TABLE


def due_for(gradebook, assignment: str, student: str, config=None) -> datetime.datetime | None:
    """Until when ``student`` may hand ``assignment`` in on time: their extension's end, else the due date."""
    extension = extension_of(gradebook, assignment, student, config)
    return extension.until if extension is not None else due_date(gradebook, assignment, config)


def _rows(gradebook, master: str, student: str | None = None):
    _table(gradebook)
    query = select(TABLE).where(TABLE.c.assignment == master).order_by(TABLE.c.id)
    if student is not None:
        query = query.where(TABLE.c.student == student)
    return gradebook.db.execute(query).all()


def _extension(row) -> Extension:
    return Extension(row.assignment, row.student, row.until, row.reason, row.granted_by, row.granted_at)


def extensions_of(gradebook, assignment: str, config=None, history: bool = False) -> dict:
    """``{student: Extension}``: each student's extension of ``assignment``'s piece of work (withdrawn ones left
    out); ``history``: ``{student: [Extension, …]}``, every row, oldest first."""
    found = {}
    for row in _rows(gradebook, _master(assignment, config)):
        found.setdefault(row.student, []).append(_extension(row))
    if history:
        return found
    return {student: rows[-1] for student, rows in found.items() if rows[-1].until is not None}


def extension_of(gradebook, assignment: str, student: str, config=None) -> Extension | None:
    """``student``'s extension of ``assignment``'s piece of work; None when they have none."""
    rows = _rows(gradebook, _master(assignment, config), student)
    newest = _extension(rows[-1]) if rows else None
    return newest if newest is not None and newest.until is not None else None


def grant(gradebook, assignment: str, student: str, until: datetime.datetime | None, reason: str, granted_by: str,
          config=None, now: datetime.datetime | None = None, timezone: str = "UTC") -> Extension:
    """Record that ``student`` may hand ``assignment``'s piece of work in until ``until`` (naive UTC; None withdraws
    it), granted by ``granted_by`` for ``reason``, and give it to nbgrader's submissions (:func:`sync`).

    Refused (:class:`BadExtension`, nothing written): a student the gradebook does not know, an assignment it does
    not know, a piece of work without a due date, or ``until`` not after the due date (said in ``timezone``)."""
    master = _master(assignment, config)
    if gradebook.db.get(Student, student) is None:
        known = sorted(s for (s,) in gradebook.db.query(Student.id))
        raise BadExtension(marked("dates.refused_not_a_student"), student=student, count=len(known),
                           known=", ".join(known[:8]) + (" …" if len(known) > 8 else ""))
    if gradebook.db.query(Assignment).filter(Assignment.name == master).first() is None:
        raise BadExtension(marked("dates.refused_not_released"), assignment=master)
    due = due_date(gradebook, master, config)
    if until is not None and due is None:
        raise BadExtension(marked("dates.refused_no_due_date"), assignment=master)
    if until is not None and until <= due:
        raise BadExtension(marked("dates.refused_not_after"), until=zone_text(until, timezone), assignment=master,
                           due=zone_text(due, timezone))
    now = now or datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    gradebook.db.execute(_table(gradebook).insert().values(assignment=master, student=student, until=until, reason=reason or "",
                                               granted_by=granted_by, granted_at=now))
    sync(gradebook, master, student, config)
    gradebook.db.commit()
    return Extension(master, student, until, reason or "", granted_by, now)


def set_due_date(gradebook, assignment: str, due: datetime.datetime | None, config=None) -> list:
    """``assignment``'s piece of work due at ``due`` (naive UTC; None: none), written on the master and each of its
    editions in the gradebook, and each submission's extension re-counted from it; the assignments written."""
    names = [name for name in editions_of(assignment, config).values()
             if gradebook.db.query(Assignment).filter(Assignment.name == name).first() is not None]
    if not names:
        raise BadExtension(marked("dates.refused_not_released"), assignment=assignment)
    for name in names:
        gradebook.find_assignment(name).duedate = due
    for (student,) in gradebook.db.query(Student.id):
        sync(gradebook, names[0], student, config)
    gradebook.db.commit()
    return names


def sync(gradebook, assignment: str, student: str, config=None) -> None:
    """nbgrader's columns made to say what the course says, for every edition of ``assignment``'s piece of work: each
    edition's ``Assignment.duedate`` the master's, and ``student``'s submission's ``extension`` the time from it to
    their extension's end (None without one). Not committed."""
    due = due_date(gradebook, assignment, config)
    extension = extension_of(gradebook, assignment, student, config)
    for name in editions_of(assignment, config).values():
        row = gradebook.db.query(Assignment).filter(Assignment.name == name).first()
        if row is None:
            continue
        if due is not None and row.duedate != due:
            row.duedate = due
        submission = (gradebook.db.query(SubmittedAssignment)
                      .filter(SubmittedAssignment.assignment_id == row.id, SubmittedAssignment.student_id == student)
                      .first())
        if submission is not None:
            later = extension.until - due if extension is not None and due is not None else None
            submission.extension = later if later is not None and later > datetime.timedelta(0) else None


def published(gradebook, config=None) -> tuple:
    """What students may know, for :func:`coursekit.service.student_status.publish_dates`: ``({assignment: due date},
    {student: {assignment: their extension's end}})`` as ISO 8601 UTC, every assignment (each edition) with a due
    date; a student whose extensions were all withdrawn has ``{}``."""
    due, ends = {}, {}
    for assignment in gradebook.assignments:
        when = due_date(gradebook, assignment.name, config)
        if when is None:
            continue
        due[assignment.name] = utc_text(when)
        for student, rows in extensions_of(gradebook, assignment.name, config, history=True).items():
            ends.setdefault(student, {})
            if rows[-1].until is not None:
                ends[student][assignment.name] = utc_text(rows[-1].until)
    return due, ends

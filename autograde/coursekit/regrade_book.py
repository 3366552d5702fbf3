"""Where regrade requests live once the course has taken them in: a table of the course's gradebook.

The gradebook, not a course file: a request is about a mark, and a decision may change one, so both are written in
one transaction of one database; a PostgreSQL gradebook shared by several markers' servers shows every request to
each of them; and the gradebook is what the course already backs up and archives (``make hub-remove``). The table
``coursekit_regrade_requests`` is the course's own, beside nbgrader's (which ignores it): made the first time it is
needed, one row per request, never deleted.

:func:`take_in` moves the requests students dropped in the exchange (:mod:`coursekit.regrades`) into it, checking
each again against the gradebook (the question is a graded cell of the assignment, the student has a submission of
it, filed before the deadline); :func:`requests` lists them (open first), :func:`decide` records the TA's decision
with who and when, and :func:`counts` gives ``make report`` its numbers. A request never changes a mark: the TA does,
on the marking page, and the decision records the mark before and after. The score of one cell is read in one place,
:func:`cell_score`.
"""
import dataclasses
import datetime

from nbgrader.api import Assignment, BaseCell, Grade, GradeCell, Notebook, Student, SubmittedNotebook, TaskCell
from sqlalchemy import Column, DateTime, Float, MetaData, String, Table, Text, func, insert, select, update
from sqlalchemy.orm import Session

from .gradebook import submitted
from .printable import printable
from .inbound import limits_of
from .regrades import Refusal, Taken, check, deadline_of, publish_deadlines, remove, take_in as files_in
from .settings import course_config, course_settings

__all__ = ["OPEN", "KEPT", "CHANGED", "Record", "ensure", "take_in_course", "take_in", "requests", "decide", "counts",
           "cell_score"]

OPEN, KEPT, CHANGED = "open", "kept", "changed"
_METADATA = MetaData()
TABLE = Table(
    "coursekit_regrade_requests", _METADATA,
    Column("id", String(32), primary_key=True),
    Column("assignment", String(128), nullable=False, index=True),
    Column("student", String(128), nullable=False),
    Column("question", String(128), nullable=False),
    Column("notebook", String(128), nullable=False),
    Column("submission", String(64), nullable=False),
    Column("reason", Text, nullable=False),
    Column("language", String(8), nullable=False),
    Column("filed_at", DateTime, nullable=False),       # naive UTC, as nbgrader keeps times
    Column("score_then", Float),                        # the cell's score when the request was taken in
    Column("state", String(16), nullable=False),        # OPEN, KEPT or CHANGED
    Column("comment", Text),                            # the TA's, shown to the student
    Column("decided_by", String(128)),
    Column("decided_at", DateTime),
    Column("score_after", Float),
)


@dataclasses.dataclass(frozen=True)
class Record:
    id: str
    assignment: str
    student: str
    question: str
    notebook: str
    submission: str
    reason: str
    language: str
    filed_at: datetime.datetime
    score_then: float | None
    state: str
    comment: str | None = None
    decided_by: str | None = None
    decided_at: datetime.datetime | None = None
    score_after: float | None = None

    @property
    def open(self) -> bool:
        return self.state == OPEN


def ensure(engine) -> None:
    """Make the table in ``engine``'s gradebook unless it is there. Asked of the database every time (one query):
    a gradebook can be replaced under a running process, and a cache keyed by the engine's ``id`` was wrong once a
    disposed engine's ``id`` was reused by the next one."""
    _METADATA.create_all(engine, checkfirst=True)


def _graded_cells(db, assignment: str) -> dict:
    """{grade id: notebook} of the assignment's graded cells (written answers, tasks, test cells)."""
    cells = {}
    for kind in (GradeCell, TaskCell):
        rows = (db.query(kind.name, Notebook.name).join(Notebook, kind.notebook_id == Notebook.id)
                .join(Assignment, Notebook.assignment_id == Assignment.id).filter(Assignment.name == assignment))
        cells.update(dict(rows))
    return cells


def cell_score(db, assignment: str, student: str, question: str) -> float | None:
    """``student``'s score of the cell ``question`` as the gradebook holds it now (None: no submission, or not scored).
    The one place the regrades read a score: nbgrader's ``Grade.score``, manual if set, else automatic, plus extra
    credit."""
    query = (db.query(Grade.auto_score, Grade.manual_score, Grade.extra_credit)
             .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
             .join(BaseCell, Grade.cell_id == BaseCell.id)
             .filter(BaseCell.name == question))
    row = submitted(query, assignment).filter(Student.id == student).first()
    if row is None or (row[0] is None and row[1] is None):
        return None
    auto, manual, extra = row
    return float(manual if manual is not None else auto) + float(extra or 0.0)


def take_in_course(course, engine, log=None) -> tuple:
    """Publish the course's deadlines in its exchange and take in every request waiting there (:func:`take_in`):
    what the marking page and ``make report`` do before they read the requests; ([], []) without an exchange."""
    settings, config = course_settings(course), course_config(course)
    if not settings.exchange:
        return [], []
    with Session(engine) as db:
        assignments = [name for (name,) in db.query(Assignment.name)]
    publish_deadlines(settings.exchange, settings.course_id, config, assignments)
    return take_in(engine, settings.exchange, settings.course_id, config, limits_of(config), log)


def take_in(engine, exchange_root, course_id: str, config, limits, log=None) -> tuple:
    """Store every request the exchange holds that passes the checks again, remove its file; (stored, refused),
    each refusal logged with its file's name (the student's to choose: control characters escaped)."""
    ensure(engine)
    stored, refused = [], []
    for taken in files_in(exchange_root, course_id, limits):
        try:
            record = _record(engine, taken, config)
        except Refusal as refusal:
            refused.append((taken, refusal))
            if log is not None:
                log.warning(printable(f"regrade request {taken.path.name} refused: {refusal.kind}", one_line=True))
        else:
            if record is not None:
                stored.append(record)
        remove(taken)
    return stored, refused


def _record(engine, taken: Taken, config) -> Record | None:
    if taken.refusal is not None:
        raise taken.refusal
    request = taken.request
    with Session(engine) as db, db.begin():
        if db.execute(select(TABLE.c.id).where(TABLE.c.id == request.id)).first() is not None:
            return None  # stored before; its file is only being removed now
        cells = _graded_cells(db, request.assignment)
        request = check(request, cells, deadline_of(config, request.assignment), taken.filed)
        score = cell_score(db, request.assignment, request.student, request.question)
        if score is None and not _has_submission(db, request.assignment, request.student):
            raise Refusal("question")
        if db.execute(select(TABLE.c.id).where(TABLE.c.assignment == request.assignment,
                                               TABLE.c.student == request.student,
                                               TABLE.c.question == request.question,
                                               TABLE.c.state == OPEN)).first() is not None:
            raise Refusal("already")
        values = {"id": request.id, "assignment": request.assignment, "student": request.student,
                  "question": request.question, "notebook": cells[request.question], "submission": request.submission,
                  "reason": request.reason, "language": request.language,
                  "filed_at": taken.filed.astimezone(datetime.timezone.utc).replace(tzinfo=None), "score_then": score,
                  "state": OPEN}
        db.execute(insert(TABLE).values(**values))
    return Record(**values)


def _has_submission(db, assignment: str, student: str) -> bool:
    query = db.query(Student.id).select_from(SubmittedNotebook)
    return submitted(query, assignment).filter(Student.id == student).first() is not None


def requests(engine, assignment: str | None = None) -> list:
    """Every stored request (of ``assignment``), open ones first, each group oldest first (:class:`Record`)."""
    ensure(engine)
    query = select(TABLE)
    if assignment is not None:
        query = query.where(TABLE.c.assignment == assignment)
    with Session(engine) as db:
        rows = [Record(**row._mapping) for row in db.execute(query)]
    return sorted(rows, key=lambda r: (not r.open, r.filed_at, r.id))


def decide(engine, ids, comment: str, by: str, at: datetime.datetime | None = None) -> list:
    """Record the TA's decision on the open requests ``ids``: kept or changed by the cell's score now against the score
    when filed, the comment, who and when (UTC). The decided :class:`Record` s (requests already decided are left)."""
    at = (at or datetime.datetime.now(datetime.timezone.utc)).astimezone(datetime.timezone.utc).replace(tzinfo=None)
    decided = []
    with Session(engine) as db, db.begin():
        for record in [Record(**row._mapping) for row in db.execute(select(TABLE).where(TABLE.c.id.in_(list(ids))))]:
            if not record.open:
                continue
            now = cell_score(db, record.assignment, record.student, record.question)
            state = KEPT if now == record.score_then else CHANGED
            values = {"state": state, "comment": comment, "decided_by": by, "decided_at": at, "score_after": now}
            db.execute(update(TABLE).where(TABLE.c.id == record.id).values(**values))
            decided.append(dataclasses.replace(record, **values))
    return decided


def counts(engine, assignment: str) -> dict:
    """``{question: {"filed": n, "open": n, "changed": n, "kept": n}}`` of ``assignment``'s requests."""
    ensure(engine)
    found = {}
    with Session(engine) as db:
        rows = db.execute(select(TABLE.c.question, TABLE.c.state, func.count()).where(TABLE.c.assignment == assignment)
                          .group_by(TABLE.c.question, TABLE.c.state))
        for question, state, n in rows:
            tally = found.setdefault(question, {"filed": 0, OPEN: 0, CHANGED: 0, KEPT: 0})
            tally["filed"] += n
            tally[state] = tally.get(state, 0) + n
    return found

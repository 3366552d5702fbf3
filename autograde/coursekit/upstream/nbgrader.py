"""nbgrader's rules that the course's plug-ins re-use, and the three patches its commands apply.

nbgrader 0.9 keeps these behind private methods or inside longer ones, with no hook to reach them; each is
re-written here once, fingerprinted by tests/unit/test_upstream.py. Proposals for the hooks that would make
them unnecessary: ``docs/upstream/nbgrader-*.md``.

Rules (copies):

* :func:`remove_hidden_tests` — ``ClearHiddenTests``' removal of a hidden-test region from one cell;
* :func:`auto_score`, :func:`auto_comment` — what ``SaveAutoGrades`` writes for a graded cell;
* :func:`show_score` — what ``GetGrades`` writes into a graded cell for the feedback page;
* :func:`late_penalty` — what ``AssignLatePenalties`` writes as a submitted notebook's late penalty, and
  :func:`exported_score` — the score ``nbgrader export`` writes from a submission's score and penalty;
* :class:`CellsAtOnce` — the gradebook's ``find_source_cell``/``find_graded_cell`` for one notebook, from one
  query per kind of cell;
* :func:`released_pages` — which feedback pages ``release_feedback`` copies to the exchange, per student;
* :func:`parse_submission_name`, :data:`SECRET_FILE` — a submission's folder in the exchange, as ``submit``
  names it and ``collect`` reads it; :data:`SHARED_UNIX_USER` — the account whose submissions ``submit`` names
  after ``$JUPYTERHUB_USER`` instead;
* ``collect``'s choices, for the course's collect (:mod:`coursekit.exchange`): which of a student's
  submissions it takes (:func:`collected_submission`), whether it copies it (:func:`should_collect`), which files
  it leaves out (:func:`left_out`) and the group's rights it gives a group-shared course (:func:`share_with_group`);
* the texts the course compares with: :data:`NO_RESPONSE_COMMENT`, :data:`NO_RESPONSE_ERROR`. (The defaults
  :mod:`coursekit.settings` falls back on, read without importing nbgrader, are checked by value in the test.)

Patches, applied only by the commands that want them (never by importing this module or the course config):

* :func:`share_engines` — one SQLAlchemy engine per gradebook URL in a process (the grading workers);
* :func:`check_schemas_once` — nbgrader's metadata check with each schema checked once (the grading workers);
* :func:`fold_validate_results` — ``Validator.validate``'s results through the course's function (the
  students' server extension, :mod:`coursekit.plugins.students`).
"""
import collections
import os
import re
import threading
import types

import sqlalchemy
import sqlalchemy.orm
from nbgrader import api, utils
from nbgrader.api import Assignment, GradeCell, Notebook, SourceCell, TaskCell
from nbgrader.nbgraderformat import common
from nbgrader.preprocessors import ClearHiddenTests
from nbgrader.utils import parse_utc
from nbgrader.validator import Validator

__all__ = ["CellsAtOnce", "NO_RESPONSE_COMMENT", "NO_RESPONSE_ERROR",
           "SECRET_FILE", "SECRET_LENGTH", "auto_comment", "auto_score", "exported_score", "late_penalty", "check_schemas_once", "create_all",
           "create_engine", "fold_validate_results", "parse_submission_name", "released_pages", "remove_hidden_tests",
           "sessionmaker", "share_engines", "show_score", "SHARED_UNIX_USER", "collected_submission", "should_collect",
           "left_out", "share_with_group"]

NO_RESPONSE_COMMENT = "No response."  # SaveAutoGrades' auto comment on an answer left as released
NO_RESPONSE_ERROR = "You did not provide a response."  # Validator's error for an answer left as released
SECRET_FILE, SECRET_LENGTH = "submission_secret.txt", 128  # submit writes secrets.token_hex(64) there, last
SHARED_UNIX_USER = "jovyan"  # get_username: a server running as this user submits as $JUPYTERHUB_USER


# ---------- rules ----------

def remove_hidden_tests(cell, preprocessor=None) -> bool:
    """Remove the hidden-test region of ``cell`` (its source changed in place) with ``preprocessor``'s delimiters
    (a ``ClearHiddenTests``; nbgrader's defaults when None); whether there was one."""
    return (preprocessor or ClearHiddenTests())._remove_hidden_test_region(cell)


def auto_score(grade, cell, log) -> None:
    """``SaveAutoGrades``' rule for a grade cell's row: the cell's score; manual grading needed when an instructor
    already gave a manual score or there is no automatic one (a written answer)."""
    grade.auto_score, _ = utils.determine_grade(cell, log)
    grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None


def auto_comment(comment, cell) -> None:
    """``SaveAutoGrades``' rule for a solution cell's comment: "No response." when the cell is as released (same
    checksum), else none; a task cell never gets it."""
    as_released = cell.metadata.nbgrader.get("checksum", None) == utils.compute_checksum(cell)
    comment.auto_comment = NO_RESPONSE_COMMENT if as_released and not utils.is_task(cell) else None


def show_score(cell, grade) -> None:
    """What ``GetGrades`` writes into a graded cell for the feedback page: ``grade``'s score and points."""
    cell.metadata.nbgrader["score"], cell.metadata.nbgrader["points"] = grade.score, grade.max_score


def late_penalty(plugin, student: str, score: float, seconds_late: float) -> float | None:
    """``AssignLatePenalties``' rule for one submitted notebook scoring ``score``, handed in ``seconds_late`` after
    its due date (its extension counted): None when on time; else what ``plugin`` (a ``LateSubmissionPlugin``) asks,
    kept between 0 and ``score`` (None when it asks none)."""
    if seconds_late <= 0:
        return None
    penalty = plugin.late_submission_penalty(student, score, seconds_late)
    if penalty is None:
        return None
    return 0 if penalty < 0 else score if penalty > score else penalty


def exported_score(score: float, penalty: float) -> float:
    """The ``score`` column of ``nbgrader export``'s CSV: a submission's score less its late penalty, never below 0."""
    return max(0.0, score - penalty)


class CellsAtOnce:
    """A ``Gradebook`` whose ``find_source_cell`` and ``find_graded_cell`` for one notebook come from one query
    per kind of cell; anything else (and a name that is missing or not unique) is the gradebook's own answer.

    nbgrader's ``OverwriteCells`` looks each nbgrader cell up with queries of its own: about 50 ORM queries per
    student, a quarter of a ``make grade`` worker's CPU."""

    def __init__(self, gradebook, notebook: str, assignment: str):
        self.gradebook, self._notebook = gradebook, (notebook, assignment)
        self._source = self._unique(SourceCell)
        self._graded = {**self._unique(TaskCell), **self._unique(GradeCell)}  # nbgrader tries GradeCell first

    def _unique(self, kind) -> dict:
        notebook, assignment = self._notebook
        rows = (self.gradebook.db.query(kind)
                .join(Notebook, Notebook.id == kind.notebook_id)
                .join(Assignment, Assignment.id == Notebook.assignment_id)
                .filter(Notebook.name == notebook, Assignment.name == assignment).all())
        count = collections.Counter(row.name for row in rows)
        return {row.name: row for row in rows if count[row.name] == 1}

    def find_source_cell(self, name: str, notebook: str, assignment: str):
        if (notebook, assignment) == self._notebook and name in self._source:
            return self._source[name]
        return self.gradebook.find_source_cell(name, notebook, assignment)

    def find_graded_cell(self, name: str, notebook: str, assignment: str):
        if (notebook, assignment) == self._notebook and name in self._graded:
            return self._graded[name]
        return self.gradebook.find_graded_cell(name, notebook, assignment)

    def __getattr__(self, name: str):
        return getattr(self.gradebook, name)

    def __enter__(self):
        self.gradebook.__enter__()
        return self

    def __exit__(self, *exc):
        return self.gradebook.__exit__(*exc)


def released_pages(coursedir, src_path: str) -> dict:
    """``{student: [page, …]}`` of the feedback pages ``release_feedback`` copies from ``src_path`` (its glob, its
    pattern of ``feedback/<student>/<assignment>/``, its excluded students)."""
    import glob
    import pathlib

    excluded = set(filter(None, (coursedir.student_id_exclude or "").split(",")))
    pattern = re.escape(os.path.sep).join([
        coursedir.format_path(coursedir.feedback_directory, "(?P<student_id>.*)", coursedir.assignment_id, escape=True),
        ".*\\.html"])
    pages = {}
    for page in sorted(glob.glob(os.path.join(src_path, "*.html"))):
        found = re.match(pattern, page)
        if found and found.group("student_id") not in excluded:
            pages.setdefault(found.group("student_id"), []).append(pathlib.Path(page))
    return pages


def parse_submission_name(name: str, parse_time=parse_utc):
    """``"s1+ch04_attention+2026-12-01 15:30:01.123456 UTC+Ab3"`` -> (student, assignment, timestamp); None when
    not one. Split from the right as ``collect`` does, so a student id may hold ``+``. ``parse_time``: nbgrader's
    ``parse_utc`` or a cached one."""
    parts = name.rsplit("+", 3)
    if len(parts) == 4:
        student, assignment, timestamp, _random = parts
    elif len(parts) == 3:
        student, assignment, timestamp = parts
    else:
        return None
    try:
        parse_time(timestamp)
    except (ValueError, OverflowError):
        return None
    return (student, assignment, timestamp) if student and assignment else None



# ---------- rules: what collect copies ----------

def collected_submission(newest_first: list, duedate, before_duedate: bool):
    """``ExchangeCollect.init_src``'s choice among one student's submissions (``newest_first``: items with ``when``,
    a datetime): the newest, or with ``--before-duedate`` and a due date the newest made by then, if any."""
    if duedate is not None and before_duedate:
        in_time = [item for item in newest_first if item.when <= duedate]
        if in_time:
            return in_time[0]
    return newest_first[0]


def should_collect(existing, new, update: bool, before_duedate: bool) -> bool:
    """``ExchangeCollect.copy_files``' rule for a student whose ``submitted/`` folder exists with timestamp
    ``existing`` (None when it has none): copy the submission of ``new`` over it?"""
    if update and (existing is None or new > existing):
        return True
    return before_duedate and existing != new


def left_out(name: str, is_file: bool, size: int, coursedir):
    """Why ``nbgrader.utils.ignore_patterns`` (what ``do_copy`` copies, by ``coursedir``'s ignore, include and
    max_file_size) leaves out the entry ``name`` (a file of ``size`` bytes, or a folder): (log level, message), or
    None when it is copied."""
    import fnmatch

    if any(fnmatch.fnmatch(name, glob) for glob in coursedir.ignore or ()):
        return "debug", f"Ignoring excluded file '{name}' (see config option CourseDirectory.ignore)"
    if is_file and coursedir.include and not any(fnmatch.fnmatch(name, glob) for glob in coursedir.include):
        return "debug", f"Ignoring non included file '{name}' (see config option CourseDirectory.include)"
    if is_file and coursedir.max_file_size and size > 1000 * coursedir.max_file_size:
        return "warning", f"Ignoring file too large '{name}' (see config option CourseDirectory.max_file_size)"
    return None


def share_with_group(dest, log) -> None:
    """What ``Exchange.do_copy`` does after copying into ``dest`` for a group-shared course: folders ug+rwx and
    setgid, files ug+rw, each change that fails logged."""
    for folder, _, files in os.walk(dest):
        for path, wanted, keep in [(folder, 0o2770, 0o2777)] + [(os.path.join(folder, f), 0o660, 0o777) for f in files]:
            mode = os.stat(path).st_mode
            if mode & wanted != wanted:
                try:
                    os.chmod(path, (mode | wanted) & keep)
                except PermissionError:
                    log.warning("Could not update permissions of %s to make it groupshared", path)

# ---------- patches: one engine per gradebook URL ----------
#
# nbgrader opens a Gradebook about eight times per graded notebook, and each calls create_engine: SQLAlchemy
# keeps the SQL it has compiled in the engine, so every new engine compiles every ORM query again (≈ 0.1 s of
# CPU per student in a make grade worker). Gradebook.close() still disposes of the shared engine, which closes
# its pooled connections; the next Gradebook opens new ones through it. Each Gradebook also runs create_all
# (each table asked for on its own, ≈ 0.5 ms, nine times per student) and makes a new sessionmaker (a new
# Session subclass whose event hooks SQLAlchemy sets up again, ≈ 0.4 ms): both are done once here.

_ENGINES = {}  # {(pid, url, options): engine}
_FACTORIES = {}  # {(pid, engine, options): session factory}
_LOCK = threading.Lock()
_create_all = api.Base.metadata.create_all  # nbgrader's own, bound to its MetaData


def create_engine(url, **options):
    """SQLAlchemy's ``create_engine``, made once per (process, URL, options)."""
    key = (os.getpid(), str(url), tuple(sorted(options.items())))
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = sqlalchemy.create_engine(url, **options)
    return engine


def create_all(bind=None, **options) -> None:
    """nbgrader's ``Base.metadata.create_all``, run only when one of its tables is missing."""
    if set(api.Base.metadata.tables) - set(sqlalchemy.inspect(bind).get_table_names()):
        _create_all(bind=bind, **options)


def sessionmaker(bind=None, **options):
    """SQLAlchemy's ``sessionmaker``, made once per (process, engine, options)."""
    key = (os.getpid(), bind, tuple(sorted(options.items())))
    with _LOCK:
        factory = _FACTORIES.get(key)
        if factory is None:
            factory = _FACTORIES[key] = sqlalchemy.orm.sessionmaker(bind=bind, **options)
    return factory


def share_engines() -> None:
    """Point ``nbgrader.api`` at :func:`create_engine`, :func:`create_all` and :func:`sessionmaker` (idempotent;
    this process only: a forked child makes its own engines)."""
    api.create_engine = create_engine
    api.Base.metadata.create_all = create_all
    api.sessionmaker = sessionmaker


# ---------- patches: the metadata schema checked once ----------

def check_schemas_once() -> None:
    """Give nbgrader's metadata check (``BaseMetadataValidator.validate_cell``) a ``jsonschema`` whose ``validate``
    is :func:`coursekit.upstream.jsonschema.validate`; everything else is the real module. Idempotent.

    Profiled in a ``make grade`` worker: 0.08 s of CPU per student went into checking nbgrader's own schema again."""
    import jsonschema

    from .jsonschema import validate

    if getattr(common.jsonschema, "validate", None) is validate:
        return
    stand_in = types.ModuleType("jsonschema", "jsonschema, whose validate() checks each schema once")
    stand_in.__dict__.update({k: v for k, v in vars(jsonschema).items() if not k.startswith("__")})
    stand_in.validate = validate
    common.jsonschema = stand_in


# ---------- patches: Validator.validate's results ----------

def fold_validate_results(fold, marker: str) -> bool:
    """Wrap ``Validator.validate`` so that its results go through ``fold(results, filename, config)`` (``config``: the
    validator's), passed or failed: a fold may say something of every result (its language).

    nbgrader 0.9 builds its ``Validator`` itself (the CLI, the Validate button's handler) and has no setting for
    its results (proposal: ``docs/upstream/nbgrader-validator-results.md``). ``marker`` names the wrapping: asked
    again with the same marker, nothing changes. Returns whether it wrapped now."""
    original = Validator.validate
    if getattr(original, marker, False):
        return False

    def validate(self, filename):
        results = original(self, filename)
        return fold(results, filename, self.config)

    setattr(validate, marker, True)
    validate.__wrapped__ = original
    validate.__doc__ = original.__doc__
    Validator.validate = validate
    return True

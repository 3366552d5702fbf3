"""The canary: the untouched release, run as a submission is graded, in the same sandbox. Does grading work here?

Nothing a student wrote is in the release. It goes first through the steps nbgrader's autograde takes every
submission through before any code runs (``Autograde.sanitize_preprocessors``, the course's own among them: the
released cells put back, metadata checked): when those fail on it, the course's own notebooks are what nbgrader
cannot read (an older course, migrated with ``nbgrader update``, whose plain cells keep nbgrader metadata without a
grade id), and the fault is the course's (:class:`coursekit.faults.CourseFault`). When it cannot be run, the fault
is the machine's (:mod:`coursekit.faults`). It runs before a class is graded (each ``make grade`` worker and each
grading-service worker, first thing: it also starts the kernel template and draws the figure cache
the students' kernels read) and again whenever a kernel dies before a student's first cell, to tell
whose fault that was. The release is copied into a temporary folder, run by nbgrader's own ``Execute``
with the course's settings and ``NBGRADER_EXECUTION=autograde``. The release's own cells may fail (its
functions are stubs); what counts is that every cell ran. A student's failure that may be the course's asks only the
first steps (``execute=False``: no kernel, a fraction of a second, nothing remembered).

What it found is the one thing it writes in the course, ``grading-logs/canary-<assignment>.json``
(:class:`ReleaseRun`): the grader's records of the untouched release (what a student scores for writing
nothing: the checks the release passes by itself, which say nothing of a student's work,
:func:`coursekit.record.may_be_hard_coded`) and, measured by ``make grade``'s workers once their kernel
template is warm, how long grading the release takes. One student's time, ``c.CourseKit.student_seconds``,
is derived from that unless the config sets it (:func:`student_budget`).
"""
import dataclasses
import json
import math
import os
import pathlib
import shutil
import sys
import tempfile
import time

import nbformat
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute
from nbgrader.utils import setenv

from .faults import CourseFault, InfrastructureFault, evident_fault
from .gradebook import resolve_gradebook
from .language import marked
from .record import CellRecord, records_in
from .settings import FLOOR_TIMEOUTS, MULTIPLE, course_config, course_settings

__all__ = ["RUN_FILE", "ReleaseRun", "Budget", "run_canary", "canary_fault", "measure_release", "last_run",
           "release_records", "student_budget"]

RUN_FILE = "grading-logs/canary-{assignment}.json"  # in the course folder: what the last canary found


@dataclasses.dataclass(frozen=True)
class ReleaseRun:
    """What the last canary of ``assignment`` found: the grader's records of the untouched release, and the seconds
    grading it took with the kernel template warm (None until a ``make grade`` worker measured it)."""
    assignment: str
    records: dict                   # {grade_id: CellRecord}
    seconds: float | None = None

    def to_dict(self) -> dict:
        return {"assignment": self.assignment, "seconds": self.seconds,
                "records": {grade_id: r.to_dict() for grade_id, r in self.records.items()}}

    @classmethod
    def from_dict(cls, data: dict, where: str) -> "ReleaseRun":
        seconds = data.get("seconds")
        if seconds is not None and not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"{where}: seconds must be a positive number, got {seconds!r}")
        return cls(str(data["assignment"]), {str(g): CellRecord.from_dict(r, where) for g, r in data["records"].items()},
                   None if seconds is None else float(seconds))


@dataclasses.dataclass(frozen=True)
class Budget:
    """One student's time and where it came from: ``c.CourseKit.student_seconds`` (``"config"``), or derived from
    the release's grading time (``"canary"``) or the floor of cell timeouts (``"floor"``)."""
    seconds: float
    source: str
    canary: float | None = None     # the release's warm grading time it was derived from
    cell_timeout: float = 0.0


class NotSanitized(Exception):
    """The untouched release failed in nbgrader's steps before any code runs: the course's notebooks."""

    def __init__(self, step: str, error: BaseException):
        self.step, self.error = step, error
        super().__init__(f"{type(error).__name__}: {error} (in nbgrader's {step})")


def _sanitized(nb, config, resources):
    """``nb`` through the steps autograde takes a submission through before running it; NotSanitized if one fails."""
    for step in Autograde(config=config).sanitize_preprocessors:
        try:
            nb, resources = step(config=config).preprocess(nb, resources)
        except Exception as error:  # noqa: BLE001 -- any failure of nbgrader's own step on the release is the answer
            raise NotSanitized(step.__name__, error) from error
    return nb


def _run(course, assignment: str, config, execute: bool = True) -> tuple:
    """``(what stopped the release or None, its records, seconds)``: the release run as autograde would (``execute``
    False: only its first steps, :class:`NotSanitized` when they fail)."""
    release = pathlib.Path(course) / "release" / assignment
    notebooks = sorted(release.glob("*.ipynb"))
    if not notebooks:
        return FileNotFoundError(f"there is no release to try ({release}: run `nbgrader generate_assignment "
                                 f"{assignment}`)"), {}, 0.0
    records, start = {}, time.perf_counter()
    try:  # the copy too: a full disk there is the machine's answer as much as a kernel that cannot start
        with tempfile.TemporaryDirectory(prefix="attn-canary-") as top:
            folder = pathlib.Path(top) / assignment  # as nbgrader names an assignment's folder: its plug-in and grader
            shutil.copytree(release, folder)
            with setenv(NBGRADER_EXECUTION="autograde"):
                for path in notebooks:
                    info = {"db_url": config.CourseDirectory.get("db_url") or resolve_gradebook(course),
                            "assignment": assignment, "notebook": path.stem, "student": ".canary"}  # as nbgrader does
                    nb = _sanitized(nbformat.read(path, as_version=4), config,
                                    {"nbgrader": info, "metadata": {"path": str(folder)}})
                    if execute:
                        ran = Execute(config=config).preprocess(nb, {"metadata": {"path": str(folder)}})[0]
                        records.update(records_in(ran, str(path)))
    except (Exception, InfrastructureFault) as exc:  # noqa: BLE001 -- whatever stops the release is the answer
        return exc, {}, 0.0
    return None, records, time.perf_counter() - start


def run_canary(course, assignment: str, config, execute: bool = True):
    """Run ``course``'s release of ``assignment`` as autograde would (``execute`` False: only its first steps); None
    when every cell ran, else what stopped it. What a whole run found is remembered (:func:`last_run`)."""
    error, records, _ = _run(course, assignment, config, execute)
    if error is None and execute:
        _remember(course, ReleaseRun(assignment, records, getattr(last_run(course, assignment), "seconds", None)))
    return error


def canary_fault(course, assignment: str, config, execute: bool = True):
    """The :class:`InfrastructureFault` of a canary that failed (its error's own, when it proves one; a
    :class:`CourseFault` when nbgrader's first steps fail on the release), or None."""
    error = run_canary(course, assignment, config, execute)
    if error is None:
        return None
    if isinstance(error, NotSanitized) and evident_fault(error.error, course) is None:
        unnamed = _cells_without_grade_id(pathlib.Path(course) / "release" / assignment)
        fix = marked("fault.fix_release_unnamed") if unnamed else marked("fault.fix_release")
        return CourseFault(marked("fault.release_first_steps"), fix, assignment=assignment, error=str(error),
                           unnamed=unnamed)
    error = error.error if isinstance(error, NotSanitized) else error  # a step stopped by the machine: its error
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return evident_fault(error, course) or InfrastructureFault(
        marked("fault.release_ungradable"), marked("fault.fix_sandbox"), assignment=assignment,
        kind=type(error).__name__, error=first)


def _cells_without_grade_id(release: pathlib.Path) -> int:
    """How many cells of the release's notebooks have nbgrader metadata but no grade id."""
    count = 0
    for path in release.glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            count += meta is not None and not meta.get("grade_id")
    return count


def measure_release(course, assignment: str, config) -> float | None:
    """Grade the release again, its kernel template warm now (after :func:`canary_fault`), and remember how long
    that took: what a student's grading costs at least. None when it did not run."""
    error, records, seconds = _run(course, assignment, config)
    if error is not None:
        return None
    _remember(course, ReleaseRun(assignment, records, seconds))
    return seconds


def _path(course, assignment: str) -> pathlib.Path:
    return pathlib.Path(course) / RUN_FILE.format(assignment=assignment)


def _remember(course, run: ReleaseRun) -> None:
    """Write ``run`` whole (a reader never sees half a file; workers at once: the last one's). A course folder that
    cannot take it is said in the log only: grading needs nothing of it, and its own writes say whose fault that is."""
    path = _path(course, run.assignment)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".canary-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(run.to_dict(), out, ensure_ascii=False)
        os.replace(temporary, path)
    except OSError as error:
        print(f"canary: {path} not written ({error})", file=sys.stderr, flush=True)


def last_run(course, assignment: str) -> ReleaseRun | None:
    """What the last canary of ``assignment`` found; None when none ran here (or its file cannot be read: a
    canary writes it again)."""
    path = _path(course, assignment)
    try:
        return ReleaseRun.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def release_records(course, assignment: str) -> dict:
    """{grade_id: CellRecord} of the untouched release of ``assignment``, as its last canary graded it; {} when none
    ran here."""
    run = last_run(course, assignment)
    return dict(run.records) if run else {}


def _cell_timeout(config) -> float:
    """One cell's time under grading (``c.Execute.timeout``, nbgrader's default where the config is silent)."""
    timeout = config.get("Execute", {}).get("timeout") if config is not None else None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        timeout = Execute.class_traits()["timeout"].default_value
    return float(timeout)


def student_budget(course, assignments=()) -> Budget:
    """One student's time in ``course``: ``c.CourseKit.student_seconds`` when the config sets it; else
    ``MULTIPLE`` × the slowest of ``assignments``' measured release gradings, at least ``FLOOR_TIMEOUTS`` cell
    timeouts (:mod:`coursekit.settings`) (the floor alone until a release was measured)."""
    settings, timeout = course_settings(course), _cell_timeout(course_config(course))
    if settings.student_seconds is not None:
        return Budget(settings.student_seconds, "config", None, timeout)
    measured = [run.seconds for run in (last_run(course, a) for a in assignments) if run and run.seconds]
    floor, canary = FLOOR_TIMEOUTS * timeout, max(measured, default=None)
    if canary is not None and MULTIPLE * canary > floor:
        return Budget(MULTIPLE * canary, "canary", canary, timeout)
    return Budget(floor, "floor", canary, timeout)

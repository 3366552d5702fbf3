"""The canary: the untouched release, run as a submission is graded, in the same sandbox. Does grading work here?

Nothing a student wrote is in the release. It goes first through the steps nbgrader's autograde takes every
submission through before any code runs (``Autograde.sanitize_preprocessors``, the course's own among them: the
released cells put back, metadata checked): when those fail on it, the course's own notebooks are what nbgrader
cannot read (an older course, migrated with ``nbgrader update``, whose plain cells keep nbgrader metadata without a
grade id), and the fault is the course's (:class:`coursekit.faults.CourseFault`). When it cannot be run, the fault
is the machine's (:mod:`coursekit.faults`). It runs before a class is graded (each ``make grade`` worker and each
grading-service worker, first thing: it also starts the kernel template and draws the figure cache
the students' kernels read) and again whenever a kernel dies before a student's first cell, to tell
whose fault that was. It writes nothing in the course: the release is copied into a temporary
folder, run by nbgrader's own ``Execute`` with the course's settings and ``NBGRADER_EXECUTION=autograde``.
The release's own cells may fail (its functions are stubs); what counts is that every cell ran. A student's failure
that may be the course's asks only the first steps (``execute=False``: no kernel, a fraction of a second).
"""
import pathlib
import shutil
import tempfile

import nbformat
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute
from nbgrader.utils import setenv

from .faults import CourseFault, InfrastructureFault, evident_fault
from .gradebook import resolve_gradebook

__all__ = ["run_canary", "canary_fault"]


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


def run_canary(course, assignment: str, config, execute: bool = True):
    """Run ``course``'s release of ``assignment`` as autograde would (``execute`` False: only its steps before any
    code runs); None when every cell ran, else what stopped it (:class:`NotSanitized` for those first steps)."""
    release = pathlib.Path(course) / "release" / assignment
    notebooks = sorted(release.glob("*.ipynb"))
    if not notebooks:
        return FileNotFoundError(f"there is no release to try ({release}: run `nbgrader generate_assignment "
                                 f"{assignment}`)")
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
                        Execute(config=config).preprocess(nb, {"metadata": {"path": str(folder)}})
    except (Exception, InfrastructureFault) as exc:  # noqa: BLE001 -- whatever stops the release is the answer
        return exc
    return None


def canary_fault(course, assignment: str, config, execute: bool = True):
    """The :class:`InfrastructureFault` of a canary that failed (its error's own, when it proves one; a
    :class:`CourseFault` when nbgrader's first steps fail on the release), or None."""
    error = run_canary(course, assignment, config, execute)
    if error is None:
        return None
    if isinstance(error, NotSanitized) and evident_fault(error.error, course) is None:
        unnamed = _cells_without_grade_id(pathlib.Path(course) / "release" / assignment)
        hint = (f" ({unnamed} cells carry nbgrader metadata but no grade id, as `nbgrader update` leaves an older "
                "course's plain cells: make them plain cells again, or set c.OverwriteCells.add_missing_cells = "
                "False)") if unnamed else ""
        return CourseFault(
            f"nbgrader cannot take even the untouched release of {assignment} through its first steps, so every "
            f"submission would fail the same way ({error})",
            f"The course's notebooks in source/{assignment} are what to fix{hint}; then run `nbgrader "
            f"generate_assignment {assignment} --force` and grade again.")
    error = error.error if isinstance(error, NotSanitized) else error  # a step stopped by the machine: its error
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return evident_fault(error, course) or InfrastructureFault(
        f"the untouched release of {assignment} cannot be graded here ({type(error).__name__}: {first})",
        "Fix what the grading log names (the sandbox, the interpreter), then run the command again.")


def _cells_without_grade_id(release: pathlib.Path) -> int:
    """How many cells of the release's notebooks have nbgrader metadata but no grade id."""
    count = 0
    for path in release.glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            count += meta is not None and not meta.get("grade_id")
    return count

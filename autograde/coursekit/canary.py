"""The canary: the untouched release, run as a submission is graded, in the same sandbox. Does grading work here?

Nothing a student wrote is in the release, so when it cannot be run the fault is the machine's
(:mod:`coursekit.faults`). It runs before a class is graded (each ``make grade`` worker and each
grading-service worker, first thing: it also starts the kernel template and draws the figure cache
the students' kernels read) and again whenever a kernel dies before a student's first cell, to tell
whose fault that was. It writes nothing in the course: the release is copied into a temporary
folder, run by nbgrader's own ``Execute`` with the course's settings and ``NBGRADER_EXECUTION=autograde``.
The release's own cells may fail (its functions are stubs); what counts is that every cell ran.
"""
import pathlib
import shutil
import tempfile

import nbformat
from nbgrader.preprocessors import Execute
from nbgrader.utils import setenv

from .faults import InfrastructureFault, evident_fault

__all__ = ["run_canary", "canary_fault"]


def run_canary(course, assignment: str, config):
    """Run ``course``'s release of ``assignment`` as autograde would; None when every cell ran, else what stopped it."""
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
                    Execute(config=config).preprocess(nbformat.read(path, as_version=4),
                                                      {"metadata": {"path": str(folder)}})
    except (Exception, InfrastructureFault) as exc:  # noqa: BLE001 -- whatever stops the release is the answer
        return exc
    return None


def canary_fault(course, assignment: str, config):
    """The :class:`InfrastructureFault` of a canary that failed (its error's own, when it proves one), or None."""
    error = run_canary(course, assignment, config)
    if error is None:
        return None
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return evident_fault(error, course) or InfrastructureFault(
        f"the untouched release of {assignment} cannot be graded here ({type(error).__name__}: {first})",
        "Fix what the grading log names (the sandbox, the interpreter), then run the command again.")

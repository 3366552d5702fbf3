"""Whose failure is it: the student's notebook, or the machine that grades it. Decided here, for every command.

A **student fault** is caused by the notebook: not JSON, cells deleted or copied, ``os._exit``, a
cell over its time, memory, process or disk limit. The notebook scores 0 for what failed, with the
reason (:mod:`coursekit.plugins.failures`), and the class goes on.

An **infrastructure fault** is the machine's: the sandbox or the kernel template cannot start, the
grader cannot be read, the gradebook cannot be reached, the course folder cannot be written, the
exchange cannot be read, a grading process is killed. A **course fault** is the course's own notebooks': nbgrader
cannot take even the untouched release through the steps it takes every submission through (an older course whose
cells it no longer reads), or every submission of a class fails the same way. Neither is ever written as a grade, a
comment or feedback. :class:`InfrastructureFault` is a ``SystemExit``: ``nbgrader autograde`` stops at once with
its one line (cause, then what to do), ``make grade`` stops its workers and says who was graded
before it, the grading service keeps the submission queued and tries again.

The kind is decided from evidence, never from an exception's type alone (:func:`decide`): what only
the machine can cause (a gradebook error, a full or read-only disk, a template that never started)
is the machine's at once; a kernel that failed before the student's first cell is the machine's
only if the untouched release fails the same way in the same sandbox (:mod:`coursekit.canary`).
"""
import errno
import os
import pathlib
import stat

import sqlalchemy.exc

__all__ = ["InfrastructureFault", "CourseFault", "KernelDidNotStart", "TemplateDidNotStart", "decide",
           "evident_fault", "grader_unreadable"]

# what a full, read-only or forbidden course folder raises when grading writes into it; a student's code never
# reaches the grading process's writes (its own disk is the sandbox's, and goes over a limit of its own there)
_DISK = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
         errno.EROFS: "the file system is read-only"}
_FORBIDDEN = {errno.EACCES: "permission denied", errno.EPERM: "operation not permitted"}  # the course's files only


class InfrastructureFault(SystemExit):
    """The machine failed, not the notebook: nobody is graded by it. ``str()`` is the one line to show."""
    WHOSE = "the machine's"

    def __init__(self, cause: str, fix: str):
        self.cause, self.fix = cause.strip().rstrip("."), fix.strip()
        super().__init__(f"grading stopped, {self.WHOSE} fault (no student was given a grade for it): "
                         f"{self.cause}. {self.fix}")

    def __str__(self) -> str:
        return self.code


class CourseFault(InfrastructureFault):
    """The course's own notebooks fail, not a student's: nobody is graded by it, the command stops as for the
    machine's (:class:`InfrastructureFault`), and its line says the course is what to fix."""
    WHOSE = "the course's"


class KernelDidNotStart(RuntimeError):
    """The grading kernel never became ready: no cell of the notebook ran. Whose fault, the canary decides."""


class TemplateDidNotStart(KernelDidNotStart):
    """The kernel template (trusted code, no student's file in it) did not start: always the machine's."""


def evident_fault(error: BaseException, course=None, template_died: bool = False):
    """The :class:`InfrastructureFault` that ``error`` proves on its own, or None when it may be the notebook's.

    ``template_died``: the caller's kernel template (:func:`coursekit.sandbox.forkserver.template_died`) is dead, so
    a kernel that died with it died of that, whatever the notebook did."""
    if isinstance(error, InfrastructureFault):
        return error
    if isinstance(error, (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError)):
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return InfrastructureFault(f"the gradebook cannot be reached ({first})",
                                   "Check the gradebook (DB_URL or CourseDirectory.db_url), then run the command again.")
    if isinstance(error, TemplateDidNotStart):
        return InfrastructureFault(f"the sandbox's kernel template did not start: {error}",
                                   "Fix what its error names (the grading log has it all), then run the command again.")
    if _died_with_template(error, template_died):
        return InfrastructureFault("the sandbox's kernel template died while a notebook was graded (killed?)",
                                   "See the system log (out of memory?), then run the command again.")
    if isinstance(error, OSError) and (error.errno in _DISK or (error.errno in _FORBIDDEN
                                                                and _inside(error.filename, course))):
        where = f" ({error.filename})" if error.filename else ""
        why = _DISK.get(error.errno) or _FORBIDDEN[error.errno]
        return InfrastructureFault(f"the course folder cannot be written: {why}{where}",
                                   "Free space or fix the folder's permissions, then run the command again.")
    return None


def decide(error: BaseException, course, canary, template_died: bool = False):
    """The fault ``error`` is, if the machine's (else None: the notebook's, graded 0 with the reason).

    ``canary()`` grades the untouched release in the same sandbox and returns its fault (None when it
    passed). It is asked whenever a notebook's own doing could look like the machine's: a kernel that never
    started, and a kernel template that died while the notebook ran. None: the release runs in the same
    sandbox, so this submission is what stopped it. ``template_died``: as for :func:`evident_fault`.
    """
    fault = evident_fault(error, course, template_died)
    if isinstance(error, KernelDidNotStart) and not isinstance(error, TemplateDidNotStart):
        return fault or canary()
    if fault is not None and _died_with_template(error, template_died):
        return canary() and fault
    return fault


def _died_with_template(error: BaseException, template_died: bool) -> bool:
    return type(error).__name__ == "DeadKernelError" and template_died


def _inside(filename, course) -> bool:
    if not filename or course is None:
        return False
    path, course = pathlib.Path(os.path.abspath(filename)), pathlib.Path(course).resolve()
    return path == course or course in path.parents


def grader_unreadable(grader: pathlib.Path, privileged: bool):
    """An :class:`InfrastructureFault` when a sandboxed kernel could not read ``grader`` (its folder), else None.

    As root every kernel has a uid of its own, so the files must be readable by others; as another
    user the kernel keeps that user's uid, so the owner's bits count.
    """
    if not grader.is_dir():
        return InfrastructureFault(f"the grader {grader} is missing", "Restore it (e.g. from the repository's "
                                   "autograde/grader/), then run the command again.")
    read, search = (stat.S_IROTH, stat.S_IXOTH) if privileged else (stat.S_IRUSR, stat.S_IXUSR)
    for path in (grader, *grader.rglob("*")):
        mode = path.stat().st_mode
        if not mode & read or (path.is_dir() and not mode & search):
            who = "other users (each sandboxed kernel has a uid of its own)" if privileged else "its owner"
            return InfrastructureFault(f"the grader is not readable by the grading kernels: {path} has mode "
                                       f"{stat.filemode(mode)}, not readable by {who}",
                                       f"Run `chmod -R a+rX {grader}`, then run the command again.")
    return None

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
is the machine's at once, however deeply it is wrapped (a full disk under ``shutil.Error``, under another
exception's cause or arguments: :func:`carried_errors`); a kernel that failed before the student's first cell is the machine's
only if the untouched release fails the same way in the same sandbox (:mod:`coursekit.canary`).
"""
import errno
import os
import pathlib
import re
import shutil
import stat

import sqlalchemy.exc

__all__ = ["InfrastructureFault", "CourseFault", "KernelDidNotStart", "TemplateDidNotStart", "carried_errors",
           "decide", "evident_fault", "grader_unreadable"]

# what a full, read-only or forbidden disk raises when grading writes to it (the course folder, the sandbox's folders
# in /tmp, a temporary copy); a student's code never reaches the grading process's writes (its own disk is the
# sandbox's capped tmpfs, and going over it is a limit of its own, graded there)
_FULL = {errno.ENOSPC: "the machine's disk is full", errno.EDQUOT: "the machine's disk quota is used up"}
_READ_ONLY = {errno.EROFS: "the file system is read-only"}
_FORBIDDEN = {errno.EACCES: "permission denied", errno.EPERM: "operation not permitted"}  # the course's files only
# how shutil.Error reports each file it could not copy: (source, destination, str(the OSError))
_ERRNO_SAID = re.compile(r"^\[Errno (\d+)\] ([^:]*)")


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
    return _disk_fault(error, course)


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


def _disk_fault(error: BaseException, course):
    """The fault of the first full, read-only or (in the course) forbidden disk that ``error`` carries, or None."""
    for carried in carried_errors(error):
        where = f" ({carried.filename})" if carried.filename else ""
        if carried.errno in _FULL:
            return InfrastructureFault(f"{_FULL[carried.errno]}{where}", "Free space on it (`df -h` names the disk of "
                                       "each folder), then run the command again.")
        if carried.errno in _READ_ONLY or (carried.errno in _FORBIDDEN and _inside(carried.filename, course)):
            why = _READ_ONLY.get(carried.errno) or _FORBIDDEN[carried.errno]
            return InfrastructureFault(f"the course folder cannot be written: {why}{where}",
                                       "Free space or fix the folder's permissions, then run the command again.")
    return None


def carried_errors(error: BaseException, depth: int = 8) -> list:
    """Every ``OSError`` ``error`` is or carries: itself, its ``__cause__`` and ``__context__``, the exceptions among
    its ``args`` (nested in lists and tuples), and the failures ``shutil.Error`` lists as text (``[Errno 28] …``: only
    that text survives copytree), depth first, each once. These are the grading process's own exceptions: what a
    student's code raises reaches it as a cell's output, never as one of these."""
    found, seen, pending = [], set(), [(error, 0)]
    while pending:
        item, level = pending.pop()
        if id(item) in seen or level > depth:
            continue
        seen.add(id(item))
        if isinstance(item, OSError) and item.errno is not None:
            found.append(item)
        if isinstance(item, (list, tuple)):
            pending += [(part, level + 1) for part in reversed(item)]
        elif isinstance(item, BaseException):
            said = _listed_by_copytree(item) if isinstance(item, shutil.Error) else []
            pending += [(part, level + 1) for part in reversed([*item.args, item.__cause__, item.__context__, *said])]
    return found


def _listed_by_copytree(error: shutil.Error) -> list:
    """The failures ``shutil.copytree`` collected into ``error`` (``[(source, destination, "[Errno n] …")]``), as
    OSErrors of the destination."""
    listed = error.args[0] if error.args and isinstance(error.args[0], list) else []
    found = []
    for entry in listed:
        if isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[2], str):
            said = _ERRNO_SAID.match(entry[2])
            if said:
                found.append(OSError(int(said.group(1)), said.group(2), str(entry[1])))
    return found


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

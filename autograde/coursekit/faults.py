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

from .language import PSEUDO_FROM, WORDS, marked

__all__ = ["InfrastructureFault", "CourseFault", "KernelDidNotStart", "TemplateDidNotStart", "carried_errors",
           "decide", "evident_fault", "grader_unreadable"]

# what a full, read-only or forbidden disk raises when grading writes to it (the course folder, the sandbox's folders
# in /tmp, a temporary copy); a student's code never reaches the grading process's writes (its own disk is the
# sandbox's capped tmpfs, and going over it is a limit of its own, graded there)
# (each errno's cause, a message id)
_FULL = {errno.ENOSPC: marked("fault.disk_full"), errno.EDQUOT: marked("fault.disk_quota")}
_READ_ONLY = {errno.EROFS: marked("fault.read_only")}
_FORBIDDEN = {errno.EACCES: marked("fault.permission_denied"), errno.EPERM: marked("fault.not_permitted")}  # the course's
# how shutil.Error reports each file it could not copy: (source, destination, str(the OSError))
_ERRNO_SAID = re.compile(r"^\[Errno (\d+)\] ([^:]*)")


class InfrastructureFault(SystemExit):
    """The machine failed, not the notebook: nobody is graded by it. Kept as two message ids of the course's catalogue
    (what went wrong, what to do) and their values, as a :class:`coursekit.language.Refusal` is: :meth:`said` in the
    language of whoever reads it (the course's, for ``make grade`` and the service); ``str()`` is the English line, for
    logs and nbgrader's own exit. It travels between processes as those ids and values (:meth:`__reduce__`)."""
    WHOSE = marked("fault.machine")

    def __init__(self, cause: str, fix: str, /, **values):
        self.cause, self.fix, self.values = cause, fix, values
        super().__init__(self.said(PSEUDO_FROM))

    def said(self, lang: str) -> str:
        """The one line, in ``lang``: whose fault, what went wrong, what to do."""
        cause = WORDS.say(lang, self.cause, **self.values).strip().rstrip(".。")
        return WORDS.say(lang, self.WHOSE, cause=cause, fix=WORDS.say(lang, self.fix, **self.values).strip())

    def for_exit(self, lang: str) -> "InfrastructureFault":
        """This fault, its exit line (``code``, what ``nbgrader autograde`` prints as it stops, and ``str()``) said in
        ``lang``: the course's, where the command that raises it knows it."""
        self.code = self.said(lang)
        return self

    def __str__(self) -> str:
        return self.code

    def __reduce__(self):
        return _made_again, (type(self), self.cause, self.fix, self.values)


def _made_again(kind, cause, fix, values):
    return kind(cause, fix, **values)


class CourseFault(InfrastructureFault):
    """The course's own notebooks fail, not a student's: nobody is graded by it, the command stops as for the
    machine's (:class:`InfrastructureFault`), and its line says the course is what to fix."""
    WHOSE = marked("fault.course")


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
        return InfrastructureFault(marked("fault.gradebook_unreachable"), marked("fault.fix_gradebook"), error=first)
    if isinstance(error, TemplateDidNotStart):
        return InfrastructureFault(marked("fault.template_not_started"), marked("fault.fix_as_named"), error=str(error))
    if _died_with_template(error, template_died):
        return InfrastructureFault(marked("fault.template_died"), marked("fault.fix_system_log"))
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
            return InfrastructureFault(_FULL[carried.errno], marked("fault.fix_disk"), where=where)
        if carried.errno in _READ_ONLY or (carried.errno in _FORBIDDEN and _inside(carried.filename, course)):
            why = _READ_ONLY.get(carried.errno) or _FORBIDDEN[carried.errno]
            return InfrastructureFault(why, marked("fault.fix_course_folder"), where=where)
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
        return InfrastructureFault(marked("fault.grader_missing"), marked("fault.fix_grader_missing"),
                                   grader=str(grader))
    read, search = (stat.S_IROTH, stat.S_IXOTH) if privileged else (stat.S_IRUSR, stat.S_IXUSR)
    for path in (grader, *grader.rglob("*")):
        mode = path.stat().st_mode
        if not mode & read or (path.is_dir() and not mode & search):
            cause = marked("fault.grader_unreadable_others") if privileged else marked("fault.grader_unreadable_owner")
            return InfrastructureFault(cause, marked("fault.fix_grader_mode"), path=str(path),
                                       mode=stat.filemode(mode), grader=str(grader))
    return None

"""A notebook that cannot be graded scores 0, with the reason, and the class goes on; a machine's fault stops.

Invalid JSON, a kernel killed by student code (``os._exit``), duplicated cells …: nbgrader logs
the error, removes that student's autograded copy and goes on with the next student. Before
that, :class:`ZeroOnFailureExporter` (``Autograde.exporter_class``) sets every grade of the
notebook to 0 and writes the reason into its comments in the gradebook — where the formgrader,
``nbgrader.api`` and the class report read it — and keeps it as data (:attr:`failure`) for the
grading worker that asked.

Whether a failure is the notebook's at all is decided by :func:`coursekit.faults.decide` (asking
the canary, :mod:`coursekit.canary`, when the kernel never started), then by the canary's first steps: when nbgrader
cannot take even the untouched release through them, the course's notebooks failed, not this one
(:class:`~coursekit.faults.CourseFault`). A fault of the machine — a
sandbox that cannot start, a gradebook that cannot be reached — is nobody's grade: it is raised as
:class:`~coursekit.faults.InfrastructureFault`, which stops the run with one line saying what to fix.
"""
import os
from dataclasses import dataclass

from nbconvert.exporters import NotebookExporter

from ..canary import canary_fault
from ..printable import printable
from ..student_files import MAX_NOTEBOOK_BYTES
from ..faults import CourseFault, InfrastructureFault, decide
from ..gradebook import NOT_GRADED_COMMENT, not_graded_reason, zero_submission
from ..language import marked
from ..sandbox import SandboxUnavailable
from ..sandbox.forkserver import template_died
from ..settings import CourseKit

__all__ = ["NOT_GRADED_COMMENT", "Failure", "ZeroOnFailureExporter", "record_zero"]



@dataclass(frozen=True)
class Failure:
    """Why one student's notebook was not graded."""
    student: str
    error: str     # "NotJSONError: Notebook does not appear to be JSON …"
    reason: str    # the whole comment written into the gradebook


class ZeroOnFailureExporter(NotebookExporter):
    """Autograde's exporter: a notebook that cannot be graded scores 0, with the reason."""

    failure = None  # the last Failure this exporter recorded (None: none yet)

    def from_filename(self, filename, resources=None, **kw):
        try:
            _not_too_large(filename)
            return super().from_filename(filename, resources=resources, **kw)
        except SandboxUnavailable as exc:  # nothing to do with the student: stop the whole run, say what to install
            raise InfrastructureFault(marked("fault.said"), marked("fault.fix_again"), said=str(exc)).for_exit(
                self._language()) from None
        except Exception as exc:
            assignment = resources["nbgrader"]["assignment"]
            fault = decide(exc, self._course(), lambda: canary_fault(self._course(), assignment, self.config),
                           template_died())
            if fault is None:  # the untouched release through nbgrader's first steps (no kernel): the course's?
                fault = canary_fault(self._course(), assignment, self.config, execute=False)
                fault = fault if isinstance(fault, CourseFault) else None
            if fault is not None:
                raise fault.for_exit(self._language()) from exc
            error = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
            try:
                self.failure = record_zero(resources["nbgrader"], error, self.log)
            except Exception:  # the original error matters more than a failed bookkeeping step
                self.log.exception("could not record the failed notebook in the gradebook")
            raise

    def _course(self) -> str:
        return self.config.CourseDirectory.get("root") or os.getcwd()

    def _language(self) -> str:
        """The course's language (``c.CourseKit.language``): the instructor reads why grading stopped."""
        return CourseKit(config=self.config).language


def _not_too_large(filename) -> None:
    """A submitted notebook larger than a notebook may be is the student's (0 with the reason), never read whole:
    a worker that ran out of memory on it would look like the machine's fault."""
    size = os.lstat(filename).st_size
    if size > MAX_NOTEBOOK_BYTES:
        raise NotebookTooLarge(f"the notebook is {size} bytes, more than the {MAX_NOTEBOOK_BYTES} a notebook may "
                               "have (its outputs are cleared at grading: clear them before submitting)")


class NotebookTooLarge(ValueError):
    """A submitted notebook over :data:`coursekit.student_files.MAX_NOTEBOOK_BYTES`."""


def record_zero(info: dict, error: str, log) -> Failure:
    """Set every grade of ``info``'s submitted notebook to 0 and write the reason into its comments (control
    characters of the notebook's error escaped: it is read on terminals and in logs)."""
    error = printable(error, one_line=True)
    reason = not_graded_reason(error, info["assignment"], info["student"])
    log.error("%s: %s", info["student"], reason)
    zero_submission(info["db_url"], info["assignment"], info["student"], reason, notebook=info["notebook"])
    return Failure(info["student"], error, reason)

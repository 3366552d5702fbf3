"""A notebook that cannot be graded scores 0, with the reason, and the class goes on; a machine's fault stops.

Invalid JSON, a kernel killed by student code (``os._exit``), duplicated cells …: nbgrader logs
the error, removes that student's autograded copy and goes on with the next student. Before
that, :class:`ZeroOnFailureExporter` (``Autograde.exporter_class``) sets every grade of the
notebook to 0 and writes the reason into its comments in the gradebook — where the formgrader,
``nbgrader.api`` and the class report read it — and keeps it as data (:attr:`failure`) for the
grading worker that asked.

Whether a failure is the notebook's at all is decided by :func:`coursekit.faults.decide` (asking
the canary, :mod:`coursekit.canary`, when the kernel never started). A fault of the machine — a
sandbox that cannot start, a gradebook that cannot be reached — is nobody's grade: it is raised as
:class:`~coursekit.faults.InfrastructureFault`, which stops the run with one line saying what to fix.
"""
import os
from dataclasses import dataclass

from nbconvert.exporters import NotebookExporter
from nbgrader.api import Gradebook

from ..canary import canary_fault
from ..faults import InfrastructureFault, decide
from ..sandbox import SandboxUnavailable

__all__ = ["NOT_GRADED_COMMENT", "Failure", "ZeroOnFailureExporter", "record_zero"]

NOT_GRADED_COMMENT = "Not graded automatically"  # how every such comment starts: the report finds them by it


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
            return super().from_filename(filename, resources=resources, **kw)
        except SandboxUnavailable as exc:  # nothing to do with the student: stop the whole run, say what to install
            raise InfrastructureFault(str(exc), "Then run the command again.") from None
        except Exception as exc:
            fault = decide(exc, self._course(), lambda: canary_fault(self._course(), resources["nbgrader"]["assignment"],
                                                                     self.config))
            if fault is not None:
                raise fault from exc
            error = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
            try:
                self.failure = record_zero(resources["nbgrader"], error, self.log)
            except Exception:  # the original error matters more than a failed bookkeeping step
                self.log.exception("could not record the failed notebook in the gradebook")
            raise

    def _course(self) -> str:
        return self.config.CourseDirectory.get("root") or os.getcwd()


def record_zero(info: dict, error: str, log) -> Failure:
    """Set every grade of ``info``'s submitted notebook to 0 and write the reason into its comments."""
    reason = (f"{NOT_GRADED_COMMENT}, scored 0: {error}. After fixing the notebook run "
              f"`nbgrader autograde {info['assignment']} --student {info['student']} --force`.")
    log.error("%s: %s", info["student"], reason)
    with Gradebook(info["db_url"]) as gradebook:
        notebook = gradebook.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
        for grade in notebook.grades:
            grade.auto_score, grade.needs_manual_grade = 0.0, False
        for comment in notebook.comments:
            comment.auto_comment = reason
        gradebook.db.commit()
    return Failure(info["student"], error, reason)

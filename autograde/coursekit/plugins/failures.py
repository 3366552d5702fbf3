"""A notebook that cannot be graded scores 0, with the reason, and the class goes on.

Invalid JSON, a kernel killed by student code (``os._exit``), duplicated cells …: nbgrader logs
the error, removes that student's autograded copy and goes on with the next student. Before
that, :class:`ZeroOnFailureExporter` (``Autograde.exporter_class``) sets every grade of the
notebook to 0 and writes the reason into its comments in the gradebook — where the formgrader,
``nbgrader.api`` and the class report read it — and keeps it as data (:attr:`failure`) for the
grading worker that asked. A sandbox that cannot start on this machine is no student's fault:
the run stops with the one line that says what to install, and nobody is given a 0.
"""
from dataclasses import dataclass

from nbconvert.exporters import NotebookExporter
from nbgrader.api import Gradebook

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
            raise SystemExit(str(exc)) from None
        except Exception as exc:
            error = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
            try:
                self.failure = record_zero(resources["nbgrader"], error, self.log)
            except Exception:  # the original error matters more than a failed bookkeeping step
                self.log.exception("could not record the failed notebook in the gradebook")
            raise


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

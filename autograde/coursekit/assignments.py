"""What an assignment adds to plain nbgrader: the course config names a plug-in, and a grader, per assignment.

    c.CourseKit.assignments = {
        "ch04_attention": {"plugin": "attnkit.course", "grader": GRADER},   # Chapter 4: its own plug-in and grader
    }                                                                        # ps1, not named: plain nbgrader

Every command of the toolkit works on any nbgrader assignment — ``make grade`` (sandboxed, forked
kernels), the grading service, Validate, the feedback and marking pages, ``make report`` — with
nbgrader's own data: its test cells run in the student's kernel and score what nbgrader reads there.
An assignment may add, through its plug-in (a module; every attribute optional, see :class:`Plain`):

* ``PRELOAD``: modules its kernels import before any student, once, in the kernel template;
* ``FOLDERS``: package folders the sandboxed kernel must see beside site-packages (an editable install);
* ``CALL_HOOK``: ``"module:function"`` through which its grader's calls reach the student's functions;
* ``prepare(course, log)``: work before its notebooks run (e.g. figures drawn once, outside the sandbox),
  and ``shared_folder()``: a folder of such work the kernels see read-only;
* ``read_records(nb)``: its grader's structured records in an autograded notebook, for the report;
* ``cell_names(nb)``: what its graded cells are called where students and instructors see them;
* ``report``: its extra tables for the class report (:mod:`coursekit.report`).

And, with ``"grader"``, a grader of its own (a course folder's ``grader/__init__.py``) that runs in a
process beside each kernel, the student never sees, and whose verdict replaces each test cell's
output (:mod:`coursekit.plugins.grader_process`). No module of coursekit imports a plug-in by name:
it is loaded from the config, here.
"""
import importlib
import pathlib
from dataclasses import dataclass

from traitlets import Dict
from traitlets.config import Configurable

__all__ = ["CourseKit", "Assignment", "Plain", "assignment_of", "for_notebook_folder"]


class CourseKit(Configurable):
    """The course toolkit's per-assignment settings (``c.CourseKit`` in ``nbgrader_config.py``)."""

    assignments = Dict(help="{assignment id: {'plugin': 'module', 'grader': '…/grader/__init__.py'}}: what each "
                            "assignment adds to plain nbgrader; an assignment not named here is graded as nbgrader "
                            "grades it.").tag(config=True)


class Plain:
    """The plug-in of an assignment that declares none: nbgrader's own behaviour everywhere."""

    PRELOAD = ()
    FOLDERS = ()
    CALL_HOOK = ""
    report = None

    @staticmethod
    def prepare(course, log) -> None:
        return None

    @staticmethod
    def shared_folder():
        return None

    @staticmethod
    def read_records(nb) -> dict:
        return {}

    @staticmethod
    def cell_names(nb) -> dict:
        return {}


@dataclass(frozen=True)
class Assignment:
    """One assignment as the toolkit sees it: its id, its plug-in (a module, or :class:`Plain`), its grader."""
    id: str
    plugin: object = Plain
    grader: str = ""  # "" : no grader process, test cells run in the kernel as nbgrader runs them

    def get(self, name: str):
        """The plug-in's ``name``, or the plain default."""
        return getattr(self.plugin, name, getattr(Plain, name))


def assignment_of(assignment_id: str, config=None) -> Assignment:
    """The assignment ``assignment_id`` with what the course config declares for it."""
    declared = CourseKit(config=config).assignments.get(assignment_id) or {}
    unknown = set(declared) - {"plugin", "grader"}
    if unknown:
        raise ValueError(f"c.CourseKit.assignments[{assignment_id!r}] has unknown keys {sorted(unknown)}: "
                         "expected 'plugin' and/or 'grader'")
    plugin = importlib.import_module(declared["plugin"]) if declared.get("plugin") else Plain
    return Assignment(assignment_id, plugin, str(declared.get("grader") or ""))


def for_notebook_folder(folder, config=None) -> Assignment:
    """The assignment a notebook being graded or validated belongs to: nbgrader keeps every notebook of an
    assignment in a folder named after it (source/, release/, submitted/<student>/, autograded/<student>/, and
    the student's fetched copy)."""
    return assignment_of(pathlib.Path(folder).resolve().name, config)

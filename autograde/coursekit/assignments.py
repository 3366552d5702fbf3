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
* ``prepare(course, shared, log)``: work before its notebooks are graded (e.g. figures drawn once, outside
  the sandbox, into ``shared``), and ``shared_folder()``: that folder, which the kernels see read-only,
  named to them by the environment variable ``SHARED_ENV``;
* ``cell_names(nb)``: what its graded cells are called where students and instructors see them;
* ``stubs(nb)``: what its release puts where a solution was (``{"code": …, "text": …}``, nbgrader's
  ``ClearSolutions`` stubs; :mod:`coursekit.stubs`);
* ``PRIVATE_METADATA``: keys of its master's cell metadata that its release must not carry (notes for the
  instructor's tools, another language's reference answers; :mod:`coursekit.plugins.private_metadata`);
* ``reteach(bug, lang)``: for the class report, what to reteach for a mistake its grader's diagnosis names, in
  ``lang`` (the course's language);
* ``unnamed(bug)``: whether a finding of its diagnosis is one it has no name for (wrong values), which does not
  explain why a cell passes its visible checks and fails its hidden ones (:func:`coursekit.record.may_be_hard_coded`).

And, with ``"grader"``, a grader of its own (a course folder's ``grader/__init__.py``) that runs in a
process beside each kernel, the student never sees, and whose verdict replaces each test cell's
output (:mod:`coursekit.kernel.grader_process`). No module of coursekit imports a plug-in by name:
it is loaded from the config, here.

An assignment written in several languages is one assignment per language, each an nbgrader
assignment of its own (nbgrader sums an assignment's notebooks, and a student works in one
language), with the same plug-in and grader. Each other language's names the assignment it was
written from and its language::

    "ch04_attention_en": {"plugin": "attnkit.course", "grader": GRADER,
                          "edition_of": "ch04_attention", "language": "en"},

so that a command that is not told which assignment to work on takes all of them
(:func:`default_assignments`), the marking page names each question in the course's language whichever
edition its students wrote (:func:`edition_in`), and a page about a submission that could not be read is
in the edition's language (:attr:`Assignment.language`). What each student reads otherwise follows
their notebook's own language (:mod:`coursekit.language`); the instructor's tools speak the course's,
``c.CourseKit.language``.
"""
import importlib
import importlib.util
import inspect
import os
import pathlib
import sys
from dataclasses import dataclass

from .language import DEFAULT, checked
from .settings import CourseKit

__all__ = ["CourseKit", "Assignment", "Plain", "World", "assignment_of", "for_notebook_folder", "world_of",
           "editions_of", "edition_in", "one_work", "default_assignments"]

KEYS = ("plugin", "grader", "edition_of", "language")  # what c.CourseKit.assignments may say of an assignment


def load_grader(path: str):
    """The grader package at ``path`` (…/grader/__init__.py), under a name no student's file has."""
    spec = importlib.util.spec_from_file_location("attn_course_grader", path,
                                                  submodule_search_locations=[os.path.dirname(path)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Plain:
    """The plug-in of an assignment that declares none: nbgrader's own behaviour everywhere."""

    PRELOAD = ()
    FOLDERS = ()
    CALL_HOOK = ""
    SHARED_ENV = ""
    PRIVATE_METADATA = ()

    @staticmethod
    def prepare(course, shared, log) -> None:
        return None

    @staticmethod
    def shared_folder():
        return None

    @staticmethod
    def cell_names(nb) -> dict:
        return {}

    @staticmethod
    def reteach(bug: str, lang: str) -> str:
        return ""

    @staticmethod
    def mistake_name(bug: str, lang: str) -> str:
        return bug

    @staticmethod
    def unnamed(bug: str) -> bool:
        return False

    @staticmethod
    def stubs(nb):
        return None


@dataclass(frozen=True)
class Assignment:
    """One assignment as the toolkit sees it: its id, its plug-in (a module, or :class:`Plain`), its grader."""
    id: str
    plugin: object = Plain
    grader: str = ""  # "" : no grader process, test cells run in the kernel as nbgrader runs them
    edition_of: str = ""  # the assignment this one is written from, in another language ("": none, it is its own)
    language: str = DEFAULT  # its students' language where no notebook says it

    @property
    def master(self) -> str:
        """The assignment its editions are written from: ``edition_of``, else itself."""
        return self.edition_of or self.id

    def get(self, name: str):
        """The plug-in's ``name``, or the plain default."""
        return getattr(self.plugin, name, getattr(Plain, name))

    def load_grader(self):
        """The assignment's grader package loaded in this process (the course's own code: the grader process, or an
        instructor's tool asking what a check of it is called); None without a grader."""
        return load_grader(self.grader) if self.grader else None

    async def prepare(self, log) -> None:
        """The plug-in's work before grading (awaited if it is a coroutine): for a course's own notebooks only."""
        if self.grader:
            done = self.get("prepare")(pathlib.Path(self.grader).parents[1], self.get("shared_folder")(), log)
            if inspect.isawaitable(done):
                await done


def assignment_of(assignment_id: str, config=None) -> Assignment:
    """The assignment ``assignment_id`` with what the course config declares for it."""
    declared = CourseKit(config=config).assignments.get(assignment_id) or {}
    where = f"c.CourseKit.assignments[{assignment_id!r}]"
    unknown = set(declared) - set(KEYS)
    if unknown:
        raise ValueError(f"{where} has unknown keys {sorted(unknown)}: expected some of {', '.join(map(repr, KEYS))}")
    lang = checked(declared.get("language", DEFAULT), f"{where}['language']")
    plugin = importlib.import_module(declared["plugin"]) if declared.get("plugin") else Plain
    return Assignment(assignment_id, plugin, str(declared.get("grader") or ""), str(declared.get("edition_of") or ""),
                      lang)


def for_notebook_folder(folder, config=None) -> Assignment:
    """The assignment a notebook being graded or validated belongs to: nbgrader keeps every notebook of an
    assignment in a folder named after it (source/, release/, submitted/<student>/, autograded/<student>/, and
    the student's fetched copy)."""
    return assignment_of(pathlib.Path(folder).resolve().name, config)


@dataclass(frozen=True)
class World:
    """What every grading kernel of a course is forked with (one kernel template for all its assignments): the
    modules preloaded, the package folders and graders' folders it is shown, the shared folder and its variable."""
    preload: tuple = ()
    folders: tuple = ()
    graders: tuple = ()  # the graders' folders (each …/grader), in a fixed order
    shared: str = ""
    shared_env: str = ""

    def grader_index(self, grader: str) -> int:
        """Where the grader ``…/grader/__init__.py`` is among :attr:`graders` (its folder inside the sandbox)."""
        return self.graders.index(str(pathlib.Path(grader).resolve().parent))


def world_of(config=None) -> World:
    """The union of what the course's assignments declare; an error if two declare different shared folders."""
    declared = [assignment_of(name, config) for name in sorted(CourseKit(config=config).assignments)]
    shared = {(str(a.get("shared_folder")() or ""), a.get("SHARED_ENV")) for a in declared} - {("", "")}
    if len(shared) > 1:
        raise ValueError(f"the course's plug-ins declare different shared folders {sorted(shared)}: one is possible")
    folder, env = next(iter(shared), ("", ""))
    return World(tuple(dict.fromkeys(m for a in declared for m in a.get("PRELOAD"))),
                 tuple(dict.fromkeys(str(f) for a in declared for f in a.get("FOLDERS"))),
                 tuple(sorted({str(pathlib.Path(a.grader).resolve().parent) for a in declared if a.grader})),
                 folder, env)


def editions_of(assignment_id: str, config=None) -> dict:
    """``{language: assignment id}`` of every edition of ``assignment_id``'s master (itself included), the master's
    language first; an assignment in one language only: ``{its language: itself}``."""
    master = assignment_of(assignment_id, config).master
    declared = CourseKit(config=config).assignments
    found = [assignment_of(name, config) for name in sorted(declared) if (declared[name] or {}).get("edition_of")
             == master]
    editions = {assignment_of(master, config).language: master}
    for edition in found:
        editions.setdefault(edition.language, edition.id)
    return editions


def edition_in(assignment_id: str, lang: str, config=None) -> str:
    """The edition of ``assignment_id`` written in ``lang`` (``ch04_attention_en`` for English); "" when none is."""
    return editions_of(assignment_id, config).get(lang, "")


def one_work(names, config=None) -> list:
    """``names`` (assignment ids) as one piece of work: the only one, or the editions of one master (master first);
    ``[]`` when they are none, or several pieces of work."""
    names = sorted(set(names))
    if len(names) <= 1:
        return names
    masters = {assignment_of(name, config).master for name in names}
    if len(masters) != 1:
        return []
    return [name for name in editions_of(names[0], config).values() if name in names]


def default_assignments(course, config=None) -> list:
    """What a command works on when it is not told: ``$ASSIGNMENT``, else the course's only assignment
    (``source/<assignment>/``), or every edition of it; a ValueError naming them when the course has several."""
    named = os.environ.get("ASSIGNMENT", "").strip()
    if named:
        return [named]
    found = sorted(p.name for p in (pathlib.Path(course) / "source").glob("*/") if not p.name.startswith("."))
    if not found:
        raise ValueError(f"{course}/source/ holds no assignment: name one (ASSIGNMENT=… for make)")
    work = one_work(found, config)
    if not work:
        raise ValueError(f"{course} has {len(found)} assignments ({', '.join(found)}): name one "
                         "(ASSIGNMENT=… for make)")
    return work

"""Where the course's files are, which folder a command works on (its ``--course``), and a throw-away copy of the
course.

A course folder holds ``nbgrader_config.py``, the master under ``source/``, the kernel-side
``grader/`` and everything nbgrader generates (release/, submitted/, gradebook.db …). This
repository's course is ``autograde/``; a hub instructor's is ``~/course``. Every command finds
its course with :func:`find_course` (each command line's ``--course``: :func:`add_course_option`, and
:func:`usage_errors` for a folder that is none), and the course config its grader with :func:`grader_of`.

Installed as a package (the hub's user environment: a wheel, never the course), this module lies
in ``site-packages`` and :data:`COURSE` names no course: commands then work on the folder they
are run from, or the one they are given, and say so when it holds no ``nbgrader_config.py``.
"""
import contextlib
import os
import pathlib
import shutil

__all__ = ["COURSE", "REPO", "ASSIGNMENT", "MASTER", "STUDENT_NOTEBOOK", "GRADER", "CONFIG_FILE",
           "COURSE_PARTS", "grader_of", "find_course", "add_course_option", "usage_errors", "copy_course",
           "source_notebook"]

COURSE = pathlib.Path(__file__).resolve().parents[1]  # autograde/ (this package lives in it)
REPO = COURSE.parent
ASSIGNMENT = "ch04_attention"  # this repository's chapter (its scripts and tests); the toolkit's commands ask
CONFIG_FILE = "nbgrader_config.py"
MASTER = COURSE / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
STUDENT_NOTEBOOK = REPO / "notebooks" / f"{ASSIGNMENT}.ipynb"

COURSE_PARTS = ("source", "grader", "rubrics", CONFIG_FILE, "Makefile")  # what a course copy takes: never what nbgrader generates


def grader_of(course) -> pathlib.Path:
    """The grader of ``course`` (``grader/__init__.py``), as its config names it for its chapter
    (``c.CourseKit.assignments``); its grader processes load it."""
    return pathlib.Path(course).resolve() / "grader" / "__init__.py"


GRADER = grader_of(COURSE)


def find_course(explicit=None) -> pathlib.Path:
    """The course a command works on: ``explicit``, else the current folder when it holds an
    ``nbgrader_config.py`` (as nbgrader itself decides), else this repository's ``autograde/``
    (when this module is the repository's, not an installed copy)."""
    if explicit:
        course = pathlib.Path(explicit).resolve()
        if not course.is_dir():
            raise FileNotFoundError(f"no course folder {course} (give the folder that holds {CONFIG_FILE})")
        return course
    here = pathlib.Path(os.getcwd()).resolve()
    if (here / CONFIG_FILE).is_file():
        return here
    if not (COURSE / CONFIG_FILE).is_file():
        raise FileNotFoundError(f"{here} holds no {CONFIG_FILE}: run the command from the course folder "
                                "(e.g. cd ~/course), or name it with --course")
    return COURSE


def add_course_option(parser) -> None:
    """A command line's ``--course DIR``, as :func:`find_course` reads it."""
    parser.add_argument("--course", default=None, help="the course folder (default: the current one when it holds "
                                                       f"{CONFIG_FILE}, else the repository's autograde/)")


@contextlib.contextmanager
def usage_errors(parser):
    """Within it, a course folder that is none or a setting it cannot use (``FileNotFoundError``, ``ValueError``)
    ends the command as argparse ends a wrong argument: the usage, the one line, exit status 2."""
    try:
        yield
    except (FileNotFoundError, ValueError) as error:
        parser.error(str(error))


def source_notebook(course, assignment: str) -> pathlib.Path:
    """Where nbgrader keeps an assignment's source notebook of the same name: ``source/<assignment>/<assignment>.ipynb``."""
    return pathlib.Path(course) / "source" / assignment / f"{assignment}.ipynb"


def copy_course(dest, source=COURSE) -> pathlib.Path:
    """Copy the course ``source`` (config, master, grader; nothing generated) into ``dest``; return ``dest``."""
    dest, source = pathlib.Path(dest), pathlib.Path(source)
    skip = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    dest.mkdir(parents=True, exist_ok=True)
    for name in COURSE_PARTS:
        if (source / name).is_dir():
            shutil.copytree(source / name, dest / name, ignore=skip, dirs_exist_ok=True)
        elif (source / name).is_file():
            shutil.copy2(source / name, dest / name)
    return dest

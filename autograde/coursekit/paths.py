"""Where the course's files are, and how to make a throw-away copy of the course.

A copy holds what nbgrader needs to run the course elsewhere (tests, `make release`, a hub):
the master under ``source/``, ``nbgrader_config.py``, the kernel-side ``grader/`` and this
package. Nothing generated (release/, submitted/, gradebook.db …) is copied.
"""
import pathlib
import shutil

COURSE = pathlib.Path(__file__).resolve().parents[1]  # autograde/
REPO = COURSE.parent
ASSIGNMENT = "ch04_attention"
MASTER = COURSE / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
STUDENT_NOTEBOOK = REPO / "notebooks" / f"{ASSIGNMENT}.ipynb"
GRADER = COURSE / "grader" / "__init__.py"

_COPIED_DIRS = ("source", "grader", "coursekit")


def copy_course(dest) -> pathlib.Path:
    """Copy the course (sources, config, grader, coursekit) into ``dest`` (must not exist); return it."""
    dest = pathlib.Path(dest)
    skip = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    for name in _COPIED_DIRS:
        shutil.copytree(COURSE / name, dest / name, ignore=skip)
    shutil.copy2(COURSE / "nbgrader_config.py", dest)
    return dest

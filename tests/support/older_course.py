"""An older third-party nbgrader course, built here: notebooks written in nbgrader's metadata schema v1 (with a task
cell, as nbgrader's Create Assignment toolbar adds one today), migrated with ``nbgrader update`` as its instructor would.

What the migration leaves is what nbgrader's own autograde cannot read: the plain cells of a v1 notebook carry
nbgrader metadata without a grade id (``{"grade": false, "solution": false, "locked": false}``), which ``nbgrader
update`` keeps, and ``OverwriteCells.add_missing_cells`` (the course's setting) then stops on every submission with
``KeyError: 'grade_id'`` (stock ``nbgrader autograde`` with that setting too). tests/integration/test_any_assignment.py
grades a class of it. Nothing here is copied from nbgrader's documentation course.
"""
import pathlib
import subprocess
import sys

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ASSIGNMENT = "old1"
NOTEBOOK = "problem1"


def _v1(**roles) -> dict:
    """A cell's nbgrader metadata as schema v1 wrote it."""
    return {"nbgrader": {"grade": False, "solution": False, "locked": False, "schema_version": 1, **roles}}


def notebook() -> nbformat.NotebookNode:
    """The older course's problem, as its author saved it years ago (and a task cell added since)."""
    cells = [
        new_markdown_cell("# Problem set 1: squares\n\nWrite `square` and explain it.", metadata=_v1()),
        new_code_cell("def square(x):\n    \"\"\"x times x.\"\"\"\n    ### BEGIN SOLUTION\n    return x * x\n"
                      "    ### END SOLUTION", metadata=_v1(solution=True, grade_id="square")),
        new_code_cell("\"\"\"Check that square squares.\"\"\"\nassert square(3) == 9\nassert square(-2) == 4",
                      metadata=_v1(grade=True, locked=True, grade_id="test_square", points=2)),
        new_markdown_cell("Explain, in a sentence, why `square(-2)` is positive.",
                          metadata={"nbgrader": {"grade": False, "solution": False, "locked": True, "task": True,
                                                 "grade_id": "task_explain", "points": 1, "schema_version": 3}}),
        new_markdown_cell("*Hint:* a product of two negatives.", metadata=_v1()),
    ]
    return new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                              "language": "python"}})


def add_source(course, env=None) -> pathlib.Path:
    """``source/old1/problem1.ipynb`` in ``course``, migrated to today's schema by ``nbgrader update``; its path."""
    path = pathlib.Path(course) / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(notebook(), path)
    done = subprocess.run([sys.executable, "-m", "nbgrader", "update", str(path)], cwd=course, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return path


def submit(course, students) -> None:
    """Each of ``students`` hands in the release untouched, as collected (``submitted/<student>/old1/``)."""
    release = pathlib.Path(course) / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    for student in students:
        folder = pathlib.Path(course) / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / release.name).write_bytes(release.read_bytes())

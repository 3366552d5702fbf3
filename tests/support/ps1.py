"""nbgrader's own documentation course, ``ps1``, as a second assignment beside Chapter 4, from the installed wheel.

nbgrader ships it under ``nbgrader/docs/source/user_guide/``: the source (problem1 and problem2: code
answers, test cells, markdown answers, a manually graded code cell, a task, an image), two real
submissions (bitdiddle, hacker) and nbgrader's own autograded notebooks for them. It is read from there
at test time, never copied into the repository. :func:`class_of` adds a synthetic class: the release
untouched, answered correctly, answered wrongly, and the release with each hostile cell of the
red-team table (tests/support/redteam.py) after its first answer.
"""
import copy
import pathlib
import shutil

import nbformat
import nbgrader
from nbgrader import utils

from support.cases import with_cell_after
from support.redteam import ATTACKS, attack_cell

__all__ = ["DOCS", "ASSIGNMENT", "REAL", "NOTEBOOKS", "add_source", "nbgraders_scores", "class_of", "submit",
           "UNTOUCHED", "RED", "LOOPS"]

DOCS = pathlib.Path(nbgrader.__file__).parent / "docs" / "source" / "user_guide"
ASSIGNMENT = "ps1"
NOTEBOOKS = ("problem1", "problem2")
REAL = ("bitdiddle", "hacker")  # nbgrader's two real submissions
UNTOUCHED = "ps1_untouched"
RED = tuple(f"ps1_red_{name}" for name in ATTACKS)

SQUARES = '''def squares(n):
    """Compute the squares of numbers from 1 to n."""
    if n < 1:
        raise ValueError("n must be at least 1")
    return [i ** 2 for i in range(1, n + 1)]
'''
SUM_OF_SQUARES = '''def sum_of_squares(n):
    """Compute the sum of the squares of numbers from 1 to n."""
    return sum(squares(n))
'''
# The same loop of their own in two students' sum_of_squares: the one pair the report should flag (the others share
# only the source's own solution, which is common ground).
LOOP_SUM = '''def sum_of_squares(n):
    total = 0
    for value in squares(n):
        total = total + value
    return total
'''
LOOPS = ("ps1_loop_a", "ps1_loop_b")
WRONG_SQUARES = '''def squares(n):
    """Off by one, and no check of n."""
    return [i ** 2 for i in range(n)]
'''


def add_source(course) -> None:
    """``source/ps1`` of nbgrader's docs course into ``course`` (beside what is there)."""
    shutil.copytree(DOCS / "source" / ASSIGNMENT, pathlib.Path(course) / "source" / ASSIGNMENT)


def nbgraders_scores(student: str) -> dict:
    """``{grade_id: auto score}`` of nbgrader's own autograded notebooks of ``student`` (as its docs ship them)."""
    scores = {}
    for path in sorted((DOCS / "autograded" / student / ASSIGNMENT).glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if utils.is_grade(cell):
                scores[cell.metadata.nbgrader.grade_id] = utils.determine_grade(cell)[0]
    return scores


def _answered(nb, grade_id: str, source: str):
    nb = copy.deepcopy(nb)
    next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id).source = source
    return nb


def class_of(release) -> dict:
    """``{student: {notebook: nb}}``: the synthetic class made from the release (``{notebook: nb}``): untouched,
    correct, a wrong ``squares``, two with the same loop of their own (:data:`LOOPS`), and the red-team rows."""
    problem1, problem2 = release["problem1"], release["problem2"]
    correct = _answered(_answered(problem1, "squares", SQUARES), "sum_of_squares", SUM_OF_SQUARES)
    students = {UNTOUCHED: {"problem1": problem1, "problem2": problem2},
                "ps1_correct": {"problem1": correct, "problem2": problem2},
                "ps1_wrong_squares": {"problem1": _answered(correct, "squares", WRONG_SQUARES), "problem2": problem2}}
    students.update({name: {"problem1": _answered(correct, "sum_of_squares", LOOP_SUM), "problem2": problem2}
                     for name in LOOPS})
    for name in ATTACKS:
        students[f"ps1_red_{name}"] = {"problem1": with_cell_after(problem1, "squares", attack_cell(name)),
                                       "problem2": problem2}
    return students


def submit(course, student: str, notebooks: dict, timestamp: str = "2026-12-03 10:00:00.000000 UTC") -> None:
    """``notebooks`` into ``submitted/<student>/ps1/`` as ``nbgrader collect`` leaves them (with the image)."""
    folder = pathlib.Path(course) / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    for name, nb in notebooks.items():
        if nb.nbformat_minor < 5:  # as old as nbgrader's docs: no cell ids (a student's added cell got one)
            nb = copy.deepcopy(nb)
            for cell in nb.cells:
                cell.pop("id", None)
        nbformat.write(nb, folder / f"{name}.ipynb")
    shutil.copy(DOCS / "source" / ASSIGNMENT / "jupyter.png", folder / "jupyter.png")
    (folder / "timestamp.txt").write_text(timestamp)


def submit_real(course, student: str) -> None:
    """nbgrader's own submission of ``student`` (bitdiddle, hacker), as shipped."""
    shutil.copytree(DOCS / "submitted" / student / ASSIGNMENT, pathlib.Path(course) / "submitted" / student / ASSIGNMENT)

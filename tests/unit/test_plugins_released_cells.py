"""Does OverwriteCellsFromRelease restore cells as nbgrader's OverwriteCells does, with one query per kind of cell?"""
import copy

import pytest
import sqlalchemy
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import OverwriteCells

from coursekit.autograded import NOTEBOOK_KEY
from coursekit.plugins.released_cells import CellsAtOnce, OverwriteCellsFromRelease
from support.synthetic_class import empty_gradebook

NB = ASSIGNMENT = "ch04_attention"
HIDDEN = "_score = 1.0\n### BEGIN HIDDEN TESTS\n_score = secret()\n### END HIDDEN TESTS\n_score"


def _cell(make, source, **nbgrader):
    cell = make(source)
    cell.metadata["nbgrader"] = {"grade": False, "solution": False, "locked": False, "schema_version": 3, **nbgrader}
    cell.metadata["nbgrader"]["checksum"] = utils.compute_checksum(cell)
    return cell


def _master(tests: int) -> list:
    """The master's nbgrader cells: a written answer, a solution, a task, ``tests`` locked test cells."""
    return [_cell(new_markdown_cell, "说明", locked=True, grade_id="intro"),
            _cell(new_code_cell, "def f():\n    return 1", solution=True, grade_id="answer"),
            _cell(new_markdown_cell, "为什么？", grade=True, solution=True, grade_id="why", points=2.0),
            _cell(new_markdown_cell, "任务", task=True, grade_id="task", points=1.0, locked=True),
            *[_cell(new_code_cell, HIDDEN.replace("1.0", str(k)), grade=True, locked=True, grade_id=f"test{k}",
                    points=float(k)) for k in range(1, tests + 1)]]


def _gradebook(path, master: list) -> str:
    url = empty_gradebook(path)
    with Gradebook(url) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(NB, ASSIGNMENT)
        for cell in master:
            meta = cell.metadata.nbgrader
            gb.add_source_cell(meta["grade_id"], NB, ASSIGNMENT, cell_type=cell.cell_type, locked=meta["locked"],
                               source=cell.source, checksum=meta["checksum"])
            if meta.get("task"):
                gb.add_task_cell(meta["grade_id"], NB, ASSIGNMENT, max_score=meta["points"], cell_type=cell.cell_type)
            elif meta.get("grade"):
                gb.add_grade_cell(meta["grade_id"], NB, ASSIGNMENT, max_score=meta["points"], cell_type=cell.cell_type)
    return url


def _submission(master: list):
    """The master as a student hands it in: hidden regions gone, one test cell edited, points and a type changed,
    and a cell the gradebook does not know."""
    cells = copy.deepcopy(master)
    for cell in cells:
        cell.source = cell.source.split("### BEGIN")[0] + "_score" if "HIDDEN" in cell.source else cell.source
    cells[-1].source = "_score = 4.0\n_score"  # the student edited the last test cell
    cells[2].metadata.nbgrader["points"] = 99.0
    cells[3].cell_type = "code"
    cells[3].outputs, cells[3].execution_count = [], None
    cells.append(_cell(new_code_cell, "x = 1", grade=True, grade_id="not_in_gradebook", points=1.0))
    return new_notebook(cells=cells)


def _overwritten(step, url: str, submission):
    """(the notebook ``step`` made of a copy of ``submission``, how many SQL statements it ran)."""
    statements = []
    count = lambda *args: statements.append(1)  # noqa: E731
    resources = {"nbgrader": {"notebook": NB, "assignment": ASSIGNMENT, "db_url": url}}
    sqlalchemy.event.listen(sqlalchemy.engine.Engine, "before_cursor_execute", count)
    try:
        nb, _ = step().preprocess(copy.deepcopy(submission), resources)
    finally:
        sqlalchemy.event.remove(sqlalchemy.engine.Engine, "before_cursor_execute", count)
    return nb, len(statements)


def test_is_every_cell_restored_as_by_nbgrader(tmp_path):
    """Locked sources, checksums, points, cell types and an unknown cell: the same notebook as nbgrader's own,
    plus the record of the one test cell the student really changed?"""
    master = _master(4)
    url, submission = _gradebook(tmp_path / "gradebook.db", master), _submission(master)
    theirs, _ = _overwritten(OverwriteCells, url, submission)
    ours, _ = _overwritten(OverwriteCellsFromRelease, url, submission)
    assert ours.metadata.pop(NOTEBOOK_KEY) == {"changed_cells": ["test4"]}
    assert ours == theirs
    assert theirs.cells[-2].source == HIDDEN.replace("1.0", "4") and theirs.cells[2].metadata.nbgrader["points"] == 2.0
    assert theirs.cells[3].cell_type == "markdown" and "grade_id" not in theirs.cells[-1].metadata.nbgrader


def test_does_it_look_cells_up_once_per_kind_not_once_per_cell(tmp_path):
    """The same number of SQL statements for 4 test cells as for 12, where nbgrader's grows with the cells?"""
    few, many = ((_gradebook(tmp_path / f"gradebook-{n}.db", _master(n)), _submission(_master(n))) for n in (4, 12))
    assert _overwritten(OverwriteCellsFromRelease, *few)[1] == _overwritten(OverwriteCellsFromRelease, *many)[1]
    assert _overwritten(OverwriteCells, *many)[1] >= _overwritten(OverwriteCells, *few)[1] + 16


def test_does_a_name_it_did_not_fetch_get_the_gradebooks_own_answer(tmp_path):
    """A cell of another notebook or one that does not exist: nbgrader's own query and MissingEntry?"""
    with Gradebook(_gradebook(tmp_path / "gradebook.db", _master(2))) as gb:
        cells = CellsAtOnce(gb, NB, ASSIGNMENT)
        assert cells.find_source_cell("test1", NB, ASSIGNMENT) is gb.find_source_cell("test1", NB, ASSIGNMENT)
        assert cells.find_graded_cell("task", NB, ASSIGNMENT) is gb.find_graded_cell("task", NB, ASSIGNMENT)
        with pytest.raises(MissingEntry, match="No such source cell: ch04_attention/ch04_attention/nope"):
            cells.find_source_cell("nope", NB, ASSIGNMENT)
        with pytest.raises(MissingEntry):
            cells.find_graded_cell("test1", "another", ASSIGNMENT)

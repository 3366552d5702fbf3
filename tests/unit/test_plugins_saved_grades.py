"""Does SaveAutoGradesAtOnce write exactly what nbgrader's SaveAutoGrades writes, in one commit?"""
import shutil

import pytest
import sqlalchemy
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import SaveAutoGrades

from coursekit.autograded import ANSWERS_BEFORE, marks_to_redo
from coursekit.plugins.saved_grades import SaveAutoGradesAtOnce, with_grades_saved_at_once
from support.synthetic_class import gradebook_of

NB = ASSIGNMENT = "ch04_attention"


def _cell(make, source, released=True, outputs=(), **nbgrader):
    """A cell with nbgrader metadata; ``released``: its checksum is the one of this source (left as released)."""
    cell = make(source)
    cell.metadata["nbgrader"] = {"grade": False, "solution": False, "locked": False, "schema_version": 3, **nbgrader}
    cell.metadata["nbgrader"]["checksum"] = utils.compute_checksum(cell) if released else "0" * 32
    if outputs:
        cell.outputs = list(outputs)
    return cell


def _notebook():
    """Every kind of cell SaveAutoGrades treats: scored, partial, failed, written (blank, answered, marked), task."""
    result = new_output("execute_result", data={"text/plain": "1.5"}, execution_count=1)
    return new_notebook(cells=[
        _cell(new_code_cell, "# TEST 1", grade=True, locked=True, grade_id="test1", points=4.0),
        _cell(new_code_cell, "# TEST 2", grade=True, locked=True, grade_id="test2", points=3.0, outputs=[result]),
        _cell(new_code_cell, "# TEST 3", grade=True, locked=True, grade_id="test3", points=3.0,
              outputs=[new_output("error", ename="AssertionError", evalue="", traceback=[])]),
        _cell(new_markdown_cell, "在这里作答", grade=True, solution=True, grade_id="q_blank", points=1.0),
        _cell(new_markdown_cell, "因为方差", released=False, grade=True, solution=True, grade_id="q_answered",
              points=1.0),
        _cell(new_markdown_cell, "已批改", released=False, grade=True, solution=True, grade_id="q_marked", points=1.0),
        _cell(new_code_cell, "def f(): ...", released=False, solution=True, grade_id="code_answer"),
        _cell(new_markdown_cell, "任务", task=True, grade_id="task1", points=2.0),
        new_code_cell("x = 1"),
    ])


@pytest.fixture
def gradebook(tmp_path):
    url = gradebook_of(_notebook(), tmp_path / "gradebook.db", ASSIGNMENT)
    with Gradebook(url) as gb:
        gb.find_grade("q_marked", NB, ASSIGNMENT, "s1").manual_score = 0.5  # an instructor marked it earlier
        gb.db.commit()
    return tmp_path / "gradebook.db"


def _commits(action) -> int:
    """How many database transactions ``action()`` commits."""
    commits = []
    record = lambda connection: commits.append(1)  # noqa: E731
    sqlalchemy.event.listen(sqlalchemy.engine.Engine, "commit", record)
    try:
        action()
    finally:
        sqlalchemy.event.remove(sqlalchemy.engine.Engine, "commit", record)
    return len(commits)


def _saved(step, gradebook, copy, notebook=None) -> tuple:
    """(grade rows, comment rows, commits beyond opening the gradebook) after ``step`` saved the notebook's
    scores into a copy of ``gradebook``."""
    shutil.copy(gradebook, copy)
    url = f"sqlite:///{copy}"
    resources = {"nbgrader": {"notebook": NB, "assignment": ASSIGNMENT, "student": "s1", "db_url": url}}
    opening = _commits(lambda: Gradebook(url).close())  # nbgrader's own checks when a Gradebook opens
    commits = _commits(lambda: step().preprocess(notebook or _notebook(), resources)) - opening
    with Gradebook(url) as gb:
        submitted = gb.find_submission_notebook(NB, ASSIGNMENT, "s1")
        grades = sorted((g.name, g.auto_score, g.manual_score, g.needs_manual_grade) for g in submitted.grades)
        comments = sorted((c.name, c.auto_comment) for c in submitted.comments)
    return grades, comments, commits


def test_are_the_rows_nbgraders_own(gradebook, tmp_path):
    """Same grade and comment rows as nbgrader's SaveAutoGrades, for every kind of cell, and the expected ones?"""
    theirs = _saved(SaveAutoGrades, gradebook, tmp_path / "theirs.db")
    ours = _saved(SaveAutoGradesAtOnce, gradebook, tmp_path / "ours.db")
    assert ours[:2] == theirs[:2]
    assert ours[0] == [("q_answered", None, None, True), ("q_blank", 0.0, None, False), ("q_marked", None, 0.5, True),
                       ("task1", None, None, True), ("test1", 4.0, None, False), ("test2", 1.5, None, False),
                       ("test3", 0.0, None, False)]
    assert ours[1] == [("code_answer", None), ("q_answered", None), ("q_blank", "No response."), ("q_marked", None),
                       ("task1", None)]


def test_is_it_one_commit_instead_of_one_per_cell(gradebook, tmp_path):
    """One commit for the notebook, where nbgrader's commits once per graded, solution and task cell?"""
    assert _saved(SaveAutoGradesAtOnce, gradebook, tmp_path / "ours.db")[2] == 1
    assert _saved(SaveAutoGrades, gradebook, tmp_path / "theirs.db")[2] >= 9


def test_does_a_cell_unknown_to_the_gradebook_fail_as_in_nbgrader(gradebook, tmp_path):
    """A graded cell with no row in the submission raises nbgrader's MissingEntry, with both preprocessors?"""
    notebook = _notebook()
    notebook.cells.append(_cell(new_code_cell, "# ?", grade=True, locked=True, grade_id="not_in_gradebook", points=1.0))
    for step, copy in ((SaveAutoGrades, "theirs.db"), (SaveAutoGradesAtOnce, "ours.db")):
        with pytest.raises(MissingEntry):
            _saved(step, gradebook, tmp_path / copy, notebook)


def test_is_only_save_auto_grades_replaced():
    """In a converter's list, SaveAutoGrades becomes SaveAutoGradesAtOnce and the rest stays in place?"""
    assert with_grades_saved_at_once([str, SaveAutoGrades, int]) == [str, SaveAutoGradesAtOnce, int]


def _marked_again(gradebook, tmp_path, before: dict | None) -> tuple:
    """(q_marked's grade row, its comment, the notebook's cleared marks) after grading a resubmission with
    ``before`` as the answers of the copy it replaces (None: not known, as in nbgrader's own autograde)."""
    copy = tmp_path / "again.db"
    shutil.copy(gradebook, copy)
    url = f"sqlite:///{copy}"
    with Gradebook(url) as gb:
        gb.find_comment("q_marked", NB, ASSIGNMENT, "s1").manual_comment = "✓ 方差"
        gb.db.commit()
    info = {"notebook": NB, "assignment": ASSIGNMENT, "student": "s1", "db_url": url}
    if before is not None:
        info[ANSWERS_BEFORE] = before
    nb, _ = SaveAutoGradesAtOnce().preprocess(_notebook(), {"nbgrader": info})
    with Gradebook(url) as gb:
        grade = gb.find_grade("q_marked", NB, ASSIGNMENT, "s1")
        row = (grade.auto_score, grade.manual_score, grade.needs_manual_grade)
        comment = gb.find_comment("q_marked", NB, ASSIGNMENT, "s1").manual_comment
    return row, comment, marks_to_redo(nb)


@pytest.mark.parametrize("before, expected", [
    ({"q_marked": "已批改"}, ((None, 0.5, False), "✓ 方差", [])),  # the text marked: the mark stands, final
    ({"q_marked": "别的回答"}, ((None, None, True), None, ["q_marked"])),  # another text: to mark again, noted
    ({}, ((None, None, True), None, ["q_marked"])),  # no such answer in the copy replaced: not what was marked
    (None, ((None, 0.5, True), "✓ 方差", [])),  # not known: nbgrader's rule (kept, flagged for review)
], ids=["same-text", "changed", "absent-before", "unknown"])
def test_does_a_resubmitted_answer_keep_its_mark_only_if_its_text_is_the_one_marked(gradebook, tmp_path, before,
                                                                                   expected):
    """A written answer marked before the student submitted again: the same text keeps its mark and comment with
    nothing to review; another text loses both, waits for the instructor and is noted in the notebook?"""
    assert _marked_again(gradebook, tmp_path, before) == expected


def test_is_a_marked_answer_taken_back_to_as_released_a_zero_not_the_earlier_mark(gradebook, tmp_path):
    """The answer marked 0.5 is resubmitted exactly as released: nbgrader's automatic 0, nothing pending, the mark
    gone?"""
    notebook = _notebook()
    marked = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "q_marked")
    marked.source = "在这里作答"
    marked.metadata["nbgrader"]["checksum"] = utils.compute_checksum(marked)
    copy = tmp_path / "released.db"
    shutil.copy(gradebook, copy)
    info = {"notebook": NB, "assignment": ASSIGNMENT, "student": "s1", "db_url": f"sqlite:///{copy}",
            ANSWERS_BEFORE: {"q_marked": "已批改"}}
    SaveAutoGradesAtOnce().preprocess(notebook, {"nbgrader": info})
    with Gradebook(f"sqlite:///{copy}") as gb:
        grade = gb.find_grade("q_marked", NB, ASSIGNMENT, "s1")
        assert (grade.auto_score, grade.manual_score, grade.needs_manual_grade, grade.score) == (0.0, None, False, 0.0)

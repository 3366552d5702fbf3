"""Does the report read the grader's records and the changed test cells back from an autograded notebook file?"""
import json
import os

import nbformat
import pytest

from coursekit.record import MIME
from coursekit.autograded import NOTEBOOK_KEY, answers_in, read_graded_notebook
from support.synthetic_class import autograded_notebook, check, finding, payload


def _notebook():
    return autograded_notebook([
        payload("test1_scores", 2.5, [check("verify.3", True, description="out[0][0] == 0.5"),
                                      check("test1.hidden.rect_random", False, description="非方阵")],
                [finding("scores_missing_scale", message="现象：没有乘 scale")]),
        payload("test2_mask", 0.0, status="delegated", reason="调用了参考实现"),
    ])


def test_every_field_of_a_record_is_read(tmp_path):
    """Are checks (visible and hidden), findings, score and status of each test cell read as written?"""
    path = tmp_path / "nb.ipynb"
    nbformat.write(_notebook(), path)
    results = read_graded_notebook(path).records
    assert set(results) == {"test1_scores", "test2_mask"}
    first = results["test1_scores"]
    assert (first.test, first.points, first.score, first.status) == (1, 4.0, 2.5, "graded")
    assert [(c.id, c.visible, c.passed, c.description) for c in first.checks] == [
        ("verify.3", True, True, "out[0][0] == 0.5"), ("test1.hidden.rect_random", False, False, "非方阵")]
    assert [(f.stage, f.bug, f.probe, f.message) for f in first.findings] == [
        ("scores", "scores_missing_scale", "scores/rect", "现象：没有乘 scale")]
    delegated = results["test2_mask"]
    assert (delegated.status, delegated.reason, delegated.checks, delegated.findings) == (
        "delegated", "调用了参考实现", (), ())


def test_a_notebook_without_records_has_no_results(tmp_path):
    """Does a notebook autograded by an older grader (no record) give an empty result, not an error?"""
    path = tmp_path / "nb.ipynb"
    nbformat.write(autograded_notebook([]), path)
    assert read_graded_notebook(path).records == {} and read_graded_notebook(path).changed_cells == ()


def test_an_unknown_schema_is_refused_with_the_file_name(tmp_path):
    """Is a record of another schema version refused, naming the file and both versions?"""
    nb = _notebook()
    nb.cells[1].outputs[1].data[MIME]["schema"] = 2
    path = tmp_path / "student.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(ValueError, match=r"student\.ipynb: grading record schema 2, expected 1"):
        read_graded_notebook(path)


def test_the_changed_test_cells_are_read_from_the_metadata(tmp_path):
    """Are the test cells nbgrader's sanitizing step found changed read back, in order?"""
    nb = _notebook()
    nb.metadata[NOTEBOOK_KEY] = {"changed_cells": ["test2_mask", "test1_scores"]}
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    assert read_graded_notebook(path).changed_cells == ("test2_mask", "test1_scores")


@pytest.mark.parametrize("make", [
    lambda path, tmp: os.mkfifo(path),  # a pipe: never waited on
    lambda path, tmp: (tmp / "elsewhere.ipynb").write_text(json.dumps(
        {"cells": [{"cell_type": "markdown", "source": "x", "metadata": {"nbgrader": {"grade_id": "q1"}}}]}))
    or os.symlink(tmp / "elsewhere.ipynb", path),  # a link: never followed
    lambda path, tmp: path.write_text("{not json"),
    lambda path, tmp: None,  # none at all
], ids=["fifo", "symlink", "not-json", "missing"])
def test_are_the_answers_of_a_copy_that_is_not_a_plain_notebook_none(tmp_path, make):
    """answers_in() of a pipe, a link, garbage or nothing: {} at once (the earlier marks then stay nbgrader's)?"""
    path = tmp_path / "nb.ipynb"
    make(path, tmp_path)
    assert answers_in(path) == {}


def test_are_the_answers_of_an_autograded_notebook_its_nbgrader_cells_sources(tmp_path):
    """Every nbgrader cell's source by its grade id; other cells left out?"""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("答案"), nbformat.v4.new_code_cell("x = 1")])
    nb.cells[0].metadata["nbgrader"] = {"grade_id": "q1", "solution": True, "grade": True, "points": 1}
    nbformat.write(nb, tmp_path / "nb.ipynb")
    assert answers_in(tmp_path / "nb.ipynb") == {"q1": "答案"}

"""Do the course's nbgrader plugins (coursekit.plugins) work on small synthetic notebooks?

As nbgrader tests its own preprocessors: notebooks built with nbformat, a gradebook built with
nbgrader.api in a temp folder, no CLI. The CLI runs are in tests/integration/.
"""
import logging

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from nbgrader.api import Gradebook

from coursekit.record import MIME
from coursekit.kernel import GradingKernelManager
from coursekit.plugins import ClearHiddenTestsInFeedback, RejectDuplicateIds
from coursekit.plugins.failures import record_zero
from support.synthetic_class import empty_gradebook

HIDDEN = "print('visible')\n### BEGIN HIDDEN TESTS\nsecret_check()\n### END HIDDEN TESTS\n_score"


def _grade_cell(source, grade_id, solution=False, grade=True):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": grade, "solution": solution, "locked": not solution,
                                 "grade_id": grade_id, "points": 1, "schema_version": 3}
    return cell


def test_are_hidden_regions_and_grading_records_removed_from_test_cells_only():
    """Test cell: hidden region and the grader's MIME output gone, printed text kept; a student's cell untouched?"""
    test = _grade_cell(HIDDEN, "test1_scores")
    test.outputs = [new_output("stream", name="stdout", text="[PASS] 隐藏检查 1\n"),
                    new_output("display_data", data={MIME: {"schema": 1}}),
                    new_output("execute_result", data={"text/plain": "4.0"}, execution_count=1)]
    student = new_code_cell("# my notes: ### BEGIN HIDDEN TESTS is a marker\nx = 1")
    nb = new_notebook(cells=[test, student, new_markdown_cell("text")])
    nb, _ = ClearHiddenTestsInFeedback().preprocess(nb, {})
    assert "secret_check" not in nb.cells[0].source and "print('visible')" in nb.cells[0].source
    assert [o.output_type for o in nb.cells[0].outputs] == ["stream", "execute_result"]
    assert nb.cells[1].source.startswith("# my notes: ### BEGIN HIDDEN TESTS")


def test_is_a_notebook_with_a_copied_cell_refused_naming_the_cell():
    """Two cells with grade id test2_mask: ValueError naming it; distinct ids pass unchanged?"""
    nb = new_notebook(cells=[_grade_cell("a", "test1_scores"), _grade_cell("b", "test2_mask"),
                             _grade_cell("b", "test2_mask")])
    with pytest.raises(ValueError, match=r"appear more than once .*: test2_mask; delete the extra copies"):
        RejectDuplicateIds().preprocess(nb, {})
    fine = new_notebook(cells=[_grade_cell("a", "test1_scores"), new_code_cell("x = 1")])
    assert RejectDuplicateIds().preprocess(fine, {})[0] is fine


@pytest.fixture
def gradebook(tmp_path):
    """A gradebook with one assignment, one notebook with an autograded and a manual cell, one submission."""
    url = empty_gradebook(tmp_path / "gradebook.db")
    with Gradebook(url) as gb:
        gb.add_assignment("ch04_attention")
        gb.add_notebook("ch04_attention", "ch04_attention")
        gb.add_grade_cell("test1_scores", "ch04_attention", "ch04_attention", max_score=4, cell_type="code")
        gb.add_solution_cell("q1", "ch04_attention", "ch04_attention")
        gb.add_grade_cell("q1", "ch04_attention", "ch04_attention", max_score=1, cell_type="markdown")
        gb.add_student("s1")
        gb.add_submission("ch04_attention", "s1")
        for grade in gb.find_submission_notebook("ch04_attention", "ch04_attention", "s1").grades:
            grade.auto_score = 2.0
        gb.db.commit()
    return url


def test_does_a_failed_notebook_score_zero_with_the_reason_in_the_gradebook(gradebook, caplog):
    """record_zero: every grade 0, nothing left for manual grading, the reason and the regrade command as comment?"""
    info = {"db_url": gradebook, "assignment": "ch04_attention", "notebook": "ch04_attention", "student": "s1"}
    with caplog.at_level(logging.ERROR):
        failure = record_zero(info, "CellExecutionError: os._exit", logging.getLogger("test"))
    reason = failure.reason
    assert (failure.student, failure.error) == ("s1", "CellExecutionError: os._exit")
    assert "nbgrader autograde ch04_attention --student s1 --force" in reason and "s1: " + reason in caplog.text
    with Gradebook(gradebook) as gb:
        nb = gb.find_submission_notebook("ch04_attention", "ch04_attention", "s1")
        assert [(g.auto_score, g.needs_manual_grade) for g in nb.grades] == [(0.0, False)] * 2
        assert {c.auto_comment for c in nb.comments} == {reason}


def test_is_the_config_settings_only():
    """nbgrader_config.py defines nothing and changes neither sys.path, os.environ nor a class: settings only?"""
    import ast

    from coursekit.paths import COURSE
    tree = ast.parse((COURSE / "nbgrader_config.py").read_text(encoding="utf-8"))
    defined = [type(node).__name__ for node in ast.walk(tree) if isinstance(node, (ast.ClassDef, ast.FunctionDef))]
    assignments = [ast.unparse(target) for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AugAssign))
                   for target in (node.targets if isinstance(node, ast.Assign) else [node.target])]
    calls = [ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)]
    assert not defined
    assert all(a.startswith("c.") or a in ("c", "HERE", "GRADER") for a in assignments), assignments
    assert not [c for c in calls if c.startswith(("sys.", "os.environ.__setitem__", "os.putenv", "setattr"))]
    assert "sys" not in {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}


def test_does_the_kernel_run_in_the_notebooks_folder_with_nbgraders_environment(monkeypatch, tmp_path):
    """Unsandboxed, the kernel runs in the notebook's folder with nbgrader's environment (the grader's path is in
    nobody's: its process is handed it)?"""
    from nbformat.v4 import new_code_cell
    from nbgrader.preprocessors import Execute
    from traitlets.config import Config

    monkeypatch.setenv("NBGRADER_SOMETHING", "passed")
    config = Config({"Execute": {"kernel_manager_class": GradingKernelManager},
                     "GradingKernelManager": {"sandbox": False}})
    look = "import os; print(os.environ['NBGRADER_SOMETHING'], os.getcwd())"
    nb, _ = Execute(config=config).preprocess(new_notebook(cells=[new_code_cell(look)]),
                                              {"metadata": {"path": str(tmp_path)}})
    assert nb.cells[0].outputs[0].text.split() == ["passed", str(tmp_path)]


def test_is_a_grader_that_does_not_load_the_machines_fault(tmp_path):
    """A grader package that does not load (here: no HANDLES) stops grading with what it said, nobody graded?"""
    from nbformat.v4 import new_code_cell
    from nbgrader.preprocessors import Execute
    from traitlets.config import Config

    from coursekit.faults import InfrastructureFault

    grader = tmp_path / "grader" / "__init__.py"
    grader.parent.mkdir()
    grader.write_text("x = 1\n")
    notebook_folder = tmp_path / "lab01"
    notebook_folder.mkdir()
    config = Config({"Execute": {"kernel_manager_class": GradingKernelManager},
                     "GradingKernelManager": {"sandbox": False},
                     "CourseKit": {"assignments": {"lab01": {"grader": str(grader)}}}})
    with pytest.raises(InfrastructureFault, match="could not load the grader .AttributeError.*HANDLES"):
        Execute(config=config).preprocess(new_notebook(cells=[new_code_cell("1")]),
                                          {"metadata": {"path": str(notebook_folder)}})


def test_can_nbformat_round_trip_the_cleaned_notebook():
    """The cleaned notebook is still valid nbformat (the HTML exporter validates)?"""
    nb = new_notebook(cells=[_grade_cell(HIDDEN, "test1_scores")])
    nb, _ = ClearHiddenTestsInFeedback().preprocess(nb, {})
    nbformat.validate(nb)


def test_is_a_test_cell_as_released_the_master_without_its_hidden_region():
    """What the student was given: the master's test cell with the hidden region cleared; whitespace at line
    ends does not count as a change, an edited line does?"""
    from coursekit.plugins.released_cells import _as_released, _same

    master = _grade_cell(HIDDEN, "test1_scores")
    released = _as_released(master)
    assert "secret_check" not in released and "print('visible')" in released and master.source == HIDDEN
    assert _same(released.replace("print('visible')", "print('visible')   "), released)
    assert not _same(released.replace("_score", "4.0"), released)

"""Are graded cells named by the headings above them, told apart, and the chapter's test cells by TEST number
(coursekit/cell_names.py, attnkit.course.cell_names)?"""
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from attnkit import course
from attnkit.exercises import EXERCISES
from attnkit.gradecell import TEST_CELLS
from coursekit.paths import MASTER
from coursekit.cell_names import cell_names, heading_above, names_in


def _graded(cell, grade_id, solution=False):
    cell.metadata["nbgrader"] = {"grade": True, "solution": solution, "grade_id": grade_id, "points": 1}
    return cell


def test_does_every_graded_cell_of_the_master_get_the_heading_above_it():
    """Each of the master's graded cells (12, and the practice exercises' 0-point ones) has a name of its own, read
    from its heading, never its grade id?"""
    nb = nbformat.read(MASTER, as_version=4)
    names = cell_names(nb)
    graded = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert list(names) == graded and len(set(names.values())) == len(graded) == 12 + len(EXERCISES)
    assert not [grade_id for grade_id, name in names.items() if grade_id in name]
    assert names["q_think1_scale"] == "思考题 1（1 分）"  # the heading as written; the chapter's plug-in drops the points
    assert names["q_lab2_neg_inf"] == "实验题 2：把 -1e9 换成 -inf（1 分）"  # the heading's code marks dropped


def test_does_each_test_cell_carry_its_test_number_once():
    """Named by the chapter's plug-in (as the course config declares it): TEST 1–4 each start their name with
    'TEST n' or already contain it, exactly once; the written answers keep their headings?"""
    from traitlets.config import Config

    config = Config({"CourseKit": {"assignments": {"ch04_attention": {"plugin": "attnkit.course"}}}})
    names = names_in(nbformat.read(MASTER, as_version=4), "ch04_attention", config)
    assert names == {**cell_names(nbformat.read(MASTER, as_version=4)), **course.cell_names(
        nbformat.read(MASTER, as_version=4))} and names["q_think1_scale"] == "思考题 1"
    for test in TEST_CELLS:
        assert names[test.grade_id].count(f"TEST {test.number}") == 1, names[test.grade_id]
    assert names["test1_scores"].startswith("TEST 1 · 任务 2：实现 student_attention_scores")


def test_are_headings_found_past_code_cells_and_the_last_heading_of_a_cell_wins():
    """A question heading above a demo code cell names the answer; a cell without any heading keeps its id?"""
    nb = new_notebook(cells=[
        _graded(new_markdown_cell("no heading above me"), "q_orphan", solution=True),
        new_markdown_cell("## 4.11 问题\n\n说明文字\n\n### 实验题 1：**不缩放**会怎样？\n\n题目"),
        new_code_cell("print(1)"),
        _graded(new_markdown_cell("answer"), "q_lab1", solution=True),
        new_markdown_cell("# Spare ##"),
        _graded(new_code_cell("_score"), "test2_mask"),
    ])
    assert cell_names(nb) == {"q_orphan": "q_orphan", "q_lab1": "实验题 1：不缩放会怎样？", "test2_mask": "Spare"}
    assert heading_above(nb.cells, 0) == ""


def _task(cell, grade_id):
    cell.metadata["nbgrader"] = {"task": True, "grade": False, "solution": False, "grade_id": grade_id, "points": 4}
    return cell


def test_are_cells_under_one_heading_told_apart_by_kind_then_number():
    """An answer and two test cells under one heading (as nbgrader's docs course has them), a task: each name
    differs, by its kind first, then a number; a task counts as a graded cell?"""
    nb = new_notebook(cells=[
        new_markdown_cell("## Part A (2 points)"),
        _graded(new_markdown_cell("answer"), "answer_a", solution=True),
        _graded(new_code_cell("assert 1"), "tests_a1"),
        _graded(new_code_cell("assert 2"), "tests_a2"),
        new_markdown_cell("## Part D"),
        _task(new_markdown_cell("---\n## Part E (4 points)\n\ndo it"), "task_e"),
    ])
    assert cell_names(nb, "en") == {"answer_a": "Part A (2 points) · answer", "tests_a1": "Part A (2 points) · tests (1)",
                                    "tests_a2": "Part A (2 points) · tests (2)", "task_e": "Part E (4 points)"}
    assert cell_names(nb)["tests_a2"] == "Part A (2 points) · 测试 (2)"


def test_does_the_chapter_name_its_questions_without_the_points_their_headings_state():
    """The master's headings say '（1 分）' (every question is graded); the chapter's names leave it out, and
    without_points leaves other brackets alone?"""
    from coursekit.cell_names import without_points

    nb = nbformat.read(MASTER, as_version=4)
    assert cell_names(nb)["q_think1_scale"] == "思考题 1（1 分）"
    assert course.cell_names(nb)["q_think1_scale"] == "思考题 1"
    assert course.cell_names(nb)["q_lab3_matmul_speed"] == "实验题 3：循环 vs 矩阵乘法"
    assert without_points("Lab question 3: loops (2 points)") == "Lab question 3: loops"
    assert without_points("Part A (1 point) first") == "Part A (1 point) first"
    assert without_points("4.5 Why (T=1)") == "4.5 Why (T=1)"

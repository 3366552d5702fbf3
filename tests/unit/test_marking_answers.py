"""What the marker reads (coursekit.marking.answers): every manually graded cell of a master, its prompt and its stub,
and a student's answer to each — on Chapter 4's master and on nbgrader's own docs course ps1 (from the installed wheel)."""
import json
import pathlib

import nbgrader

from coursekit.marking.answers import answer_texts, code_block, master_questions, released_text
from coursekit.paths import MASTER

PS1 = pathlib.Path(nbgrader.__file__).parent / "docs" / "source" / "user_guide"
STUBS = {"markdown": "YOUR ANSWER HERE", "code": "# YOUR CODE HERE\nraise NotImplementedError()"}


def _by_id(master, **kw):
    return {q.grade_id: q for q in master_questions(master, **kw)}


def test_are_ps1s_three_kinds_of_manually_graded_cells_found_in_order():
    """problem1: a written answer, manually graded code and a task; problem2: two written answers?"""
    one, two = (master_questions(PS1 / "source" / "ps1" / f"problem{n}.ipynb", stubs=STUBS) for n in (1, 2))
    assert [(q.grade_id, q.kind, q.max_score) for q in one] == [
        ("sum_of_squares_equation", "markdown", 1.0), ("sum_of_squares_application", "code", 2.0),
        ("cell-938593c4a215c6cc", "task", 4.0)]
    assert [(q.grade_id, q.kind) for q in two] == [("part-a", "markdown"), ("part-b", "markdown")]
    assert [q.title for q in one + two] == ["Part C (1 point)", "Part D (2 points)", "Part E (4 points)",
                                            "Part A (1 point)", "Part B (2 points)"]


def test_is_a_tasks_question_the_task_itself_and_its_answer_the_work_below_it():
    """The task cell is the prompt (without its opening rule); a student's answer is what they wrote under it?"""
    task = _by_id(PS1 / "source" / "ps1" / "problem1.ipynb", stubs=STUBS)["cell-938593c4a215c6cc"]
    assert task.prompt.startswith("## Part E (4 points)") and task.reference == "" and task.stub == ""
    cells = json.loads((PS1 / "submitted" / "hacker" / "ps1" / "problem1.ipynb").read_text())["cells"]
    texts = answer_texts(cells)
    assert texts["cell-938593c4a215c6cc"] == "$\\sum x^i = \\frac{1}{1-x}$", texts["cell-938593c4a215c6cc"]
    assert texts["sum_of_squares_application"].startswith("import math\n\ndef hypotenuse(n):")


def test_is_an_untouched_code_answer_known_by_what_the_release_put_there():
    """The stub of a manually graded code cell: the master with its solution region cleared, as nbgrader does?"""
    code = _by_id(PS1 / "source" / "ps1" / "problem1.ipynb", stubs=STUBS)["sum_of_squares_application"]
    cells = json.loads((PS1 / "submitted" / "bitdiddle" / "ps1" / "problem1.ipynb").read_text())["cells"]
    assert answer_texts(cells)["sum_of_squares_application"].strip() == code.stub.strip()
    assert "return sum_of_squares" in code.reference and "NotImplementedError" not in code.reference
    assert released_text("x = 1\n    ### BEGIN SOLUTION\n    y\n    ### END SOLUTION\nz", "pass") == "x = 1\n    pass\nz"


def test_does_a_prompt_reach_over_a_code_cell_to_the_questions_heading():
    """Chapter 4's first question: heading and text, then a code cell, then the answer: all of it, no more?"""
    first = master_questions(MASTER)[0]
    assert first.grade_id == "q_lab1_no_scale" and first.title == "实验题 1：不缩放会怎样？（1 分）"
    assert first.prompt.startswith("### 实验题 1") and "default_rng(6)" in first.prompt, first.prompt
    assert "4.13" not in first.prompt, "the section's introduction above the heading is not the question"
    assert all(q.prompt.startswith("### ") for q in master_questions(MASTER)), "every question has its heading"


def test_does_a_code_block_hold_code_with_backticks():
    """A fence longer than any backtick run inside, so the code cannot end its own block?"""
    block = code_block("s = '```'\nprint(s)")
    assert block.startswith("````python\n") and block.endswith("\n````")

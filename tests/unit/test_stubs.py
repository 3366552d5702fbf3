"""Does each assignment's release get its own stubs (coursekit/stubs.py): the plug-in's, else the course's?"""
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from traitlets.config import Config

from coursekit.stubs import AssignmentStubs

SOLUTION = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"


def _notebook(lang="zh"):
    code = new_code_cell(SOLUTION, metadata={"nbgrader": {"solution": True, "grade": False, "grade_id": "f",
                                                          "locked": False, "schema_version": 3}})
    text = new_markdown_cell("an answer", metadata={"nbgrader": {"solution": True, "grade": True, "grade_id": "q",
                                                                  "points": 1, "locked": False, "schema_version": 3}})
    return new_notebook(cells=[code, text], metadata={"edition": {"language": lang}})


def _released(assignment, config, lang="zh"):
    nb, _ = AssignmentStubs(config=config).preprocess(_notebook(lang), {"nbgrader": {"assignment": assignment}})
    return nb.cells[0].source, nb.cells[1].source


def test_is_the_chapter_released_with_its_editions_stubs_and_any_other_with_nbgraders():
    config = Config({"CourseKit": {"assignments": {"ch04_attention": {"plugin": "attnkit.course"}}}})
    code, text = _released("ch04_attention", config)
    assert "# 在这里写你的实现\n    pass" in code and text == "在这里写你的回答。"
    code, text = _released("ch04_attention", config, "en")
    assert "# Write your implementation here" in code and text == "Write your answer here."
    code, text = _released("ps1", config)
    assert "raise NotImplementedError()" in code and text == "YOUR ANSWER HERE"


def test_does_a_course_wide_stub_apply_where_no_plug_in_chooses():
    """c.ClearSolutions set by the course: a plain assignment gets it, the chapter still its own, in one run?"""
    config = Config({"CourseKit": {"assignments": {"ch04_attention": {"plugin": "attnkit.course"}}},
                     "ClearSolutions": {"code_stub": {"python": "pass  # yours"}, "text_stub": "yours"}})
    stubs = AssignmentStubs(config=config)
    resources = {"nbgrader": {"assignment": "ch04_attention"}}
    chapter, _ = stubs.preprocess(_notebook(), resources)
    plain, _ = stubs.preprocess(_notebook(), {"nbgrader": {"assignment": "lab01"}})
    assert "在这里写你的实现" in chapter.cells[0].source
    assert "pass  # yours" in plain.cells[0].source and plain.cells[1].source == "yours"

"""Does the similarity section read what each student wrote, and what the release gave, from the right files?"""
import json

import nbformat
import pytest

from attnkit.exercises import EXERCISES
from coursekit.paths import ASSIGNMENT, COURSE, MASTER
from coursekit.report.solutions import CODE, TEXT, read_release, read_work
from coursekit.settings import course_config
from support import mistakes
from support.planted_pairs import write_course, write_notebooks

ROLES = [(ASSIGNMENT, role) for role in mistakes.ROLES]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return write_course(tmp_path_factory.mktemp("course"), mistakes.release())


def test_does_the_release_name_the_solution_cells_and_hold_what_it_gave(course):
    release = read_release(course, ASSIGNMENT)
    kinds = {(c.notebook, c.grade_id): c.kind for c in release.cells}
    assert [kinds[key] for key in ROLES] == [CODE] * 3 and kinds[(ASSIGNMENT, "q_think1_scale")] == TEXT
    assert len(release.cells) == len(ROLES) + len(EXERCISES) + 8 and release.language == "python"  # + 8 answers
    assert any("def student_softmax" in source for source in release.given[CODE])


def test_is_the_release_made_from_the_source_when_release_is_missing(tmp_path, course):
    """Without release/, the master's solutions cleared with the assignment's own stubs: the same cells?"""
    (tmp_path / "source" / ASSIGNMENT).mkdir(parents=True)
    (tmp_path / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_bytes(MASTER.read_bytes())
    made = read_release(tmp_path, ASSIGNMENT, course_config(COURSE))
    assert made.cells == read_release(course, ASSIGNMENT).cells


def test_is_a_students_work_read_from_autograded_first_then_submitted(course):
    release = read_release(course, ASSIGNMENT)
    graded = mistakes.submission(mistakes.release(), scores="loops")
    write_notebooks(course, {"s1": graded})
    write_notebooks(course, {"s1": mistakes.release(), "s2": graded}, stage="submitted")
    (course / "submitted" / "s2" / ASSIGNMENT / "timestamp.txt").write_text("2026-12-03 10:00:00.000000 UTC\n")
    first, second = (read_work(course, s, ASSIGNMENT, release) for s in ("s1", "s2"))
    assert "for i in range" in first.cells[ROLES[0]].source and first.timestamp == ""
    assert second.cells == first.cells and second.timestamp == "2026-12-03 10:00:00.000000 UTC"


def test_is_an_unreadable_notebook_named_and_the_rest_of_the_class_still_read(course):
    release = read_release(course, ASSIGNMENT)
    folder = course / "submitted" / "s3" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / f"{ASSIGNMENT}.ipynb").symlink_to(MASTER)  # the master, with every reference answer
    hostile = {"cells": [{"cell_type": "code", "metadata": [], "source": 5}, "x",
                         {"cell_type": "markdown", "metadata": {"nbgrader": "q"}, "source": ["a", 1]}]}
    write_notebooks(course, {"s4": nbformat.from_dict({"cells": []})}, stage="submitted")
    (course / "submitted" / "s4" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text(json.dumps(hostile))
    linked, odd = (read_work(course, s, ASSIGNMENT, release) for s in ("s3", "s4"))
    assert linked.cells == {} and "cannot open it as a regular file" in linked.unreadable[0]
    assert odd.cells == {} and odd.unreadable == []

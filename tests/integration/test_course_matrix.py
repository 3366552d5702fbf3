"""Does ``make grade`` give every submission of the shared class exactly the points it deserves?

The shared class (tests/support/classes.py) holds every case of tests/support/cases.py (ungradable notebooks, a
print flood, notebooks that tamper around the functions, a student who plants fake graders), every row of the
red-team table and the representative rows of the mistake table, graded by ``make grade`` with two workers; the
gradebook must hold exactly each row's hand-derived points. Every row of the mistake table, in both languages:
tests/unit/test_grader.py (in-process). tests/integration/test_grading.py shows that ``make grade`` and a serial
``nbgrader autograde`` agree.
"""
import re

import nbformat
import pytest

from coursekit.autograded import read_graded_notebook
from support.classes import table_rows
from support.course_tools import ASSIGNMENT, POINTS

STUDENTS = [name for name, *_ in table_rows()]
GRADABLE = [name for name, _, _, reason, _ in table_rows() if not reason]


def test_did_one_run_grade_every_gradable_submission(shared_class):
    """Exit status 1 (some are ungradable, by design), those named, an autograded notebook for everyone else?"""
    assert shared_class.run.returncode == 1, shared_class.run.stdout[-3000:]
    graded = sorted(p.parent.name for p in (shared_class.course / "autograded").glob(f"*/{ASSIGNMENT}"))
    assert graded == sorted(GRADABLE)


def test_does_no_test_cell_raise_or_write_stderr(shared_class):
    """No score comes from an error or a stderr line (nbgrader would read those as 0), not even the hung loop's?"""
    broken = []
    for student in GRADABLE:
        nb = nbformat.read(shared_class.notebook(student), as_version=4)
        broken += [(student, c.metadata["nbgrader"]["grade_id"], o.output_type)
                   for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
                   for o in c.outputs if o.output_type == "error" or (o.output_type == "stream" and o.name == "stderr")]
    assert broken == []


@pytest.mark.parametrize("student", STUDENTS)
def test_does_the_submission_get_exactly_its_expected_scores(shared_class, student):
    """Per test cell, the gradebook holds exactly the hand-derived score; the total is their sum?"""
    expected = dict(zip(POINTS, shared_class.expected[student]))
    scores = shared_class.scores(student)
    assert {g: scores[g] for g in POINTS} == pytest.approx(expected, abs=1e-9)
    assert scores["total"] == pytest.approx(sum(expected.values()), abs=1e-9)  # written answers: no response, 0


def test_is_a_submitted_fake_grader_never_loaded(shared_class):
    """The fake grader files were next to the notebook while grading, yet its output and 100 points never appear?"""
    folder = shared_class.course / "autograded" / "shadow_grader" / ASSIGNMENT
    assert (folder / "_attn_grader.py").exists() and (folder / "grader" / "__init__.py").exists()
    text = shared_class.notebook("shadow_grader").read_text(encoding="utf-8")
    assert "fake grader" not in text and "本项得分" in text


@pytest.mark.parametrize("student, reason", [("redefined_as_reference", "attnkit 的参考实现")])
def test_does_the_feedback_say_why_a_cell_scored_nothing(shared_class, student, reason):
    """Delegation is named in the test cell's output, in Chinese?"""
    assert reason in shared_class.notebook(student).read_text(encoding="utf-8")


def test_does_each_submission_draw_its_hidden_inputs_from_a_seed_of_its_own(shared_class):
    """Every record of a graded test cell names the seed its hidden inputs came from: one per submission (the same in
    its four cells), no two submissions alike (the stubs' students included: their other cells differ)?"""
    seeds = {}
    for student in GRADABLE:
        records = read_graded_notebook(shared_class.notebook(student)).records
        found = {record.seed for record in records.values()}
        if records:
            assert len(found) == 1 and re.fullmatch("[0-9a-f]{64}", next(iter(found))), student
            seeds[student] = found.pop()
    assert len(seeds) > 20 and len(set(seeds.values())) == len(seeds)

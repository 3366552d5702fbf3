"""Can one bad submission spoil the class? Real `nbgrader autograde` over submissions it cannot grade.

One run (cell timeout ATTN_TIMEOUT=5 s) over: a copied solution cell and a copied test cell (their
nbgrader metadata duplicated, jupyter/nbgrader#1083), a notebook that is not JSON, a student
function calling ``os._exit(1)``, an infinite loop, and two ordinary submissions sorted after
them. The course's config (autograde/nbgrader_config.py: RejectDuplicateIds,
ZeroOnFailureExporter) must give each ungradable notebook 0 with a reason in the gradebook
and the log, while everybody else is graded exactly as usual.
"""
import copy
import csv
import uuid

import nbformat
import pytest

from support.mistakes import submission
from support.course_tools import (ASSIGNMENT, POINTS, autograde_class, gradebook_comments, gradebook_scores, index_of,
                          run_nbgrader, visible_text)

pytestmark = pytest.mark.integration  # real nbgrader, kernels, servers or a browser: `make test` only

ZERO = (0.0, 0.0, 0.0, 0.0)
# student: (expected (test1, test2, test3, test4), text the recorded reason must contain or None)
EXPECTED = {
    "a_copied_solution_cell": (ZERO, "nbgrader cells appear more than once (copied or split with their metadata): "
                                     "student_softmax"),
    "b_copied_test_cell": (ZERO, "appear more than once (copied or split with their metadata): test1_scores"),
    "c_invalid_json": (ZERO, "NotJSONError: Notebook does not appear to be JSON"),
    "d_os_exit": (ZERO, "DeadKernelError: Kernel died"),
    # the loop is interrupted once, in TEST 3 (an error: 0); later cells report it (TEST 4: 0); TEST 1-2 graded
    "e_infinite_loop": ((4.0, 3.0, 0.0, 0.0), None),
    "f_correct": ((4.0, 3.0, 3.0, 2.0), None),
    "g_untouched": ((1.75, 1.0, 0.25, 0.5), None),  # the documented baseline of the release
}
UNGRADABLE = [s for s, (_, reason) in EXPECTED.items() if reason]


def _with_copied_cell(nb, grade_id, offset):
    """A pasted copy of cell ``grade_id`` (new cell id, same nbgrader metadata) at index + offset."""
    index = index_of(nb, grade_id)
    pasted = copy.deepcopy(nb.cells[index])
    pasted["id"] = uuid.uuid4().hex[:8]
    nb.cells.insert(index + offset, pasted)
    return nb


def _submissions(release):
    """Notebook (or raw text) per student."""
    exiting = submission(release)
    exiting.cells[index_of(exiting, "student_apply_mask")].source = (
        "import os\n\n\ndef student_apply_mask(scores, mask):\n    os._exit(1)\n")
    looping = submission(release)
    looping.cells[index_of(looping, "student_softmax")].source = (
        "def student_softmax(out, inp):\n    while True:\n        pass\n")
    return {
        "a_copied_solution_cell": _with_copied_cell(submission(release), "student_softmax", 1),
        "b_copied_test_cell": _with_copied_cell(submission(release), "test1_scores", 0),
        "c_invalid_json": '{"cells": [',
        "d_os_exit": exiting,
        "e_infinite_loop": looping,
        "f_correct": submission(release),
        "g_untouched": release,
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(course, env, autograde process) after one autograde over all of EXPECTED's students."""
    course, env, result, _ = autograde_class(tmp_path_factory.mktemp("robustness"), _submissions, ATTN_TIMEOUT="5")
    return course, env, result


def test_does_autograde_report_exactly_the_ungradable_students(run):
    """Exit status 1 (nbgrader's signal that some students failed), each of them named, nobody else?"""
    _, _, result = run
    assert result.returncode == 1
    failed = sorted(s for s in EXPECTED if f"for student '{s}'" in result.stderr)
    assert failed == UNGRADABLE


@pytest.mark.parametrize("student", UNGRADABLE)
def test_does_an_ungradable_notebook_score_zero_with_its_reason(run, student):
    """Every grade 0, the reason in the gradebook's comments and in the log, no autograded copy left?"""
    course, _, result = run
    reason = EXPECTED[student][1]
    assert gradebook_scores(course, student) == {**dict.fromkeys(POINTS, 0.0), "total": 0.0}
    comments = gradebook_comments(course, student)
    assert comments and all(reason in c and "Not graded automatically, scored 0" in c for c in comments.values())
    assert f"{student}: Not graded automatically, scored 0: " in result.stderr and reason in result.stderr
    assert not (course / "autograded" / student / ASSIGNMENT).exists()  # nbgrader removed the partial copy


@pytest.mark.parametrize("student", [s for s in EXPECTED if s not in UNGRADABLE])
def test_is_everybody_else_graded_as_usual(run, student):
    """Students sorted after the failures still get exactly their per-cell scores?"""
    course, _, _ = run
    expected = dict(zip(POINTS, EXPECTED[student][0]))
    scores = gradebook_scores(course, student)
    assert {g: scores[g] for g in POINTS} == pytest.approx(expected, abs=1e-9)
    assert scores["total"] == pytest.approx(sum(expected.values()), abs=1e-9)


def test_does_an_infinite_loop_cost_one_timeout(run):
    """Only TEST 3 hits nbgrader's CellTimeoutError; verify, the diagnosis and TEST 4 report the hung function?"""
    course, _, _ = run
    nb = nbformat.read(course / "autograded" / "e_infinite_loop" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    errors = [(c.metadata.get("nbgrader", {}).get("grade_id", c.get("id")), o.ename)
              for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == [("test3_softmax", "KeyboardInterrupt"), ("test3_softmax", "CellTimeoutError")]
    later = "".join(o.get("text", "") for c in nb.cells[index_of(nb, "test3_softmax") + 1:]
                    if c.cell_type == "code" for o in c.outputs)
    assert "student_softmax 在前面的单元格里运行超时，评分时不再调用" in later  # verify's line
    assert "这个函数在前面的单元格里运行超时，评分时不再调用，本项记 0 分。" in later  # TEST 4's grader


def test_does_the_gradebook_stay_intact_for_feedback_and_export(run):
    """After the failures: feedback for the graded three (no grader code), a CSV row with the right total for all?"""
    course, env, _ = run
    assert run_nbgrader("generate_feedback", ASSIGNMENT, cwd=course, env=env).returncode == 0
    assert sorted(p.name for p in (course / "feedback").iterdir()) == sorted(set(EXPECTED) - set(UNGRADABLE))
    looped = (course / "feedback" / "e_infinite_loop" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
    assert "CellTimeoutError" in visible_text(looped) and "spec_from_file_location" not in looped
    assert run_nbgrader("export", "--to", str(course / "grades.csv"), cwd=course, env=env).returncode == 0
    with open(course / "grades.csv", encoding="utf-8") as fh:
        totals = {row["student_id"]: float(row["score"]) for row in csv.DictReader(fh)}
    assert totals == pytest.approx({s: sum(scores) for s, (scores, _) in EXPECTED.items()})


def test_does_a_copied_cell_no_longer_abort_the_run_without_add_missing_cells(run):
    """With nbgrader's default add_missing_cells=False (#1083: "old metadata", whole run aborted): same reason, one student?"""
    course, env, _ = run
    result = run_nbgrader("autograde", ASSIGNMENT, "--student", "a_copied_solution_cell", "--force",
                          "--OverwriteCells.add_missing_cells=False", cwd=course, env=env)
    assert result.returncode == 1
    assert EXPECTED["a_copied_solution_cell"][1] in result.stderr
    assert "old version" not in result.stderr and "There was an error processing assignment 'ch04_attention' " \
                                                   "for student 'a_copied_solution_cell'" in result.stderr

"""Does a student's print flood stay out of the autograded notebook and feedback, score unchanged? (issue 16)

The shared class's ``flood`` (tests/support/cases.py: a correct submission whose ``student_softmax``
also prints ``'x' * 10_000_000``, 190 MB of autograded notebook and of feedback without the cap) and
``ok_dot``, the same without the print, graded with the course's config. ``ok_dot`` is graded a
second time with the cap switched off (-1), in a copy of the serial class, as the oracle for
"unchanged". The cap's own tests: tests/unit/test_plugins_output_cap.py, integration/test_output_cap_kernel.py.
"""
import re

import nbformat
import pytest
from nbgrader.preprocessors import Execute
from nbgrader.validator import Validator
from traitlets.config.loader import PyFileConfigLoader

from coursekit.autograded import read_graded_notebook
from coursekit.paths import COURSE
from coursekit.kernel import GradingKernelManager
from support.classes import copy_graded
from support.course_tools import (
    ASSIGNMENT,
    GRADER_CELLS,
    POINTS,
    cell_score,
    cells_by_id,
    output_text,
    run_nbgrader,
    visible_text,
)

NOTE = "[评分时输出过长]"
UNDER = 2_000_000  # bytes: what the issue asks of the flooding student's notebook and feedback
NO_CAP = ["--GradingKernelManager.cell_output_limit=-1", "--GradingKernelManager.notebook_output_limit=-1"]


@pytest.fixture(scope="module")
def uncapped(serial_class, tmp_path_factory):
    """``ok_dot`` graded again with the cap off, in a copy of the serial class: its autograded notebook."""
    graded = copy_graded(serial_class, tmp_path_factory.mktemp("uncapped"))
    done = run_nbgrader("autograde", ASSIGNMENT, "--student", "ok_dot", "--force", *NO_CAP,
                        cwd=graded.course, env=graded.env)
    assert done.returncode == 0, done.stderr[-3000:]
    return graded.notebook("ok_dot")


def test_does_the_flooding_submission_keep_its_full_score(shared_class):
    full = {**{grade_id: float(points) for grade_id, points in POINTS.items()}, "total": 12.0}
    assert shared_class.scores("flood") == shared_class.scores("ok_dot") == full


def test_does_every_test_cell_keep_the_graders_record_when_the_budget_is_spent_before_it(shared_class):
    """Five cells of 290 kB before TEST 1 spend the notebook's output budget: every test cell still holds the
    grader's record (what make grade's notes and the report read), the score the untouched release's?"""
    graded = read_graded_notebook(shared_class.notebook("red_floods_before_the_tests"))
    assert sorted(graded.records) == sorted(GRADER_CELLS)  # the practice exercises' cells too
    assert NOTE in shared_class.notebook("red_floods_before_the_tests").read_text(encoding="utf-8")


def test_do_its_autograded_notebook_and_feedback_stay_under_2_MB(shared_class):
    assert shared_class.notebook("flood").stat().st_size < UNDER
    assert shared_class.feedback("flood").stat().st_size < UNDER


def test_does_the_student_see_the_start_of_the_flood_then_the_note_in_stdout(shared_class):
    """Where the student's own cell calls the function (verify_student): the flood's start, then the note; the
    test cell shows only the grader's record (what the function prints while graded is never shown)?"""
    cells = cells_by_id(nbformat.read(shared_class.notebook("flood"), as_version=4))
    stdout = output_text(cells["verify_student"])
    assert "x" * 100_000 in stdout and NOTE in stdout and stdout.index("x" * 100_000) < stdout.index(NOTE)
    graded = output_text(cells["test3_softmax"])
    assert graded.startswith("\n[TEST 3]") and "xxxx" not in graded and NOTE not in graded
    assert output_text(cells["test3_softmax"], "stderr") == "" and cell_score(cells["test3_softmax"]) == 3.0


def test_does_the_feedback_show_the_note(shared_class):
    page = visible_text(shared_class.feedback("flood").read_text(encoding="utf-8"))
    assert NOTE in page and "分数按完整运行的结果计算，不受影响" in page


def shown(cell):
    """A cell's outputs as a reader sees them: stream pieces joined (their split is timing), numbers masked
    with the spaces that align them (the chapter prints timings)."""
    seen = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream" and seen and seen[-1][0] == out.name:
            seen[-1] = (out.name, seen[-1][1] + out.text)
        else:
            seen.append((out.name, out.text) if out.output_type == "stream" else (out.output_type, out.get("data")))
    return [(kind, re.sub(r" *\d+(\.\d+)? *", "#", body) if isinstance(body, str) else body) for kind, body in seen]


def test_is_a_normal_submissions_output_unchanged(serial_class, uncapped):
    capped, uncapped = (nbformat.read(path, as_version=4) for path in (serial_class.notebook("ok_dot"), uncapped))
    assert NOTE not in nbformat.writes(capped)
    assert [shown(cell) for cell in capped.cells] == [shown(cell) for cell in uncapped.cells]


def test_does_the_course_config_cap_autograde_and_validate():
    """What nbgrader builds from autograde/nbgrader_config.py, loaded here as nbgrader loads it."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()
    assert Validator(config=config).preprocessors[-1] is Execute  # nbgrader's own, for validate and autograde
    assert config.Execute.kernel_manager_class is GradingKernelManager  # what it starts its kernels with
    manager = GradingKernelManager(config=config)
    assert (manager.cell_output_limit, manager.notebook_output_limit) == (300_000, 1_200_000)

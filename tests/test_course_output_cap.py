"""Does a student's print flood stay out of the autograded notebook and feedback, score unchanged? (issue 16)

Real ``nbgrader autograde`` + ``generate_feedback`` with the course's config over two students:
``flood``, a correct submission whose ``student_softmax`` also prints ``'x' * 10_000_000`` (190 MB
of autograded notebook and of feedback without the cap), and ``normal``, the same without the
print. ``normal`` is graded a second time with the cap switched off (-1) as the oracle for
"unchanged". The cap's own unit tests are in test_output_cap.py.
"""
import copy
import re
import shutil

import nbformat
import pytest
from nbgrader.validator import Validator
from traitlets.config.loader import PyFileConfigLoader

from coursekit.plugins.output_cap import CappedExecute
from support.course_tools import (ASSIGNMENT, COURSE, POINTS, autograde_class, cell_score, cells_by_id, fill_solution,
                          gradebook_scores, index_of, output_text, run_nbgrader, visible_text)
from support.mistakes import submission

pytestmark = pytest.mark.integration  # the real nbgrader CLI: `make test` only

NOTE = "[评分时输出过长]"
UNDER = 2_000_000  # bytes: what the issue asks of the flooding student's notebook and feedback
# A correct softmax with the debug line of the issue: printed by every call of the grader's checks.
FLOOD = """z = np.exp(inp - np.max(inp, axis=-1, keepdims=True))
out[...] = z / np.sum(z, axis=-1, keepdims=True)
print('x' * 10_000_000)  # 调试用"""
NO_CAP = ["--CappedExecute.cell_output_limit=-1", "--CappedExecute.notebook_output_limit=-1"]


def flooding(release):
    """The correct submission, its softmax replaced by FLOOD (typed into the release's stub, input checks kept)."""
    nb, index = submission(release), index_of(release, "student_softmax")
    nb.cells[index].source = fill_solution(copy.deepcopy(release), "student_softmax", FLOOD).cells[index].source
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course after autograde (flood, normal), flood's feedback, and normal graded again without the cap."""
    course, env, result, _ = autograde_class(tmp_path_factory.mktemp("outcap"),
                                             lambda release: {"flood": flooding(release), "normal": submission(release)})
    assert result.returncode == 0, result.stderr
    feedback = run_nbgrader("generate_feedback", ASSIGNMENT, "--student", "flood", cwd=course, env=env)
    assert feedback.returncode == 0, feedback.stderr
    shutil.copytree(course / "submitted" / "normal", course / "submitted" / "uncapped")
    uncapped = run_nbgrader("autograde", ASSIGNMENT, "--student", "uncapped", *NO_CAP, cwd=course, env=env)
    assert uncapped.returncode == 0, uncapped.stderr
    return course


def autograded(course, student):
    return course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def feedback(course, student):
    return course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"


def test_does_the_flooding_submission_keep_its_full_score(course):
    full = {**{grade_id: float(points) for grade_id, points in POINTS.items()}, "total": 12.0}
    assert gradebook_scores(course, "flood") == gradebook_scores(course, "normal") == full


def test_do_its_autograded_notebook_and_feedback_stay_under_2_MB(course):
    assert autograded(course, "flood").stat().st_size < UNDER
    assert feedback(course, "flood").stat().st_size < UNDER


def test_does_the_student_see_the_start_of_the_flood_then_the_note_in_stdout(course):
    cell = cells_by_id(nbformat.read(autograded(course, "flood"), as_version=4))["test3_softmax"]
    stdout = output_text(cell)
    assert stdout.startswith("\n[TEST 3]") and "x" * 100_000 in stdout and NOTE in stdout
    assert stdout.index("x" * 100_000) < stdout.index(NOTE)
    assert output_text(cell, "stderr") == "" and cell_score(cell) == 3.0


def test_does_the_feedback_show_the_note(course):
    page = visible_text(feedback(course, "flood").read_text(encoding="utf-8"))
    assert page.count(NOTE) >= 2 and "分数按完整运行的结果计算，不受影响" in page


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


def test_is_a_normal_submissions_output_unchanged(course):
    capped, uncapped = (nbformat.read(autograded(course, s), as_version=4) for s in ("normal", "uncapped"))
    assert NOTE not in nbformat.writes(capped)
    assert [shown(cell) for cell in capped.cells] == [shown(cell) for cell in uncapped.cells]


def test_does_the_course_config_cap_autograde_and_validate():
    """What nbgrader builds from autograde/nbgrader_config.py (loaded here as in test_course.py)."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()
    assert config.Autograde.autograde_preprocessors[0] is CappedExecute
    assert Validator(config=config).preprocessors[-1] is CappedExecute
    assert config.CappedExecute == {"cell_output_limit": 300_000, "notebook_output_limit": 1_200_000}
    assert CappedExecute(config=config).cell_output_limit == 300_000

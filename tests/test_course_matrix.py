"""Does the real `nbgrader autograde` give every submission exactly the points it deserves?

Every entry of the mistake table (tests/mistakes.py: correct styles, single bugs, delegation
tricks) is put into ``submitted/<student>/`` of a throw-away course and graded by ONE
`nbgrader autograde` run; the gradebook must hold exactly the entry's hand-derived points.
One more student submits the untouched release together with files named like the grader
(``grader/__init__.py``, ``_attn_grader.py``) that would give full marks if they were loaded.
"""
import nbformat
import pytest

from support.course_tools import ASSIGNMENT, POINTS, autograde_class, gradebook_scores
from support.mistakes import MISTAKES, mistake_notebook

pytestmark = pytest.mark.integration  # real nbgrader, kernels, servers or a browser: `make test` only

FAKE_GRADER = "def grade(*args):\n    print('fake grader')\n    return 100.0\n"
SHADOW = "shadow_grader"
UNTOUCHED = (1.75, 1.0, 0.25, 0.5)  # the release's baseline (autograde/README.md, "Points")
# The bugs issue 3 names, each of which must be in the table (and lose points).
REQUIRED_BUGS = ["bug_hardcoded", "bug_q_qt", "bug_k_qt", "bug_no_scale", "bug_default_scale",
                 "bug_rebind_out", "bug_mask_assigned", "bug_mask_multiplied", "bug_mask_rebound",
                 "bug_softmax_axis0", "bug_softmax_no_max", "bug_softmax_unnormalised",
                 "bug_softmax_rebind_out", "bug_softmax_global_max", "bug_delegate_softmax"]
EXPECTED = {m.name: m.points for m in MISTAKES} | {SHADOW: UNTOUCHED}


def class_submissions(release):
    """Every mistake typed into the release, and the untouched release of the shadowing student."""
    return {m.name: mistake_notebook(release, m) for m in MISTAKES} | {SHADOW: release}


def _plant_fake_graders(course):
    folder = course / "submitted" / SHADOW / ASSIGNMENT
    (folder / "grader").mkdir()
    for path in (folder / "grader" / "__init__.py", folder / "_attn_grader.py", folder / "grader.py"):
        path.write_text(FAKE_GRADER, encoding="utf-8")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One course, every submission in submitted/, one `nbgrader autograde` run: (course, process, seconds)."""
    course, _, result, seconds = autograde_class(tmp_path_factory.mktemp("matrix"), class_submissions,
                                                 before_grading=_plant_fake_graders)
    print(f"\nautograde of {len(EXPECTED)} submissions: {seconds:.1f} s")
    return course, result, seconds


def test_is_the_table_big_and_varied_enough():
    """≥ 6 correct and ≥ 12 buggy submissions, every named bug among them?"""
    correct = [m for m in MISTAKES if m.correct]
    buggy = [m.name for m in MISTAKES if sum(m.points) < sum(POINTS.values())]
    assert len(correct) >= 6 and len(buggy) >= 12 and len(correct) + len(buggy) == len(MISTAKES)
    assert set(REQUIRED_BUGS) <= set(buggy)


def test_did_one_autograde_run_grade_every_submission(graded):
    """Exit status 0, no student reported as failed, an autograded notebook for each?"""
    course, result, _ = graded
    assert result.returncode == 0, result.stderr[-3000:]
    assert "There was an error processing assignment" not in result.stderr
    assert sorted(p.name for p in (course / "autograded").iterdir()) == sorted(EXPECTED)


def test_does_no_test_cell_raise_or_write_stderr(graded):
    """No score comes from an error or a stderr line (nbgrader would read those as 0)?"""
    course, _, _ = graded
    broken = []
    for student in EXPECTED:
        nb = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        broken += [(student, c.metadata.get("nbgrader", {}).get("grade_id", c.get("id")), o.output_type)
                   for c in nb.cells if c.cell_type == "code" for o in c.outputs
                   if o.output_type == "error" or (o.output_type == "stream" and o.name == "stderr")]
    assert not broken


@pytest.mark.parametrize("student", list(EXPECTED))
def test_does_the_submission_get_exactly_its_expected_scores(graded, student):
    """Per test cell, the gradebook holds exactly the hand-derived score; the total is their sum?"""
    course, _, _ = graded
    expected = dict(zip(POINTS, EXPECTED[student]))
    scores = gradebook_scores(course, student)
    assert {g: scores[g] for g in POINTS} == pytest.approx(expected, abs=1e-9)
    assert scores["total"] == pytest.approx(sum(expected.values()), abs=1e-9)  # written answers: no response, 0


def test_is_a_submitted_fake_grader_never_loaded(graded):
    """The fake grader files were next to the notebook while grading, yet its output and 100 points never appear?"""
    course, _, _ = graded
    folder = course / "autograded" / SHADOW / ASSIGNMENT
    assert (folder / "_attn_grader.py").exists() or (course / "submitted" / SHADOW / ASSIGNMENT / "_attn_grader.py").exists()
    text = (folder / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    assert "fake grader" not in text and "本项得分" in text

"""Does the real `nbgrader autograde` give every submission exactly the points it deserves?

30 submissions (7 correct in different styles, 23 with one bug each) are put into
``submitted/<student>/`` of a throw-away course and graded by ONE `nbgrader autograde` run.
The expected per-cell scores below were derived by hand from the checks, not copied from the
grader: every check is worth 0.25, TEST 1 has 9 visible + 7 hidden checks (4 points),
TEST 2 6 + 6 (3), TEST 3 4 + 8 (3), TEST 4 3 + 5 (2). Shorthand in the comments:
"v a/b" = visible checks passed, "h c/d" = hidden checks passed; TEST 1-3's last hidden check
("rejects bad input" / "shape mismatch") is the given input check, which every body keeps.
A buggy submission changes one function; the other two are the correct "dot"/"add"/"vectorised".
"""

import nbformat
import pytest

from course_submissions import MASK, SCORES, SOFTMAX, submission
from course_tools import ASSIGNMENT, POINTS, autograde_class, gradebook_scores

FULL = (4.0, 3.0, 3.0, 2.0)

# student: ((scores, mask, softmax) implementations, expected (test1, test2, test3, test4))
MATRIX = {
    # ---------- correct, each in its own style: full autograded marks (12) ----------
    "ok_dot": (("dot", "add", "vectorised"), FULL),
    "ok_loops": (("loops", "loops", "math_loops"), FULL),
    "ok_einsum_out": (("einsum", "np_add_out", "exp_out"), FULL),
    "ok_matmul_out": (("matmul_out", "assign_sum", "rows"), FULL),
    "ok_rows": (("rows", "loops", "rows"), FULL),
    "ok_float64": (("float64", "np_add_out", "float64"), FULL),
    "ok_helper_cell": (("dot", "assign_sum", "helper"), FULL),
    # ---------- TEST 1 bugs (student_attention_scores) ----------
    # identity-only answers: v 9/9, h 1/7 | T4 v 3/3 (identity again), h 0/5
    "bug_hardcoded": (("hardcoded", "add", "vectorised"), (2.5, 3.0, 3.0, 0.75)),
    # Q@Q^T = Q@K^T when Q = K = I: v 9/9, h 1/7 (non-square: broadcast error) | T4 v 3/3, h 0/5
    "bug_q_qt": (("q_qt", "add", "vectorised"), (2.5, 3.0, 3.0, 0.75)),
    # (Q@K^T)^T, symmetric for identities: v 9/9, h 1/7 | T4 v 3/3, h 0/5
    "bug_k_qt": (("k_qt", "add", "vectorised"), (2.5, 3.0, 3.0, 0.75)),
    # right only when scale = 1: v 7/9 (out[0][0], out[1][1] of the 0.5 case), h 2/7 (scale 1.0 + rejects)
    # | T4 v 3/3 (unscaled identity still masks and normalises), h 1/5: the integer case (scale 4) is
    # saturated, its rows are one-hot or [0, ½, 0, ½] scaled or not (within 1e-4); 1/√8, 0.7, 0.5, 0.5 fail
    "bug_no_scale": (("no_scale", "add", "vectorised"), (2.25, 3.0, 3.0, 1.0)),
    # 1/sqrt(head_dim) instead of scale: v 6/9 (0.5 ≠ 1/√2, 1 ≠ 1/√3), h 2/7 (D=5 with 1/√5; rejects)
    # | T4 v 3/3 (D=4: 0.5), h 3/5 (D=8 with 1/√8, and two cases D=4 with 0.5; fails 0.7 and 4)
    "bug_default_scale": (("default_scale", "add", "vectorised"), (2.0, 3.0, 3.0, 1.5)),
    # out rebound = the stub: v 6/9, h 1/7 | T4 v 3/3 (zero scores still mask and normalise), h 0/5
    "bug_rebind_out": (("rebind_out", "add", "vectorised"), (1.75, 3.0, 3.0, 0.75)),
    # out += ...: right whenever out starts at 0: v 9/9, h 6/7 (fails the 7.0 pre-fill) | T4 8/8
    "bug_accumulate": (("accumulate", "add", "vectorised"), (3.75, 3.0, 3.0, 2.0)),
    # Q *= scale: values right, Q changed: v 9/9, h 2/7 (unchanged only for scale 1.0; rejects)
    # | T4 8/8 (the pipeline does not look at Q afterwards)
    "bug_scale_q_in_place": (("scale_q_in_place", "add", "vectorised"), (2.75, 3.0, 3.0, 2.0)),
    # attnkit.naive does the work: TEST 1 and TEST 4 score 0
    "bug_delegate_scores": (("delegate", "add", "vectorised"), (0.0, 3.0, 3.0, 0.0)),
    # ---------- TEST 2 bugs (student_apply_mask) ----------
    # scores[:] = mask: verify's scores are zeros: v 6/6, h 1/6 | T4 v 3/3, h 0/5 (rows uniform)
    "bug_mask_assigned": (("dot", "assign_mask", "vectorised"), (4.0, 1.75, 3.0, 0.75)),
    # scores *= mask: v 3/6 (the zeros), h 1/6 | T4 v 2/3 (all-zero scores: upper triangle 0.25), h 0/5
    "bug_mask_multiplied": (("dot", "multiply", "vectorised"), (4.0, 1.0, 3.0, 0.5)),
    # scores = scores + mask (rebinding): v 3/6, h 1/6 | T4 v 2/3 (nothing masked), h 0/5
    "bug_mask_rebound": (("dot", "rebind", "vectorised"), (4.0, 1.0, 3.0, 0.5)),
    # works on a contiguous copy of a view: v 6/6, h 5/6 (fails only the view) | T4 8/8 (contiguous)
    "bug_mask_contiguous_copy": (("dot", "contiguous_copy", "vectorised"), (4.0, 2.75, 3.0, 2.0)),
    # reshape(-1) copies the grader's unevenly strided view: loses the view check like the one above
    "bug_mask_reshape": (("dot", "reshape", "vectorised"), (4.0, 2.75, 3.0, 2.0)),
    # ---------- TEST 3 bugs (student_softmax) ----------
    # axis 0: v 1/4 (a 4x4 of zeros is uniform either way), h 2/8 (1-D; mismatch) | T4 v 2/3, h 0/5
    "bug_softmax_axis0": (("dot", "add", "axis0"), (4.0, 3.0, 0.75, 0.5)),
    # exp without max: v 4/4, h 5/8 (overflow at 1000, NaN for a fully masked row) | T4 v 3/3,
    # h 3/5 (fails the ±160 scores: exp(136) overflows float32; and the fully masked row)
    "bug_softmax_no_max": (("dot", "add", "no_max"), (4.0, 3.0, 2.25, 1.5)),
    # never divides: v 0/4, h 1/8 | T4 v 2/3 (row 0 is [1, 0, 0, 0] but row 1 sums to 1.61), h 0/5
    "bug_softmax_unnormalised": (("dot", "add", "unnormalised"), (4.0, 3.0, 0.25, 0.5)),
    # out rebound = the stub: v 0/4, h 1/8 | T4 v 2/3, h 0/5
    "bug_softmax_rebind_out": (("dot", "add", "rebind_out"), (4.0, 3.0, 0.25, 0.5)),
    # global max: v 4/4, h 5/8 (rows far below the global max underflow: 1000/100 rows,
    # the 1000/0/-1000 rows, the masked rows) | T4 v 3/3, h 3/5 (±160 scores; the fully masked row)
    "bug_softmax_global_max": (("dot", "add", "global_max"), (4.0, 3.0, 2.25, 1.5)),
    # axis=1 (2-D only): v 4/4, h 6/8 (3-D normalised over the wrong axis, 1-D raises) | T4 8/8
    "bug_softmax_axis1": (("dot", "add", "axis1"), (4.0, 3.0, 2.5, 2.0)),
    # exp computed in inp: v 4/4, h 1/8 (every case checks inp is unchanged) | T4 8/8
    "bug_softmax_in_place_inp": (("dot", "add", "in_place_inp"), (4.0, 3.0, 1.25, 2.0)),
    # attnkit.softmax does the work: TEST 3 and TEST 4 score 0
    "bug_delegate_softmax": (("dot", "add", "delegate"), (4.0, 3.0, 0.0, 0.0)),
    # the given shape check deleted: v 4/4, h 7/8 (the mismatch raises instead of doing nothing) | T4 8/8
    "bug_softmax_no_input_check": (("dot", "add", "no_input_check"), (4.0, 3.0, 2.75, 2.0)),
}

# The bugs issue 3 names, each of which must be in the matrix (and lose points).
REQUIRED_BUGS = ["bug_hardcoded", "bug_q_qt", "bug_k_qt", "bug_no_scale", "bug_default_scale",
                 "bug_rebind_out", "bug_mask_assigned", "bug_mask_multiplied", "bug_mask_rebound",
                 "bug_softmax_axis0", "bug_softmax_no_max", "bug_softmax_unnormalised",
                 "bug_softmax_rebind_out", "bug_softmax_global_max", "bug_delegate_softmax"]


def matrix_submissions(release):
    """Every MATRIX entry typed into the release: {student: notebook}."""
    return {student: submission(release, *implementations) for student, (implementations, _) in MATRIX.items()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One course, every submission in submitted/, one `nbgrader autograde` run: (course, process, seconds)."""
    course, _, result, seconds = autograde_class(tmp_path_factory.mktemp("matrix"), matrix_submissions)
    print(f"\nautograde of {len(MATRIX)} submissions: {seconds:.1f} s")
    return course, result, seconds


def test_is_the_matrix_big_and_varied_enough():
    """≥ 6 correct and ≥ 12 buggy submissions, every named bug among them, every style of the catalogue used?"""
    correct = [s for s, (_, expected) in MATRIX.items() if expected == FULL]
    buggy = [s for s, (_, expected) in MATRIX.items() if sum(expected) < sum(FULL)]
    assert len(correct) >= 6 and len(buggy) >= 12 and len(correct) + len(buggy) == len(MATRIX)
    assert set(REQUIRED_BUGS) <= set(buggy)
    for role, catalogue in enumerate((SCORES, MASK, SOFTMAX)):
        assert set(catalogue) <= {implementations[role] for implementations, _ in MATRIX.values()}


def test_did_one_autograde_run_grade_every_submission(graded):
    """Exit status 0, no student reported as failed, an autograded notebook for each?"""
    course, result, _ = graded
    assert result.returncode == 0, result.stderr[-3000:]
    assert "There was an error processing assignment" not in result.stderr
    assert sorted(p.name for p in (course / "autograded").iterdir()) == sorted(MATRIX)


def test_does_no_test_cell_raise_or_write_stderr(graded):
    """No score comes from an error or a stderr line (nbgrader would read those as 0)?"""
    course, _, _ = graded
    broken = []
    for student in MATRIX:
        nb = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        broken += [(student, c.metadata.get("nbgrader", {}).get("grade_id", c.get("id")), o.output_type)
                   for c in nb.cells if c.cell_type == "code" for o in c.outputs
                   if o.output_type == "error" or (o.output_type == "stream" and o.name == "stderr")]
    assert not broken


@pytest.mark.parametrize("student", list(MATRIX))
def test_does_the_submission_get_exactly_its_expected_scores(graded, student):
    """Per test cell, the gradebook holds exactly the hand-derived score; the total is their sum?"""
    course, _, _ = graded
    expected = dict(zip(POINTS, MATRIX[student][1]))
    scores = gradebook_scores(course, student)
    assert {g: scores[g] for g in POINTS} == pytest.approx(expected, abs=1e-9)
    assert scores["total"] == pytest.approx(sum(expected.values()), abs=1e-9)  # written answers: no response, 0

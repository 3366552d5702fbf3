"""Does Validate (the student's own grading) give each test cell the points autograde gave it?

The representative rows of the mistake table (tests/support/classes.py), as submitted in the shared class, are
validated the way the Validate button and ``nbgrader validate`` do it: nbgrader's ``Validator`` with
the course's config, so the same kernel manager, the same grader process and the same verdicts. The
points Validate saw in each test cell must equal the gradebook's from ``make grade``, and Validate
must call a test cell failed exactly when it scored less than its points.
"""
import pytest
from nbgrader import utils
from traitlets.config.loader import PyFileConfigLoader

from support.classes import REPRESENTATIVE_MISTAKES
from support.course_tools import POINTS
from support.validating import validate


@pytest.fixture(scope="module")
def validated(shared_class):
    """{student: ({grade_id: points Validate saw}, {grade ids Validate reported as failed})} for the rows."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(shared_class.course)).load_config()
    seen = {}
    for name in REPRESENTATIVE_MISTAKES:  # (the Validator sets NBGRADER_EXECUTION=validate itself)
        validated = validate(shared_class.notebook(name, folder="submitted"), config)
        failed = {entry["source"] for entry in validated.results.get("failed", [])}
        cells = {c.metadata["nbgrader"]["grade_id"]: c for c in validated.executed.cells
                 if c.metadata.get("nbgrader", {}).get("grade_id") in POINTS}
        seen[name] = ({g: utils.determine_grade(c)[0] for g, c in cells.items()},
                   {g for g, c in cells.items() if c.source in failed})
    return seen


@pytest.mark.parametrize("student", REPRESENTATIVE_MISTAKES)
def test_does_validate_see_the_points_autograde_recorded(shared_class, validated, student):
    points, _ = validated[student]
    scores = shared_class.scores(student)
    assert points == pytest.approx({g: scores[g] for g in POINTS}, abs=1e-9)


@pytest.mark.parametrize("student", REPRESENTATIVE_MISTAKES)
def test_does_validate_fail_exactly_the_cells_short_of_full_points(validated, student):
    points, failed = validated[student]
    assert failed == {g for g, p in points.items() if p < POINTS[g] - 1e-9}

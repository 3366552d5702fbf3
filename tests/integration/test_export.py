"""Does `nbgrader export --exporter=coursekit.export.PerCellExportPlugin` add one column per graded cell?

Through the real nbgrader CLI, in a throw-away copy of the course holding a synthetic gradebook.
"""
import csv

import pytest

from coursekit.export import TOTAL_COLUMNS
from support.course_tools import course_copy, isolated_env, run_nbgrader
from support.synthetic_class import AUTO, MANUAL, small_class

EXPORTER = "--exporter=coursekit.export.PerCellExportPlugin"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    base = tmp_path_factory.mktemp("export")
    course = course_copy(base)
    small_class(course)
    return course, isolated_env(base / "home")


def _export(course, env, *args):
    done = run_nbgrader("export", EXPORTER, "--to=per_cell.csv", *args, cwd=course, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    with (course / "per_cell.csv").open(encoding="utf-8") as fh:
        return list(csv.reader(fh))


def test_one_column_per_graded_cell_next_to_the_totals(course):
    """Are nbgrader's total columns kept, followed by each graded cell's gradebook score?"""
    rows = _export(*course)
    assert rows[0] == TOTAL_COLUMNS + list(AUTO) + list(MANUAL)
    by_student = {row[3]: dict(zip(rows[0], row)) for row in rows[1:]}
    assert sorted(by_student) == ["alice", "bob", "carol", "dave", "erin", "frank", "hank"]
    alice = by_student["alice"]
    assert (alice["score"], alice["max_score"], alice["test1_scores"], alice["q_lab1_no_scale"]) == (
        "13", "14", "4", "1")
    assert by_student["carol"]["test2_mask"] == "2.25"
    assert by_student["hank"]["test1_scores"] == "4.5"  # the gradebook's score, never the payload's
    frank = by_student["frank"]  # no submission: 0 totals as in nbgrader's export, empty cells
    assert (frank["score"], frank["test1_scores"]) == ("0", "")


def test_the_usual_filters_apply(course):
    """Does --student restrict the rows as with nbgrader's own CSV export?"""
    rows = _export(*course, "--student=bob")
    assert [row[3] for row in rows[1:]] == ["bob"]

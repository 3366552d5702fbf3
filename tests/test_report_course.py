"""After a real `nbgrader autograde`, does the class report count exactly what the class did?

A class drawn from the course's table of mistakes (tests/mistakes.py) goes through the real CLI
(tests/course_tools.py ``autograde_class``): a correct submission, one mistake per stage (two
students share ``softmax_no_max_subtraction``), a delegation (0 points, flagged, no finding), a
notebook that is not JSON (scored 0 with a reason) and a student on the roster who never
submitted. The report is made with ``python -m coursekit.report`` in the course, as ``make
report`` runs it, and compared with what the table expects: first mistakes, counts, points.
"""
import collections
import csv
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from support.course_tools import ASSIGNMENT, POINTS, autograde_class
from coursekit.report.results import MIME
from support.mistakes import BY_NAME, mistake_notebook
from support.report_page import open_report

pytestmark = pytest.mark.integration  # the real nbgrader CLI

CLASS = [BY_NAME[name] for name in ("ok_dot", "bug_no_scale", "bug_mask_assigned", "bug_softmax_no_max",
                                    "bug_softmax_global_max", "bug_delegate_softmax")]
BROKEN, ABSENT = "broken", "absent"
VISIBLE_CHECKS, HIDDEN_CHECKS = 22, 7 + 6 + 8 + 5  # autograde/README.md "Points"


def _submissions(release):
    return {**{m.name: mistake_notebook(release, m) for m in CLASS}, BROKEN: '{"cells": ['}


def _read(path):
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    course, env, graded, _ = autograde_class(tmp_path_factory.mktemp("report"), _submissions)
    assert BROKEN in graded.stdout + graded.stderr  # nbgrader names the failed student, the others are graded
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.add_student(ABSENT)
    done = subprocess.run([sys.executable, "-m", "coursekit.report"], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = course / "reports" / ASSIGNMENT
    return done.stderr, {name: _read(out / f"{name}.csv") for name in ("students", "checks", "mistakes")}, out


def test_every_student_appears_with_a_status(made):
    """Graded students, the ungradable notebook (0 with the reason) and the absent student, each as such?"""
    rows = {r["student"]: r for r in made[1]["students"]}
    assert {s: r["status"] for s, r in rows.items()} == {
        **{m.name: "graded" for m in CLASS}, BROKEN: "not_graded", ABSENT: "no_submission"}
    assert rows[BROKEN]["reason"].startswith("Not graded automatically, scored 0: NotJSONError")
    assert rows[BROKEN]["total"] == "0" and rows[ABSENT]["total"] == ""


def test_points_are_the_table_s(made):
    """Is each autograded cell's auto score in students.csv the one the mistake table derives by hand?"""
    rows = {r["student"]: r for r in made[1]["students"]}
    for m in CLASS:
        assert tuple(float(rows[m.name][f"{cell}_auto"]) for cell in POINTS) == m.points, m.name


def test_the_mistakes_are_exactly_the_table_s(made):
    """First mistake per student, and count/share/students per bug, exactly as the table expects?"""
    first = {r["student"]: r["first_mistake"] or None for r in made[1]["students"]}
    assert {m.name: first[m.name] for m in CLASS} == {m.name: m.diagnosis for m in CLASS}
    expected = collections.defaultdict(list)
    for m in CLASS:
        if m.diagnosis:
            expected[m.diagnosis].append(m.name)
    diagnosed = len(CLASS)
    assert {(r["bug_id"], int(r["count"]), r["share"], r["students"]) for r in made[1]["mistakes"]} == {
        (bug, len(names), f"{len(names) / diagnosed:.4f}", ";".join(sorted(names))) for bug, names in expected.items()}


def test_every_check_is_counted(made):
    """All 22 verify checks and every hidden check appear; the correct submission fails none of them?"""
    checks = made[1]["checks"]
    visible = {c["check_id"] for c in checks if c["kind"] == "visible"}
    assert visible == {f"verify.{n}" for n in range(1, VISIBLE_CHECKS + 1)}
    assert sum(c["kind"] == "hidden" for c in checks) == HIDDEN_CHECKS
    assert not [c["check_id"] for c in checks if "ok_dot" in c["failing_students"].split(";")]


def test_delegation_is_flagged_and_scores_agree(made):
    """Is the delegated cell listed with its reason, and every payload score equal to the gradebook's?"""
    stderr, _, out = made
    assert "differ from the gradebook" not in stderr
    assert f"{len(CLASS)} with structured results" in stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "bug_delegate_softmax</td><td>test3_softmax</td><td>delegated" in page
    assert MIME not in page


def test_the_page_opens_in_chromium(made, tmp_path):
    """Does the real class's page open from disk in Chromium without console errors (screenshot kept)?"""
    def check(page):
        assert "bug_no_scale" in page.locator("body").inner_text()

    assert open_report(made[2] / "index.html", "graded_class.png", tmp_path, check) == []

"""After a real `nbgrader autograde`, does the class report count exactly what the class did?

A small class goes through the real CLI (tests/course_tools.py ``autograde_class``): one correct
submission, one mistake per stage (the diagnosis table's ``scores_missing_scale``,
``mask_replaces_scores``, ``softmax_no_max_subtraction``), a notebook that is not JSON (scored 0
with a reason) and a student on the roster who never submitted. The report is then made with
``python -m coursekit.report`` in the course, exactly as ``make report`` runs it.

It relies on the grader's structured results (issue 11 item 1: a ``display_data`` output of
MIME ``application/vnd.attnkit.grading+json`` in every autograded test cell); it fails until
autograded notebooks carry them.
"""
import csv
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from course_submissions import submission
from course_tools import ASSIGNMENT, autograde_class
from coursekit.results import MIME

CLASS = {  # student: (scores, mask, softmax) implementations of course_submissions.py
    "ok": ("dot", "add", "vectorised"),
    "no_scale": ("no_scale", "add", "vectorised"),
    "mask_overwrites": ("dot", "assign_mask", "vectorised"),
    "no_max": ("dot", "add", "no_max"),
}
EXPECTED_MISTAKE = {"ok": "", "no_scale": "scores_missing_scale", "mask_overwrites": "mask_replaces_scores",
                    "no_max": "softmax_no_max_subtraction"}
BROKEN, ABSENT = "broken", "absent"
VISIBLE_CHECKS, HIDDEN_CHECKS = 22, 7 + 6 + 8 + 5  # autograde/README.md "Points"


def _submissions(release):
    made = {student: submission(release, *impls) for student, impls in CLASS.items()}
    return {**made, BROKEN: '{"cells": ['}


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
        **{s: "graded" for s in CLASS}, BROKEN: "not_graded", ABSENT: "no_submission"}
    assert rows[BROKEN]["reason"].startswith("Not graded automatically, scored 0: NotJSONError")
    assert rows[BROKEN]["total"] == "0" and rows[ABSENT]["total"] == ""
    assert rows["ok"]["test1_scores_auto"] == "4" and rows["ok"]["total"] == "12"  # manual answers not graded yet


def test_the_mistakes_are_exactly_the_class_s(made):
    """One student per mistake, named as the diagnosis names it, each with a quarter of the diagnosed class?"""
    mistakes = {(m["bug_id"], m["count"], m["share"], m["students"]) for m in made[1]["mistakes"]}
    assert mistakes == {(bug, "1", "0.2500", student) for student, bug in EXPECTED_MISTAKE.items() if bug}
    first = {r["student"]: r["first_mistake"] for r in made[1]["students"] if r["student"] in CLASS}
    assert first == EXPECTED_MISTAKE


def test_every_check_is_counted(made):
    """All 22 verify checks and every hidden check appear; the correct submission fails none of them?"""
    checks = made[1]["checks"]
    visible = {c["check_id"] for c in checks if c["kind"] == "visible"}
    assert visible == {f"verify.{n}" for n in range(1, VISIBLE_CHECKS + 1)}
    assert sum(c["kind"] == "hidden" for c in checks) == HIDDEN_CHECKS
    assert all(c["ran"] == str(len(CLASS)) for c in checks)
    assert not [c["check_id"] for c in checks if "ok" in c["failing_students"].split(";")]


def test_payload_scores_agree_with_the_gradebook(made):
    """Does the cross-check find the grader's per-cell scores equal to the gradebook's?"""
    stderr, _, out = made
    assert "differ from the gradebook" not in stderr
    assert f"{len(CLASS)} with structured results" in stderr
    assert MIME not in (out / "index.html").read_text(encoding="utf-8")

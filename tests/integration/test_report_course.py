"""After grading a real class, does the class report count exactly what the class did?

The shared class (tests/support/classes.py: the representative mistakes, tests/support/cases.py and the red-team
table, graded by ``make grade``, one student on the roster who never submitted) is reported with
``python -m coursekit.report`` in the course, as ``make report`` runs it, and compared with what
the tables expect: statuses, points, first mistakes, every check, flagged cells.
"""
import collections
import csv
import re
import subprocess
import sys

import pytest

from coursekit.record import MIME
from support import redteam
from support.cases import CASES
from coursekit.language import WORDS
from support.classes import ABSENT, ENGLISH, ENGLISH_ONLY, REPRESENTATIVE_MISTAKES
from support.course_tools import ASSIGNMENT, POINTS
from support.mistakes import BY_NAME
from support.report_page import open_report

VISIBLE_CHECKS, HIDDEN_CHECKS = 22, 7 + 6 + 8 + 5  # autograde/README.md "Points"
EXPECTED_FIRST = {m: BY_NAME[m].diagnosis for m in REPRESENTATIVE_MISTAKES} | {c.name: c.diagnosis for c in (*CASES, *redteam.ROWS)
                                                            if c.gradable}


def _read(path):
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def reported(shared_class, tmp_path_factory):
    """make report in the shared class: one report per edition (out/<assignment>/), as make report writes them."""
    out = tmp_path_factory.mktemp("report")
    done = subprocess.run([sys.executable, "-m", "coursekit.report", "--out", str(out)], cwd=shared_class.course,
                          env=shared_class.env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stderr, out


def _tables(folder):
    return {name: _read(folder / f"{name}.csv") for name in ("students", "checks", "mistakes")}


@pytest.fixture(scope="module")
def made(reported):
    stderr, out = reported
    return stderr, _tables(out / ASSIGNMENT), out / ASSIGNMENT


def test_is_the_english_edition_reported_on_its_own_with_the_tables_points_and_mistakes(shared_class, reported):
    """The English edition's report (its own assignment): each row of the mistake table with the table's points and
    first mistake; "no submission" only for the student who submitted no edition at all, those who submitted the
    Chinese one as such; the page in the course's language?"""
    stderr, out = reported
    tables = _tables(out / ENGLISH)
    rows = {r["student"]: r for r in tables["students"]}
    for student, points in shared_class.english.items():
        assert tuple(float(rows[student][f"{cell}_auto"]) for cell in POINTS) == points, student
        assert (rows[student]["first_mistake"] or None) == EXPECTED_FIRST.get(student), student
    assert {s for s, r in rows.items() if r["status"] == "no_submission"} == {ABSENT}
    assert {s for s, r in rows.items() if r["status"] == "other_edition"} == set(rows) - set(shared_class.english) - {
        ABSENT}
    page = (out / ENGLISH / "index.html").read_text(encoding="utf-8")
    title = re.search(r"<h1>班级报告：(.*?)</h1>", page).group(1)  # the chapter's title, this edition named, no id
    assert title.startswith("第 4 章") and title.endswith("（英文版）") and ENGLISH not in title, title
    assert "最常见的错误" in page and "未提交（1）" in page


def test_every_student_appears_with_a_status(shared_class, made):
    """Graded students, the ungradable notebooks (0 with the reason) and the absent student, each as such?"""
    rows = {r["student"]: r for r in made[1]["students"]}
    assert {s: r["status"] for s, r in rows.items()} == {
        **{s: "graded" for s in EXPECTED_FIRST}, **{s: "not_graded" for s in shared_class.reasons},
        ABSENT: "no_submission", ENGLISH_ONLY: "other_edition"}  # the roster is the course's: no edition, or another
    for student, reason in shared_class.reasons.items():
        assert rows[student]["reason"].startswith("Not graded automatically, scored 0: ") and reason in rows[student]["reason"]
        assert rows[student]["total"] == "0"
    assert rows[ABSENT]["total"] == ""


def test_points_are_the_table_s(shared_class, made):
    """Is each autograded cell's auto score in students.csv the one the tables derive by hand?"""
    rows = {r["student"]: r for r in made[1]["students"]}
    for student in EXPECTED_FIRST:
        assert tuple(float(rows[student][f"{cell}_auto"]) for cell in POINTS) == shared_class.expected[student], student


def test_the_mistakes_are_exactly_the_table_s(made):
    """First mistake per student as the tables expect; per bug: its students (every first one among them),
    count and share of the diagnosed class?"""
    first = {r["student"]: r["first_mistake"] or None for r in made[1]["students"] if r["student"] in EXPECTED_FIRST}
    assert first == EXPECTED_FIRST
    mistakes = {r["bug_id"]: r for r in made[1]["mistakes"]}
    expected = collections.defaultdict(set)
    for student, bug in EXPECTED_FIRST.items():
        if bug:
            expected[bug].add(student)
    assert set(expected) <= set(mistakes)
    for bug, row in mistakes.items():
        students = set(row["students"].split(";"))
        assert expected[bug] <= students and int(row["count"]) == len(students), bug
        assert row["share"] == f"{len(students) / len(EXPECTED_FIRST):.4f}", bug


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
    summary = WORDS.template("zh", "report.command.summary")  # the course's language
    assert WORDS.template("zh", "report.command.warning").split("{n}")[1].split("（")[0] not in stderr
    mistaken = sum(diagnosis is not None for diagnosis in EXPECTED_FIRST.values())  # checked; with a mistake
    assert summary.split("{pending}")[1].format(pending="", diagnosed=len(EXPECTED_FIRST), mistaken=mistaken) in stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    flagged = re.search(r"bug_delegate_softmax</td><td>(TEST 3[^<]*)</td><td>调用了参考实现</td>", page)
    assert flagged and "student_softmax" in flagged.group(1)  # the cell by its name, the status in words
    assert MIME not in page


def test_the_page_opens_in_chromium(made, tmp_path):
    """Does the real class's page open from disk in Chromium without console errors (screenshot kept)?"""
    def check(page):
        assert "bug_no_scale" in page.locator("body").inner_text()

    assert open_report(made[2] / "index.html", "graded_class.png", tmp_path, check) == []

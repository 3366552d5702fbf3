"""Does the class report count exactly what the class did: statuses, checks, mistakes, disagreements?

Built on tests/support/synthetic_class.py's ``small_class`` (eight students, one per case the report
distinguishes). The real ``python -m coursekit.report``: tests/integration/test_report_command.py.
"""
import csv
import pathlib
import io

import pytest

from attnkit.reteach import reteach
from coursekit import canary
from coursekit.grades import read_class
from coursekit.record import CellRecord, HardCoded
from coursekit.report.csv_files import write_csvs
from coursekit.report.html_page import render
from coursekit.language import WORDS
from coursekit.report.tables import build_report
from support.synthetic_class import (ASSIGNMENT, AUTO, Student, check, finding, make_student, payload, small_class,
                                     write_class)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    course = tmp_path_factory.mktemp("class")
    progress = io.StringIO()
    built = build_report(course, read_class(small_class(course), ASSIGNMENT), progress, reteach)
    built.progress = progress.getvalue()
    return built


def test_every_student_has_a_status(report):
    """Graded, not graded (0 with the reason), no submission, submitted but not autograded: each one shown?"""
    assert {r.student: r.status for r in report.rows} == {
        "alice": "graded", "bob": "graded", "carol": "graded", "dave": "not_graded", "erin": "graded",
        "frank": "no_submission", "gina": "pending", "hank": "graded"}
    dave = next(r for r in report.rows if r.student == "dave")
    assert dave.reason.startswith("Not graded automatically, scored 0") and dave.total == 0.0


def test_first_mistake_follows_the_pipeline(report):
    """Is a student's first mistake the earliest stage's (scores → mask → softmax), each bug counted once?"""
    first = {r.student: r.first_mistake for r in report.rows}
    assert first == {"alice": "", "bob": "scores_missing_scale", "carol": "mask_replaces_scores", "dave": "",
                     "erin": "", "frank": "", "gina": "", "hank": ""}
    carol = next(r for r in report.rows if r.student == "carol")
    assert [f.bug for f in carol.mistakes] == ["mask_replaces_scores", "softmax_no_max_subtraction"]


def test_mistakes_are_counted_per_student(report):
    """Is each bug counted once per student (TEST 4 repeats it), with its share of the diagnosed students?"""
    assert report.diagnosed == 5  # alice, bob, carol, erin, hank carry payloads
    assert [(m.bug, m.stage, m.students) for m in report.mistakes] == [
        ("mask_replaces_scores", "mask", ["carol"]), ("scores_missing_scale", "scores", ["bob"]),
        ("softmax_no_max_subtraction", "softmax", ["carol"])]
    assert report.share(report.mistakes[0]) == pytest.approx(0.2)
    assert "加在分数上" in report.mistakes[0].reteach


def test_check_pass_rates_lowest_first(report):
    """Are pass rates over the students whose cell ran the check, the lowest first, with who failed?"""
    top = [(c.id, c.visible, c.passed, c.ran, c.failing) for c in report.checks[:3]]
    assert top == [("test2.hidden.rect_random", False, 3, 4, ["carol"]),
                   ("test1.hidden.rect_random", False, 4, 5, ["bob"]),
                   ("test3.hidden.float64", False, 4, 5, ["carol"])]
    assert all(c.pass_rate == 1.0 for c in report.checks[3:])
    assert [c.id for c in report.checks if c.test == 1 and c.visible] == ["verify.1", "verify.11"]


def test_flagged_cells_and_score_disagreements(report):
    """Are a delegated cell and a payload score the gradebook contradicts both reported, gradebook kept?"""
    assert report.flagged == [("erin", "test2_mask", "delegated", "调用了参考实现")]
    assert report.mismatches == [("hank", "test1_scores", 4.0, 4.5)]
    hank = next(r for r in report.rows if r.student == "hank")
    assert hank.total == 12.5  # the gradebook's 4.5, not the payload's 4.0


def test_progress_is_shown(report):
    """Does reading the notebooks print progress, ending at all of them?"""
    assert report.progress.splitlines()[-1].strip() == WORDS.say("zh", "report.command.read", done=6, total=6)


def test_notebooks_without_results_are_not_diagnosed(tmp_path):
    """Does a notebook autograded before the grader wrote payloads count as graded but not diagnosed?"""
    old = Student("old", {g: p for g, p in AUTO.items()}, payloads=[])
    url = write_class(tmp_path, [old, make_student("new")])
    report = build_report(tmp_path, read_class(url, ASSIGNMENT), io.StringIO())
    assert [(r.student, r.status, r.has_results) for r in report.rows] == [
        ("new", "graded", True), ("old", "graded", False)]
    assert report.diagnosed == 1 and report.mismatches == []


def test_an_unreadable_notebook_is_listed_and_the_class_still_reported(tmp_path):
    """Does a corrupt autograded file show up as unreadable for its student, the others reported as usual?"""
    url = write_class(tmp_path, [make_student("fine"), make_student("corrupt")])
    (tmp_path / "autograded" / "corrupt" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text("{", encoding="utf-8")
    report = build_report(tmp_path, read_class(url, ASSIGNMENT), io.StringIO())
    assert [(s, f, status) for s, f, status, _ in report.flagged] == [
        ("corrupt", f"{ASSIGNMENT}.ipynb", "unreadable")]
    assert report.flagged[0][3].startswith("JSONDecodeError")
    assert report.diagnosed == 1


def test_checks_of_a_delegated_cell_do_not_count(tmp_path):
    """Are checks run on a delegated cell (attnkit did the work) left out of the pass rates?"""
    cheat = make_student("cheat")
    cheat.payloads[2] = {**cheat.payloads[2], "status": "delegated", "score": 0.0, "reason": "检测到调用参考实现"}
    cheat.scores["test3_softmax"] = 0.0
    url = write_class(tmp_path, [cheat, make_student("honest", failing=("test3.hidden.float64",))])
    report = build_report(tmp_path, read_class(url, ASSIGNMENT), io.StringIO())
    rate = {c.id: (c.passed, c.ran) for c in report.checks}
    assert rate["test3.hidden.float64"] == (0, 1) and rate["test1.hidden.float64"] == (2, 2)
    assert report.flagged == [("cheat", "test3_softmax", "delegated", "检测到调用参考实现")]



def test_is_a_cell_answering_only_the_visible_checks_flagged_with_its_evidence_everywhere(tmp_path):
    """ivan passes every visible check of TEST 1 and, of the hidden ones, only the input check the release passes by
    itself (its canary's record): flagged there, with the checks, in his row, students.csv and the page; bob, failing
    the same hidden checks with a mistake the diagnosis names, and alice, correct, nowhere?"""
    hidden_fail = ("test1.hidden.rect_random", "test1.hidden.float64")
    ivan = make_student("ivan", failing=hidden_fail)
    bob = make_student("bob", failing=hidden_fail, findings={"test1_scores": [finding("scores_missing_scale")]})
    for student in (ivan, bob):
        student.payloads[0]["checks"].append(check("test1.hidden.rejects", True))
    url = write_class(tmp_path, [make_student("alice"), bob, ivan])
    release = CellRecord.from_dict(payload("test1_scores", 1.0, [check("verify.1", False), check("verify.11", True),
                                                                 check("test1.hidden.rejects", True)]))
    canary._remember(tmp_path, canary.ReleaseRun(ASSIGNMENT, {"test1_scores": release}))
    report = build_report(tmp_path, read_class(url, ASSIGNMENT), io.StringIO())
    flag = HardCoded("test1_scores", ("verify.1", "verify.11"), hidden_fail)
    assert report.hard_coded == [("ivan", flag)]
    write_csvs(report, tmp_path)
    rows = {r["student"]: r["may_be_hard_coded"] for r in csv.DictReader((tmp_path / "students.csv").open())}
    assert rows == {"alice": "", "bob": "", "ivan": "test1_scores (passed verify.1 verify.11; failed "
                                                    "test1.hidden.rect_random test1.hidden.float64)"}
    page = render(report, "en")
    assert "May be hard-coded to the visible checks (1)" in page and "<td>ivan</td>" in page
    assert "test1.hidden.rect_random, test1.hidden.float64" in page


def _practice_records(student_checks: dict) -> dict:
    """{student: {grade_id: CellRecord}}: a practice exercise (0 points) with each student's checks ([]: not tried),
    beside a TEST 1 record that every student passes."""
    from coursekit.record import Check
    test1 = CellRecord("test1_scores", 1, 4.0, 4.0, "graded", "", (Check("verify.1", True, "v", True),))
    return {student: {"test1_scores": test1,
                      "ex1_order": CellRecord("ex1_order", 1, 0.0, 0.0, "graded", "" if checks else "not tried",
                                              tuple(Check(f"exercise1.{n}", False, "h", ok) for n, ok in
                                                    enumerate(checks)))}
            for student, checks in student_checks.items()}


def test_does_the_report_count_who_tried_and_passed_each_practice_exercise_and_nothing_else():
    """A practice exercise's records: who had it, tried it (checks ran), passed it (all passed); its checks are in no
    pass rate, and TEST 1's still are?"""
    from coursekit.report.tables import _check_stats, _practice_stats
    results = _practice_records({"ann": [True, True], "ben": [], "cid": [True, False]})
    [stat] = _practice_stats(results)
    assert (stat.grade_id, stat.seen, stat.tried, stat.passed) == ("ex1_order", ["ann", "ben", "cid"], ["ann", "cid"],
                                                                    ["ann"])
    assert [s.id for s in _check_stats(results)] == ["verify.1"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_the_page_and_the_summary_show_the_practice_exercises(report, lang):
    """The page's practice section (tried, passed, who tried without passing), and make report's line, in the course's
    language; no histogram or column of 0 points?"""
    import dataclasses
    from coursekit.report.command import _summary_lines
    from coursekit.report.labels import Labels
    from coursekit.report.tables import _practice_stats
    practised = dataclasses.replace(report, practice=_practice_stats(
        _practice_records({"ann": [True, True], "ben": [], "cid": [True, False]})))
    page = render(practised, lang)
    heading = {"zh": "选做练习（不计分）", "en": "Practice exercises (not graded)"}[lang]
    assert f"<h2>{heading}</h2>" in page and "<td>cid</td>" in page.split(heading)[1].split("<h2>")[0]
    similarity = type("S", (), {"flagged": [], "threshold": 0.42, "students": 0})()
    line = {"zh": "选做练习 ex1_order：3 名学生中 2 名做了，1 名通过", "en": "practice ex1_order: of 3 students, 2 tried it and 1 passed"}
    assert any(line[lang] in text for text in _summary_lines(practised, similarity, pathlib.Path("out"), lang,
                                                             Labels(lang)))
    assert render(report, lang).count(heading) == 0  # an assignment without practice exercises: no section

"""Do students.csv, checks.csv and mistakes.csv hold one row per student / check / mistake, as documented?"""
import csv
import io

import pytest

from coursekit.report.csv_files import write_csvs
from coursekit.grades import read_class
from coursekit.report.tables import build_report
from support.synthetic_class import ASSIGNMENT, small_class


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    course = tmp_path_factory.mktemp("class")
    report = build_report(course, read_class(small_class(course), ASSIGNMENT), io.StringIO())
    write_csvs(report, course)
    return {name: list(csv.DictReader((course / f"{name}.csv").open(encoding="utf-8")))
            for name in ("students", "checks", "mistakes")}


def test_students_csv(out):
    """One row per student: each graded cell's auto and manual score, the total, the first mistake?"""
    rows = {r["student"]: r for r in out["students"]}
    assert list(rows) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank"]
    alice = rows["alice"]
    assert (alice["test1_scores_auto"], alice["test1_scores_manual"]) == ("4", "")
    assert (alice["q_lab1_no_scale_auto"], alice["q_lab1_no_scale_manual"]) == ("", "1")
    assert (alice["total"], alice["max_total"], alice["first_mistake"]) == ("13", "14", "")
    assert (rows["bob"]["first_mistake"], rows["carol"]["first_mistake"]) == (
        "scores_missing_scale", "mask_replaces_scores")
    assert (rows["frank"]["status"], rows["frank"]["total"], rows["frank"]["test1_scores_auto"]) == (
        "no_submission", "", "")
    assert rows["dave"]["status"] == "not_graded" and rows["dave"]["reason"].startswith("Not graded")


def test_checks_csv(out):
    """Check id, test, visible/hidden, description, pass rate and the failing students, lowest rate first?"""
    first = out["checks"][0]
    assert (first["check_id"], first["test"], first["kind"], first["pass_rate"], first["failing_students"]) == (
        "test2.hidden.rect_random", "2", "hidden", "0.7500", "carol")
    assert first["description"] == "检查 test2.hidden.rect_random"
    assert {r["kind"] for r in out["checks"]} == {"visible", "hidden"}


def test_mistakes_csv(out):
    """Bug id, stage, count, share and students, most common first?"""
    assert [(r["bug_id"], r["stage"], r["count"], r["share"], r["students"]) for r in out["mistakes"]] == [
        ("mask_replaces_scores", "mask", "1", "0.2000", "carol"),
        ("scores_missing_scale", "scores", "1", "0.2000", "bob"),
        ("softmax_no_max_subtraction", "softmax", "1", "0.2000", "carol")]


def test_do_the_csv_files_keep_the_ids_and_add_the_names(tmp_path):
    """Named students (as an LMS's roster names them): every CSV keeps its id columns and adds the names beside them;
    a student the gradebook has no name for has an empty name?"""
    from coursekit.people import People

    report = build_report(tmp_path, read_class(small_class(tmp_path), ASSIGNMENT), io.StringIO())
    people = People({"bob": "Bob Li", "carol": "卡罗尔"})
    write_csvs(report, tmp_path, people)
    read = {name: list(csv.DictReader((tmp_path / f"{name}.csv").open(encoding="utf-8")))
            for name in ("students", "checks", "mistakes")}
    rows = {r["student"]: r["name"] for r in read["students"]}
    assert (rows["bob"], rows["carol"], rows["alice"]) == ("Bob Li", "卡罗尔", "")
    mistake = next(m for m in read["mistakes"] if m["bug_id"] == "scores_missing_scale")
    assert (mistake["students"], mistake["names"]) == ("bob", "Bob Li")
    failing = next(c for c in read["checks"] if "carol" in c["failing_students"].split(";"))
    assert "卡罗尔" in failing["failing_names"].split(";")

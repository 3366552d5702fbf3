"""Does the grader's record (coursekit.record) survive its JSON form exactly, and refuse what it is not?"""
import json

import pytest

from coursekit import record
from coursekit.record import MIME, CellRecord, Check, FindingRecord, records_in

GRADED_HERE = {"coursekit": {"grader": {"kernel_agreed": True}}}  # what the grading process notes in a cell it graded


def _record(**changes):
    fields = dict(grade_id="test1_scores", test=1, points=4.0, score=2.5, status=record.GRADED, reason="",
                  checks=(Check("verify.3", True, "out[0][0] == 0.5", True), Check("test1.random_rect", False, "非方阵", False)),
                  findings=(FindingRecord("scores", "scores_missing_scale", "scores/rect", "现象：没有乘 scale"),))
    return CellRecord(**{**fields, **changes})


def test_does_a_record_come_back_equal_through_json():
    """to_dict → JSON text → from_dict gives the same record, checks and findings included?"""
    original = _record()
    again = CellRecord.from_dict(json.loads(json.dumps(original.to_dict(), ensure_ascii=False)))
    assert again == original and again.passed == 1


def test_is_the_schema_the_first_key_of_the_published_form():
    """The published dict names its schema (readers refuse other versions)?"""
    assert next(iter(_record().to_dict())) == "schema"


@pytest.mark.parametrize("status", ["passed", "", "GRADED"])
def test_is_an_unknown_status_refused_with_the_known_ones(status):
    """A status outside STATUSES names itself and the allowed values?"""
    with pytest.raises(ValueError, match=rf"one of graded, delegated, .*got {status!r}"):
        _record(status=status)


def test_is_another_schema_refused_naming_where_it_came_from():
    """A record of schema 2 names the file and both versions?"""
    data = {**_record().to_dict(), "schema": 2}
    with pytest.raises(ValueError, match=r"^student\.ipynb: grading record schema 2, expected 1$"):
        CellRecord.from_dict(data, "student.ipynb")


def test_is_a_missing_field_named():
    """A record without its grade id says which field is missing?"""
    data = _record().to_dict()
    del data["grade_id"]
    with pytest.raises(ValueError, match=r"nb\.ipynb: grading record lacks or mistypes 'grade_id'"):
        CellRecord.from_dict(data, "nb.ipynb")


def test_does_records_in_read_only_display_data_of_its_mime():
    """Records come from display_data of MIME only: a stream or an execute_result holding the MIME is ignored?"""
    published = _record().to_dict()
    tampered = _record(grade_id="test2_mask", test=2, status=record.DELEGATED, reason="测试单元格被修改").to_dict()
    nb = {"cells": [
        {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "test1_scores"}, **GRADED_HERE},
         "outputs": [{"output_type": "display_data", "data": {MIME: published}}]},
        {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "test2_mask"}, **GRADED_HERE},
         "outputs": [{"output_type": "execute_result", "data": {MIME: tampered}},
                     {"output_type": "stream", "name": "stdout", "text": "x"}]},
        {"cell_type": "markdown", "source": "答案"}]}
    assert records_in(nb) == {"test1_scores": _record()}


def test_is_a_record_printed_by_another_cell_not_read():
    """A record is read only from the test cell it is about: a forged one in a student's cell is ignored, even later?"""
    forged = _record(score=4.0).to_dict()
    nb = {"cells": [
        {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "test1_scores"}, **GRADED_HERE},
         "outputs": [{"output_type": "display_data", "data": {MIME: _record().to_dict()}}]},
        {"cell_type": "code", "metadata": {}, "outputs": [{"output_type": "display_data", "data": {MIME: forged}}]}]}
    assert records_in(nb) == {"test1_scores": _record()}


def test_is_a_record_the_kernel_printed_in_its_test_cell_not_read():
    """A test cell whose outputs the grading process did not write from a grader's verdict (a plain assignment's,
    run in the kernel): a record there is the kernel's, a forgery, and not read?"""
    forged = _record(score=4.0).to_dict()
    nb = {"cells": [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "test1_scores"}},
                     "outputs": [{"output_type": "display_data", "data": {MIME: forged}}]}]}
    assert records_in(nb) == {}


def _cell(visible, hidden, bugs=(), status=record.GRADED, grade_id="test1_scores"):
    """A record whose checks pass as ``visible`` and ``hidden`` say (True/False each), with findings ``bugs``."""
    checks = tuple(Check(f"verify.{n}", True, "", ok) for n, ok in enumerate(visible, 1))
    checks += tuple(Check(f"test1.h{n}", False, "", ok) for n, ok in enumerate(hidden, 1))
    found = tuple(FindingRecord("scores", bug, "", "") for bug in bugs)
    return CellRecord(grade_id, 1, 4.0, 1.0, status, "", checks, found)


RELEASE = {"test1_scores": _cell((False, True, False), (False, False, True), ("scores_out_not_written",))}


@pytest.mark.parametrize("cell, flagged", [
    (_cell((True,) * 3, (False, False, True), ("scores_out_not_written",)), True),  # the stubs' hidden pass only
    (_cell((True,) * 3, (False, False, False), ("scores_wrong_values",)), True),  # a finding with no name
    (_cell((True,) * 3, (False, True, True), ("scores_out_not_written",)), False),  # a hidden check of its own
    (_cell((True, True, False), (False, False, True)), False),                     # verify not whole
    (_cell((True,) * 3, (False, False, True), ("scores_q_qt",)), False),            # a named mistake explains it
    (_cell((True,) * 3, (False, False, True), status=record.DELEGATED), False),     # not graded by its checks
])
def test_is_a_cell_flagged_only_when_it_answers_the_visible_inputs_alone(cell, flagged):
    """Every visible check passed, every hidden one the release fails failed, nothing the diagnosis names beyond
    the release's: flagged, with the evidence (the release's own passes left out); anything else: not?"""
    found = record.may_be_hard_coded({cell.grade_id: cell}, RELEASE, lambda bug: bug.endswith("_wrong_values"))
    assert bool(found) == flagged
    if flagged:
        assert found == (record.HardCoded("test1_scores", ("verify.1", "verify.2", "verify.3"),
                                          ("test1.h1", "test1.h2")),)


def test_without_the_release_does_every_hidden_check_count():
    """No canary ran: the release's input check counts like any hidden check, and nothing is left out?"""
    cell = _cell((True,) * 3, (False, False, True), ("scores_out_not_written",))
    assert record.may_be_hard_coded({cell.grade_id: cell}) == ()
    alone = _cell((True,) * 3, (False, False, False))
    assert record.may_be_hard_coded({alone.grade_id: alone})[0].failed == ("test1.h1", "test1.h2", "test1.h3")


def test_is_a_cell_whose_visible_checks_the_release_passes_whole_never_flagged():
    release = {"test1_scores": _cell((True,) * 3, (False,) * 3)}
    cell = _cell((True,) * 3, (False,) * 3)
    assert record.may_be_hard_coded({cell.grade_id: cell}, release) == ()

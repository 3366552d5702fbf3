"""Does the course's grader (autograde/grader) score every mistake as the table says, whatever the student's process does?

Each run grades with a seed of its own (from the run's TEST_SEED: the hidden inputs differ from run to run, as from
submission to submission; tests/unit/test_grader_inputs.py tries more seeds on the hidden checks alone).

The grader runs in a process of its own and calls the student's functions across the boundary;
here that boundary is folded into this process (tests/support/local_grading.py: the same encoding of
the arguments, the same call hook as the kernel), so that every entry of the mistake table is graded
quickly, cell by cell. The real processes: tests/integration (make grade, the red-team table).
"""
import functools
import hashlib
import json
import os
import re
import sys

import numpy as np
import pytest

import grader
from attnkit import course, guard
from attnkit.gradecell import TEST_CELLS
from attnkit.lab import ROLE
from coursekit.record import MIME, CellRecord, may_be_hard_coded
from grader.checks import HIDDEN
from support.course_tools import index_of
from support.editions import CJK, EDITIONS
from support.editions import release as edition_release
from support.local_grading import InProcess
from support.mistakes import HARD_CODED, MISTAKES, ROLES, defined, functions, release, stub_functions
from support.redteam import HARD_CODED as RED_HARD_CODED

RELEASE = release()
SEED = hashlib.sha256(f"grader tests {os.environ['TEST_SEED']}".encode()).hexdigest()  # this run's submission seed


def _namespace(fns) -> dict:
    return dict(zip((ROLE[stage] for stage in ("scores", "mask", "softmax")), fns))


def _grade_all(fns, lang="zh", texts=None) -> tuple:
    """The four test cells graded as the grader process grades them, one student's functions across them all, in the
    notebook's language ``lang``; each cell's text appended to ``texts`` when given."""
    local = InProcess(_namespace(fns), lang=lang)
    outcomes = []
    for test in TEST_CELLS:
        local.start_cell()
        verdict = grader.grade(test.grade_id, local, lang, SEED)
        outcomes.append(CellRecord.from_dict(verdict["data"][MIME]))
        if texts is not None:
            texts.append(verdict["text"])
    return tuple(outcomes)


@functools.cache
def _untouched() -> dict:
    """The untouched release's records, as its canary leaves them (coursekit.canary.release_records)."""
    return {o.grade_id: o for o in _grade_all(stub_functions(RELEASE))}


def _flagged(outcomes: tuple) -> tuple:
    """The cells the class report flags "may be hard-coded" in these records, beside the untouched release's."""
    records = {o.grade_id: o for o in outcomes}
    return tuple(flag.grade_id for flag in may_be_hard_coded(records, _untouched(), course.unnamed))


RELEASES = {lang: edition_release(lang) for lang in EDITIONS}
# The rows graded in English too: the first of each kind the table tells apart (its points and diagnosis). The others
# differ from one of these only in how the student wrote the same thing (another correct way, another way to
# delegate), which the grader's English does not see: they would cost a second grading each, two of them 0.6 s.
ENGLISH_ROWS = {next(m.name for m in MISTAKES if (m.points, m.diagnosis) == kind)
                for kind in {(m.points, m.diagnosis) for m in MISTAKES}}


# The bugs the lab's issue names, each of which must be a row of the table (and lose points).
REQUIRED_BUGS = ["bug_hardcoded", "bug_q_qt", "bug_k_qt", "bug_no_scale", "bug_default_scale",
                 "bug_rebind_out", "bug_mask_assigned", "bug_mask_multiplied", "bug_mask_rebound",
                 "bug_softmax_axis0", "bug_softmax_no_max", "bug_softmax_unnormalised",
                 "bug_softmax_rebind_out", "bug_softmax_global_max", "bug_delegate_softmax"]


def test_is_the_table_big_and_varied_enough():
    """≥ 6 correct and ≥ 12 buggy submissions, every named bug among them?"""
    correct = [m for m in MISTAKES if m.correct]
    buggy = [m.name for m in MISTAKES if not m.correct]
    assert len(correct) >= 6 and len(buggy) >= 12 and len(correct) + len(buggy) == len(MISTAKES)
    assert set(REQUIRED_BUGS) <= set(buggy)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning",  # a delegating thread's
                            "ignore::pytest.PytestUnhandledThreadExceptionWarning")  # error from the stub
@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_does_each_mistake_get_its_points_cell_by_cell(mistake):
    """The hand-derived points of the table, per test cell, straight from the grader; for a row of each kind, typed
    into the English edition and graded in English too: the same points, statuses, checks and findings, every word
    the English student reads English (the verdict, the hidden checks, the findings' messages, a reason for 0), and
    the Chinese edition's in Chinese?"""
    langs = EDITIONS if mistake.name in ENGLISH_ROWS else ("zh",)
    graded, texts = {}, {lang: [] for lang in langs}
    for lang in langs:
        graded[lang] = _grade_all(functions(mistake, RELEASES[lang]), lang, texts[lang])
        assert tuple(o.score for o in graded[lang]) == mistake.points, lang
    zh = graded["zh"]
    assert _flagged(zh) == HARD_CODED.get(mistake.name, ())
    delegated = {o.test for o in zh if o.status == "delegated"}
    assert delegated == ({3, 4} if "delegate_softmax" in mistake.name else
                         {1, 4} if "delegate_scores" in mistake.name else set())
    assert all(CJK.search(o.reason) for o in zh if o.status != "graded")
    if mistake.diagnosis:
        assert next(f for o in zh for f in o.findings).message.startswith("现象：")
    if "en" not in graded:
        return
    en = graded["en"]
    assert [(o.status, [(c.id, c.passed) for c in o.checks], [(f.stage, f.bug) for f in o.findings]) for o in en] == \
        [(o.status, [(c.id, c.passed) for c in o.checks], [(f.stage, f.bug) for f in o.findings]) for o in zh]
    english = "".join(texts["en"]) + str([(o.reason, [c.description for c in o.checks], [f.message for f in o.findings])
                                          for o in en])
    assert not CJK.findall(english), CJK.findall(english)
    if mistake.diagnosis:
        first = next(f for o in en for f in o.findings)
        assert first.bug == mistake.diagnosis and first.message.startswith("Seen: ")


@pytest.mark.parametrize("row, cells", RED_HARD_CODED, ids=[row.name for row, _ in RED_HARD_CODED])
def test_is_a_submission_answering_only_verify_flagged_with_its_evidence(row, cells):
    """The red-team rows that answer verify's own inputs from a table (nothing a grading rule refuses): they score
    what the table says, more than the stubs, and each cell the table names is flagged "may be hard-coded", with
    every visible check passed and every hidden check the release fails failed?"""
    nb = row.build(RELEASE)
    added = nb.cells[index_of(nb, "student_softmax") + 1]  # the student's cell after the stubs
    fns = defined([nb.cells[index_of(nb, grade_id)] for grade_id in ("setup_imports", *ROLES)] + [added])
    outcomes = _grade_all(fns)
    assert tuple(o.score for o in outcomes) == row.points and sum(row.points) > sum(o.score for o in _untouched().values())
    assert _flagged(outcomes) == cells
    flags = {flag.grade_id: flag for flag in may_be_hard_coded({o.grade_id: o for o in outcomes}, _untouched())}
    scores = flags["test1_scores"]
    assert scores.passed == tuple(f"verify.{n}" for n in range(1, 10))
    assert "test1.random_rect" in scores.failed and "test1.rejects_bad_input" not in scores.failed  # the release's


def test_are_the_rows_graded_in_english_one_of_each_kind():
    """Every (points, diagnosis) of the table has a row graded in English, and no two of them share one?"""
    kinds = [(m.points, m.diagnosis) for m in MISTAKES if m.name in ENGLISH_ROWS]
    assert sorted(kinds, key=str) == sorted({(m.points, m.diagnosis) for m in MISTAKES}, key=str)
    assert {"ok_dot", "bug_delegate_softmax", "bug_delegate_scores", "bug_no_scale"} <= ENGLISH_ROWS


def test_does_every_check_count_the_same_and_add_up_to_the_points():
    """Each TEST's visible + hidden checks give 0.25 per check; hidden ids are unique and stable-looking?"""
    reference_like = functions(MISTAKES[0], RELEASE)
    for outcome, test in zip(_grade_all(reference_like), TEST_CELLS):
        assert outcome.status == "graded" and outcome.score == test.points
        assert test.points / len(outcome.checks) == 0.25
        ids = [check.id for check in outcome.checks]
        assert len(ids) == len(set(ids))
        assert all(re.fullmatch(rf"verify\.\d+|test{test.number}\.[a-z0-9_]+", i) for i in ids)
    every_id = [check.id for checks in HIDDEN.values() for check in checks]
    assert len(every_id) == len(set(every_id)) == 26


def test_is_the_record_what_the_class_report_reads():
    """Schema, grade id, points, score, status, checks (visible ids = verify numbers) and findings, as JSON types,
    readable back by coursekit.record (the class report's reader)?"""
    fns = functions(next(m for m in MISTAKES if m.name == "bug_softmax_no_max"), RELEASE)
    verdict = grader.grade("test3_softmax", InProcess(_namespace(fns)), "zh", SEED)
    payload = json.loads(json.dumps(verdict["data"][MIME]))
    assert CellRecord.from_dict(payload).to_dict() == payload
    assert {k: payload[k] for k in ("schema", "grade_id", "test", "points", "score", "status", "seed")} == {
        "schema": 1, "grade_id": "test3_softmax", "test": 3, "points": 3.0, "score": 2.25, "status": "graded",
        "seed": SEED}
    assert [row["id"] for row in payload["checks"][:4]] == ["verify.16", "verify.17", "verify.18", "verify.19"]
    assert payload["findings"][0]["bug"] == "softmax_no_max_subtraction"
    assert set(payload["findings"][0]) == {"stage", "bug", "probe", "message"}


def test_does_the_verdict_show_verify_the_hidden_lines_and_the_score(capsys):
    """What the cell and the feedback show: TEST 3 as verify prints it, each hidden check, the score line; the
    points a plain float; nothing printed by the grader itself?"""
    verdict = grader.grade("test3_softmax", InProcess(_namespace(functions(MISTAKES[0], RELEASE))), "zh", SEED)
    out, err = capsys.readouterr()
    assert type(verdict["points"]) is float and verdict["points"] == 3.0 and out == err == ""
    text = verdict["text"]
    assert text.startswith("\n[TEST 3]") and text.count("[PASS] 隐藏检查") == len(HIDDEN[3])
    assert "本项得分 = 3 × 12/12 = 3" in text


def test_is_a_function_that_timed_out_never_called_again(monkeypatch):
    """A call interrupted by the cell's time (in the kernel: a KeyboardInterrupt) scores that cell 0 as a timeout,
    and the next cell does not call the function again?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    calls = []

    def hangs(out, inp):
        calls.append(1)
        raise KeyboardInterrupt  # what the interrupt delivers

    local = InProcess({"student_softmax": hangs, **{k: v for k, v in _namespace(functions(MISTAKES[0], RELEASE)).items()
                                                    if k != "student_softmax"}})
    first = CellRecord.from_dict(grader.grade("test3_softmax", local, "zh", SEED)["data"][MIME])
    local.start_cell()
    later = CellRecord.from_dict(grader.grade("test4_end_to_end", local, "zh", SEED)["data"][MIME])
    assert (first.status, first.score, later.status, later.score, len(calls)) == ("timeout", 0.0, "timeout", 0.0, 1)
    assert "运行超时" in first.reason and "在前面的单元格里运行超时" in later.reason


def test_does_an_error_inside_the_grader_score_zero_with_one_line(monkeypatch, capsys):
    """A grader fault gives one Chinese line and 0.0 (its traceback only in the grader's log, never in the cell)?"""
    monkeypatch.setitem(HIDDEN, 2, None)  # iterating None raises TypeError inside evaluate
    verdict = grader.grade("test2_mask", InProcess(_namespace(functions(MISTAKES[0], RELEASE))), "zh", SEED)
    assert verdict["points"] == 0.0 and "评分中断（TypeError）" in verdict["text"] and "Traceback" not in verdict["text"]
    assert "Traceback" in capsys.readouterr().err


def test_does_the_probe_restore_everything_after_a_call():
    """After a guarded call: no profiler, reference code and environment as before, even when the call raised?"""
    attention = sys.modules["attnkit.attention"]
    code = attention.softmax.__code__

    def raises(out, inp):
        raise ValueError("boom")

    outcome = guard.guarded_call(raises, (None, None))
    assert outcome["error"] == "ValueError: boom" and outcome["forbidden"] == []
    assert sys.getprofile() is None and attention.softmax.__code__ is code
    assert guard.REFERENCE_FREE not in os.environ and not hasattr(attention, guard.STUB_GLOBAL)


def test_does_a_stubbed_reference_function_name_itself_when_called():
    """While a student function runs, each reference function raises naming itself: its own name, any arguments?"""
    attention = sys.modules["attnkit.attention"]
    probe = guard.Guard(os.path.dirname(attention.__file__))
    stubbed = {fn.__qualname__: fn for module, fn, *_ in probe.stubs if module is attention}
    assert {"softmax", "attention_scores"} <= stubbed.keys()
    assert not [fn for module, fn, *_ in probe.stubs if module.__name__ in ("attnkit.guard", "attnkit.safecall")]

    def delegates(out, inp):
        attention.softmax(inp, axis=-1)

    outcome = guard.guarded_call(delegates, (None, np.zeros(2)))
    assert "（softmax）" in outcome["error"] and outcome["forbidden"] == ["reference:softmax"]  # a code, said by the grader
    assert [guard.describe(code, lang) for code in outcome["forbidden"] for lang in ("zh", "en")] == [
        "attnkit 参考实现 softmax", "attnkit's reference softmax"]
    assert attention.softmax(np.zeros(2)).tolist() == [0.5, 0.5]  # the real code is back


def test_are_the_arrays_written_back_through_views_of_one_buffer():
    """The lab's in-place contract across the boundary: writing into a strided view of a buffer lands in the
    caller's buffer, the elements around it untouched, an input left unchanged seen as unchanged?"""
    buffer = np.arange(36, dtype=np.float32).reshape(4, 9)
    before = buffer.copy()

    def add_one(scores, mask):
        scores += mask

    local = InProcess({"student_apply_mask": add_one})
    mask = np.ones((4, 4), np.float32)
    local.function("student_apply_mask")(buffer[:, :8:2], mask)
    assert (buffer[:, :8:2] == before[:, :8:2] + 1).all() and (buffer[:, 1::2] == before[:, 1::2]).all()
    assert (mask == 1).all()

"""Does the course's grader (autograde/grader) score every mistake as the table says, and stay unbreakable?

The grader is imported here as a package; the notebook loads the very same files by path
(tests/test_course*.py run it through nbgrader). Each table entry's three functions are
built from the released notebook's cells (tests/mistakes.py), then graded cell by cell.
"""
import contextlib
import io
import json
import os
import re
import sys

import nbformat
import numpy as np
import pytest

import grader
from attnkit import lab
from attnkit.gradecell import TEST_CELLS
from attnkit.record import CellRecord
from attnkit.safecall import mark_if_hung
from coursekit.paths import MASTER
from grader import guard
from grader.checks import HIDDEN
from support.course_tools import cells_by_id
from support.mistakes import MISTAKES, functions, release

CELL_FNS = {1: (0,), 2: (1,), 3: (2,), 4: (0, 1, 2)}  # which of the three functions each TEST grades
RELEASE = release()


def _grade_all(fns) -> tuple:
    with contextlib.redirect_stderr(io.StringIO()):  # a delegating thread's traceback, as the kernel would show
        return tuple(grader.evaluate(n, tuple(fns[i] for i in CELL_FNS[n]), {}) for n in (1, 2, 3, 4))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning",  # a delegating thread's
                            "ignore::pytest.PytestUnhandledThreadExceptionWarning")  # error from the stub
@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_does_each_mistake_get_its_points_cell_by_cell(mistake):
    """The hand-derived points of the table, per test cell, straight from the grader?"""
    outcomes = _grade_all(functions(mistake, RELEASE))
    assert tuple(o.score for o in outcomes) == mistake.points
    delegated = {o.test for o in outcomes if o.status == "delegated"}
    assert delegated == ({3, 4} if "delegate_softmax" in mistake.name else
                         {1, 4} if "delegate_scores" in mistake.name else set())


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
    readable back by attnkit.record (the class report's reader)?"""
    scores, mask, softmax = functions(next(m for m in MISTAKES if m.name == "bug_softmax_no_max"), RELEASE)
    cell = grader.evaluate(3, (softmax,), {})
    payload = json.loads(json.dumps(cell.to_dict()))
    assert CellRecord.from_dict(payload).to_dict() == cell.to_dict()  # the grader builds it from a private attnkit
    assert {k: payload[k] for k in ("schema", "grade_id", "test", "points", "score", "status")} == {
        "schema": 1, "grade_id": "test3_softmax", "test": 3, "points": 3.0, "score": 2.25, "status": "graded"}
    assert [row["id"] for row in payload["checks"][:4]] == ["verify.16", "verify.17", "verify.18", "verify.19"]
    assert payload["findings"][0]["bug"] == "softmax_no_max_subtraction"
    assert set(payload["findings"][0]) == {"stage", "bug", "probe", "message"}


def test_does_grade_print_the_hidden_lines_and_return_a_plain_float(capsys):
    """What the feedback shows: each hidden check with PASS/FAIL, the score line; the value a float?"""
    _, _, softmax = functions(MISTAKES[0], RELEASE)
    score = grader.grade(3, softmax)
    out, err = capsys.readouterr()
    assert type(score) is float and score == 3.0 and err == ""
    assert out.count("[PASS] 隐藏检查") == len(HIDDEN[3]) and "本项得分 = 3 × 12/12 = 3" in out


def test_is_a_tampered_environment_worth_nothing(monkeypatch):
    """numpy.exp replaced, or attnkit.verify patched: status tampered, 0 points, the reason in Chinese?"""
    fns = functions(MISTAKES[0], RELEASE)
    monkeypatch.setattr(np, "exp", lambda x: x)
    outcome = grader.evaluate(3, (fns[2],), {})
    assert (outcome.status, outcome.score) == ("tampered", 0.0) and "numpy.exp 被替换" in outcome.reason
    monkeypatch.undo()
    monkeypatch.setattr(sys.modules["attnkit.verify"], "_eq", lambda value, expected: True)
    outcome = grader.evaluate(1, (fns[0],), {})
    assert (outcome.status, outcome.score) == ("tampered", 0.0) and "attnkit.verify._eq 被改动" in outcome.reason


def test_is_a_name_rebound_in_the_notebook_seen():
    """`np` in the notebook's namespace no longer numpy: tampered?"""
    fns = functions(MISTAKES[0], RELEASE)
    outcome = grader.evaluate(2, (fns[1],), {"np": object()})
    assert outcome.status == "tampered" and "名字 np 不再指向模块 numpy" in outcome.reason


def test_is_a_function_that_timed_out_never_called_again(monkeypatch):
    """After one timeout under nbgrader, the grader reports it and does not call the function?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    calls = []

    def hangs(out, inp):
        calls.append(1)
        raise KeyboardInterrupt  # what the cell timeout delivers

    with pytest.raises(KeyboardInterrupt), mark_if_hung(hangs):
        hangs(None, None)
    outcome = grader.evaluate(3, (hangs,), {})
    assert (outcome.status, outcome.score, len(calls)) == ("timeout", 0.0, 1)
    assert "运行超时" in outcome.reason


def test_does_an_error_inside_the_grader_score_zero_without_a_traceback(monkeypatch, capsys):
    """A grader fault prints one Chinese line and returns 0.0; nothing on stderr, no hidden source?"""
    monkeypatch.setitem(HIDDEN, 2, None)  # iterating None raises TypeError inside evaluate
    _, mask, _ = functions(MISTAKES[0], RELEASE)
    assert grader.grade(2, mask) == 0.0
    out, err = capsys.readouterr()
    assert "评分中断（TypeError）" in out and err == "" and "Traceback" not in out


def test_does_the_probe_restore_everything_after_a_call():
    """After a guarded call: no profiler, reference code and environment as before, even when the call raised?"""
    attention = sys.modules["attnkit.attention"]
    code = attention.softmax.__code__
    probe = guard.Guard(os.path.dirname(attention.__file__), lambda fn: False, mark_if_hung)

    def raises(out, inp):
        raise ValueError("boom")

    with pytest.raises(ValueError):
        probe.wrap(raises, "student_softmax")(None, None)
    assert sys.getprofile() is None and attention.softmax.__code__ is code
    assert guard.REFERENCE_FREE not in os.environ and not hasattr(attention, guard.STUB_GLOBAL)
    assert probe.forbidden == set()


def test_does_a_stubbed_reference_function_name_itself_when_called():
    """While a student function runs, each reference function raises naming itself: its own name, any arguments?"""
    attention = sys.modules["attnkit.attention"]
    probe = guard.Guard(os.path.dirname(attention.__file__), lambda fn: False, mark_if_hung)
    stubbed = {fn.__qualname__: fn for module, fn, *_ in probe.stubs if module is attention}
    assert {"softmax", "attention_scores"} <= stubbed.keys()

    def delegates(out, inp):
        stubbed["softmax"](inp, axis=-1)

    with pytest.raises(RuntimeError, match=r"（softmax）"):
        probe.wrap(delegates, "student_softmax")(None, None)
    assert probe.forbidden == {"attnkit 参考实现 softmax"}
    assert attention.softmax(np.zeros(2)).tolist() == [0.5, 0.5]  # the real code is back


def _hidden_region(number: int) -> str:
    source = cells_by_id(nbformat.read(MASTER, as_version=4))[TEST_CELLS[number - 1].grade_id].source
    return re.search(r"### BEGIN HIDDEN TESTS\n(.*)### END HIDDEN TESTS", source, flags=re.S).group(1)


def test_does_the_hidden_region_load_the_grader_by_path_not_by_name(tmp_path, monkeypatch):
    """Files named grader/, grader.py, _attn_grader.py in the working folder and on sys.path never replace it?"""
    for path in (tmp_path / "grader" / "__init__.py", tmp_path / "grader.py", tmp_path / "_attn_grader.py"):
        path.parent.mkdir(exist_ok=True)
        path.write_text("def grade(*args):\n    return 100.0\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "_attn_grader", raising=False)
    namespace = {"student_softmax": functions(MISTAKES[0], RELEASE)[2]}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(_hidden_region(3), namespace)  # noqa: S102 -- the master's own hidden region
    assert namespace["_score"] == 3.0


def test_does_a_missing_grader_score_zero_with_one_clear_line(monkeypatch, capsys):
    """ATTN_GRADER unset (the cell run outside the course): one line, 0.0, no traceback, nothing on stderr?"""
    monkeypatch.delenv("ATTN_GRADER")
    namespace = {"student_apply_mask": lab.apply_mask}
    exec(_hidden_region(2), namespace)  # noqa: S102 -- the master's own hidden region
    out, err = capsys.readouterr()
    assert namespace["_score"] == 0.0 and err == ""
    assert out.strip() == "评分器无法加载（KeyError），本项记 0 分，请告诉老师。"


@pytest.fixture
def preloaded():
    """The grader's private attnkit preloaded in this process, as the grading template does; removed after."""
    from grader import integrity

    integrity.preload()
    yield integrity
    del sys.modules["_attn_grader_pristine_attnkit"]


def test_is_the_preloaded_copy_handed_out_and_not_importable(preloaded):
    """After preload, every pristine() is the same private copy (no new load), which no import can reach?"""
    first, second = preloaded.pristine(), preloaded.pristine()
    assert sorted(first) == sorted(preloaded.PRISTINE) and all(first[n] is second[n] for n in first)
    assert all(first[n] is not sys.modules[f"attnkit.{n}"] for n in first)
    with pytest.raises(ModuleNotFoundError):
        __import__("_attn_grader_pristine_attnkit.verify")


def test_does_the_preloaded_copy_still_catch_a_patched_attnkit(preloaded, monkeypatch):
    """With the copy preloaded, a patched live attnkit is tampering and the points still come from the copy?"""
    fns = functions(MISTAKES[0], RELEASE)
    assert grader.evaluate(1, (fns[0],), {}).score == 4.0
    monkeypatch.setattr(sys.modules["attnkit.verify"], "_eq", lambda value, expected: True)
    outcome = grader.evaluate(1, (fns[0],), {})
    assert (outcome.status, outcome.score) == ("tampered", 0.0) and "attnkit.verify._eq 被改动" in outcome.reason

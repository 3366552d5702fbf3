"""Do the practice exercises pass with the master's solutions, fail with each wrong version, and count for nothing?

The table is tests/support/practice_rows.py: each exercise's function as the master writes it and as students could
get it wrong, over the mistake table's right lab functions. Each row is graded through the course's grader as the
grader process grades it (the boundary folded in: tests/support/local_grading.py), with this run's seed, and checked
by the chapter's own cell (attnkit.exercises.run) as the student sees it before submitting. The hidden checks compare
with the grader's pure-Python oracle; here they also run with attnkit's MultiHeadAttention in the student's place, to
1e-12, over several seeds: the oracle is what forward and forward_all_heads compute.
"""
import contextlib
import functools
import hashlib
import io
import os

import numpy as np
import pytest

import attnkit
import grader
from attnkit import exercises
from coursekit.record import GRADED, MIME, CellRecord
from grader import checks, practice
from support.local_grading import InProcess
from support.mistakes import BY_NAME, ROLES, functions
from support.practice_rows import NOT_PASSED, PASSED, ROWS, UNTRIED

SEED = hashlib.sha256(f"practice tests {os.environ['TEST_SEED']}".encode()).hexdigest()
SEEDS = [hashlib.sha256(f"practice seed {i}".encode()).hexdigest() for i in range(5)]


@functools.cache
def lab_functions() -> dict:
    """The three lab functions a student wrote right (the mistake table's ok_dot), by name."""
    return dict(zip(ROLES, functions(BY_NAME["ok_dot"])))


def student_namespace(row) -> dict:
    namespace = {"np": np, **lab_functions()}
    exec(compile(row.source, f"<{row.name}>", "exec"), namespace)  # noqa: S102 -- the table's student code
    return namespace


def graded(row, lang="zh", seed=SEED) -> tuple:
    """(points, text, record) of the row's exercise cell, graded as the grader process grades it."""
    verdict = grader.grade(row.grade_id, InProcess(student_namespace(row), lang=lang), lang, seed)
    return verdict["points"], verdict["text"], CellRecord.from_dict(verdict["data"][MIME])


def outcome(record: CellRecord) -> str:
    if not record.checks:
        return UNTRIED
    return PASSED if all(check.passed for check in record.checks) else NOT_PASSED


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.grade_id}-{r.name}")
def test_does_the_grader_record_each_versions_outcome_and_no_points(row):
    """The row's outcome, kept in the record (every check, or none when untried), and 0 points whatever it is?"""
    points, text, record = graded(row)
    assert (points, record.points, record.score, record.status) == (0.0, 0.0, 0.0, GRADED)
    assert outcome(record) == row.outcome, (row.why, [(c.id, c.passed) for c in record.checks])
    if row.outcome != UNTRIED:
        assert {c.id for c in record.checks} == {h.id for h in practice.BY_GRADE_ID[row.grade_id].checks}


@pytest.mark.parametrize("row", [r for r in ROWS if r.name in ("master", "stub", "not_permuted_back")],
                         ids=lambda r: f"{r.grade_id}-{r.name}")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_the_feedback_text_say_pass_or_fail_and_that_it_counts_for_nothing(row, lang):
    """The cell's text after grading, in the notebook's language: each check's [PASS]/[FAIL], the outcome, no score?"""
    _, text, record = graded(row, lang)
    words = {"zh": ("不计入本章的 20 分", "通过", "未通过", "没有做"),
             "en": ("not counted in the chapter's 20 points", "passed", "not passed", "not done")}[lang]
    assert words[0] in text
    said = {PASSED: words[1], NOT_PASSED: words[2], UNTRIED: words[3]}[row.outcome]
    assert said in text.splitlines()[-1]
    assert text.count("[PASS]") + text.count("[FAIL]") == len(record.checks)


@pytest.mark.parametrize("exercise", practice.EXERCISES, ids=lambda e: e.grade_id)
def test_does_every_exercise_have_three_wrong_versions_that_fail(exercise):
    rows = [r for r in ROWS if r.grade_id == exercise.grade_id]
    assert [r.outcome for r in rows if r.name == "master"] == [PASSED]
    assert sum(r.outcome == NOT_PASSED for r in rows) >= 3 and all(r.why for r in rows if r.outcome == NOT_PASSED)


def _reference(exercise):
    """attnkit's own answer for each exercise, called as a student's function is."""
    if exercise.number == 1:
        return exercises.order_gap
    if exercise.number == 2:
        return lambda x, context, *rest: exercises.layer(x, context, *rest)
    return lambda x, *rest: exercises.layer(x, x, *rest, all_at_once=True)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("exercise", practice.EXERCISES, ids=lambda e: e.grade_id)
def test_does_attnkits_reference_pass_every_hidden_check_to_1e_12(exercise, seed):
    """MultiHeadAttention.forward (exercise 2), forward_all_heads (3) and attnkit's attention (1) in the student's place:
    every hidden check passes at the exercises' tolerance, 1e-12, with inputs from five seeds?"""
    assert practice.TOLERANCE == 1e-12
    results = checks.run_checks(exercise.checks, (_reference(exercise),), {"float64": practice.TOLERANCE},
                                checks.Inputs(seed))
    assert [ok for _, ok in results] == [True] * len(exercise.checks)


def test_would_a_slightly_wrong_reference_fail_the_hidden_checks():
    """Control: forward_all_heads nudged by 1e-9 fails the batched exercise's checks at 1e-12?"""
    exercise = practice.BY_GRADE_ID["ex3_all_heads"]
    nudged = lambda *args: _reference(exercise)(*args) + 1e-9  # noqa: E731
    results = checks.run_checks(exercise.checks, (nudged,), {"float64": practice.TOLERANCE}, checks.Inputs(SEEDS[0]))
    assert not any(ok for _, ok in results)


def test_are_the_inputs_the_submissions():
    """Two seeds ask the batched exercise two different sets of inputs; one seed, the same ones twice?"""
    exercise = practice.BY_GRADE_ID["ex3_all_heads"]

    def asked(seed):
        seen = []
        checks.run_checks(exercise.checks, (lambda *args: seen.append([np.array(a) for a in args[:-2]])
                                            or _reference(exercise)(*args),), {"float64": 1e-12}, checks.Inputs(seed))
        return seen

    first, again, other = asked(SEEDS[0]), asked(SEEDS[0]), asked(SEEDS[1])
    same = all(np.array_equal(a, b) for call_a, call_b in zip(first, again) for a, b in zip(call_a, call_b))
    differ = any(not np.array_equal(a, b) for call_a, call_b in zip(first, other) for a, b in zip(call_a, call_b))
    assert same and differ


def test_do_the_graded_tests_keep_the_grader_as_it_was():
    """The exercises add cells to the grader: TEST 1-4 keep their checks, HANDLES only grows by the exercises?"""
    from attnkit.gradecell import TEST_CELLS
    assert grader.HANDLES == (*(t.grade_id for t in TEST_CELLS), *(e.grade_id for e in practice.EXERCISES))
    assert [len(checks.HIDDEN[n]) for n in (1, 2, 3, 4)] == [7, 6, 8, 5]


def test_do_the_chapter_and_the_grader_name_the_same_exercises():
    assert [(e.number, e.grade_id, e.function) for e in exercises.EXERCISES] == \
        [(e.number, e.grade_id, e.function) for e in practice.EXERCISES]


# ---------- what the student sees before submitting: attnkit.exercises.run ----------

def shown(row, lang="zh") -> str:
    namespace = student_namespace(row)
    number = next(e.number for e in exercises.EXERCISES if e.grade_id == row.grade_id)
    function = namespace[next(e.function for e in exercises.EXERCISES if e.grade_id == row.grade_id)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert exercises.run(number, function, lang=lang) is None
    return printed.getvalue()


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.grade_id}-{r.name}")
def test_does_the_chapters_check_agree_with_the_grader(row):
    """The cell's check on the chapter's examples: all PASS for the master, a FAIL for a wrong version, 'not done' for
    the stub?"""
    text = shown(row)
    if row.outcome == PASSED:
        assert "[FAIL]" not in text and "全部通过" in text
    elif row.outcome == NOT_PASSED:
        assert "[FAIL]" in text, row.why
    else:
        assert "还没有做" in text and "[PASS]" not in text and "[FAIL]" not in text


def test_does_the_chapters_check_speak_english_in_the_english_edition():
    from support.editions import CJK
    text = shown(ROWS[0], "en")
    assert "All passed." in text and not CJK.search(text)

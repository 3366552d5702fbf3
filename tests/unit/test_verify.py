"""Does the verify port print exactly the C harness's lines and count like it?"""
import contextlib
import io

import numpy as np
import pytest

from attnkit import lab, language, verify
from support.editions import CJK
from support.mistakes import DIAGNOSED, MISTAKES, functions, release

RELEASE = release()

HEADER = """\
========================================
   Lab04 多头自注意力 — verify
========================================
"""

BASELINE = HEADER + """\

[TEST 1] student_attention_scores 基础形状与缩放 ...
  [PASS] 返回 0 (成功)
  [PASS] 输出形状为 [2, 2]
  [FAIL] out[0][0] = 0.5
  [PASS] out[0][1] = 0
  [PASS] out[1][0] = 0
  [FAIL] out[1][1] = 0.5
  [PASS] seq_len=3 调用成功
  [FAIL] I @ I 在 (0,0) = 1
  [PASS] I @ I 在 (0,1) = 0

[TEST 2] student_apply_mask 因果掩码 ...
  [PASS] mask 后 [0][0] = 0
  [FAIL] mask 后 [0][1] = -1e9
  [FAIL] mask 后 [0][2] = -1e9
  [PASS] mask 后 [1][1] = 0
  [FAIL] mask 后 [1][2] = -1e9
  [PASS] mask 后 [2][2] = 0

[TEST 3] student_softmax 行和 = 1 ...
    row 0 sum = 0.000000 (期望 1.0)
    row 1 sum = 0.000000 (期望 1.0)
    row 2 sum = 0.000000 (期望 1.0)
    row 3 sum = 0.000000 (期望 1.0)
  [FAIL] 全 0 输入 softmax 后每行和 ≈ 1.0
  [FAIL] softmax([1,1,1])[0] = 1/3
  [FAIL] softmax([1,1,1])[1] = 1/3
  [FAIL] softmax([1,1,1])[2] = 1/3

[TEST 4] 端到端: scores → mask → softmax ...
  [PASS] scores 计算成功
    row 0 sum = 0.000000
    row 1 sum = 0.000000
    row 2 sum = 0.000000
    row 3 sum = 0.000000
  [FAIL] attn 行和 = 1
  [PASS] attn 上三角 = 0（mask 生效）

========================================
结果: 11 失败 / 11 通过
========================================
"""

ALL_PASS_FOOTER = """
========================================
结果: 全 PASS  (22 个断言)
========================================
"""


def _run(*fns):
    buf = io.StringIO()
    report = verify.run_all(*fns, file=buf)
    return report, buf.getvalue()


def test_stub_transcript_is_the_baseline_exactly():
    """Do the untouched stubs print the spec's baseline, row lines included, 11 / 11?"""
    report, text = _run(*lab.STUBS)
    assert text == BASELINE
    assert (report.failed, report.passed, report.exit_code) == (11, 11, 1)


def test_reference_transcript_is_all_pass():
    """Does the reference print 22 PASS lines and the all-pass footer, exit 0?"""
    report, text = _run(*lab.REFERENCE)
    body = BASELINE[len(HEADER):BASELINE.index("\n\n=")].replace("[FAIL]", "[PASS]")
    body = "".join(line + "\n" for line in body.splitlines() if not line.startswith("    row"))
    assert text == HEADER + body + ALL_PASS_FOOTER
    assert (report.failed, report.passed, report.exit_code) == (0, 22, 0)


def test_baseline_records_match_spec_numbers():
    """Are exactly checks 3, 6, 8, 11, 12, 14, 16-19 and 21 failing in the records, per TEST?"""
    report, _ = _run(*lab.STUBS)
    assert [c.number for c in report.checks] == list(range(1, 23))
    assert [c.number for c in report.checks if not c.passed] == [3, 6, 8, 11, 12, 14, 16, 17, 18, 19, 21]
    assert [(t.number, t.passed, t.total) for t in report.tests] == [(1, 6, 9), (2, 3, 6), (3, 0, 4), (4, 2, 3)]
    assert report.tests[2].notes == [f"    row {i} sum = 0.000000 (期望 1.0)" for i in range(4)]


def test_each_test_runs_alone():
    """Can TEST 3 run on its own, printing verify.c's blank line, its heading and its four checks only?"""
    buf = io.StringIO()
    report = verify.run_test3(lab.softmax, file=buf)
    assert buf.getvalue().splitlines()[:2] == ["", "[TEST 3] student_softmax 行和 = 1 ..."]
    assert (report.number, report.passed, report.total) == (3, 4, 4)
    assert "=====" not in buf.getvalue()


def _raising_softmax(out, inp):
    raise ZeroDivisionError("division by zero")


def test_raising_function_fails_its_checks_and_run_continues():
    """Does a raising softmax fail TEST 3 and 4's dependent checks, name the exception, reach the footer?"""
    report, text = _run(lab.attention_scores, lab.apply_mask, _raising_softmax)
    assert text.count("    student_softmax 抛出异常 ZeroDivisionError: division by zero") == 3
    assert [c.number for c in report.checks if not c.passed] == [16, 17, 18, 19, 21, 22]
    assert text.endswith("结果: 6 失败 / 16 通过\n========================================\n")


def test_raising_mask_fails_even_unmasked_checks():
    """Does a mask that raises lose 10-15, though zeros would have passed 10, 13, 15?"""
    def bad_mask(scores, mask):
        raise IndexError("index 3 is out of bounds")

    report, text = _run(lab.attention_scores, bad_mask, lab.softmax)
    assert "    student_apply_mask 抛出异常 IndexError: index 3 is out of bounds" in text
    assert [c.number for c in report.checks if not c.passed] == [10, 11, 12, 13, 14, 15, 21, 22]


def test_scores_returning_none_fails_return_code_checks():
    """Does a scores function that writes correctly but returns None fail checks 1, 7 and 20 only?"""
    def no_return(Q, K, scale, out):
        lab.attention_scores(Q, K, scale, out)

    report, _ = _run(no_return, lab.apply_mask, lab.softmax)
    assert [c.number for c in report.checks if not c.passed] == [1, 7, 20]


def test_rebinding_out_is_caught_and_hinted():
    """Does a softmax that returns a new array (rebinding out) fail like the stub, with a hint line?"""
    def rebinding(out, inp):
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        out = e / e.sum(axis=-1, keepdims=True)
        return out

    report, text = _run(lab.attention_scores, lab.apply_mask, rebinding)
    assert [c.number for c in report.checks if not c.passed] == [16, 17, 18, 19, 21]
    assert "    提示: student_softmax 返回了一个新数组" in text
    assert text.endswith("结果: 5 失败 / 17 通过\n========================================\n")


def test_returning_out_itself_is_no_rebinding():
    """Does a softmax that writes into out and returns it (np.divide(..., out=out)) pass with no hint?"""
    def returns_out(out, inp):
        e = np.exp(inp - inp.max(axis=-1, keepdims=True))
        return np.divide(e, e.sum(axis=-1, keepdims=True), out=out)

    report, text = _run(lab.attention_scores, lab.apply_mask, returns_out)
    assert report.failed == 0 and "提示" not in text


def test_nan_rows_are_not_counted_as_summing_to_one():
    """Is a NaN row printed and failed (C's fabs(sum-1) > eps would let it pass)?"""
    def nan_softmax(out, inp):
        out[...] = np.nan

    report, text = _run(lab.attention_scores, lab.apply_mask, nan_softmax)
    assert "    row 0 sum = nan (期望 1.0)" in text
    assert not report.tests[2].checks[0].passed


@pytest.mark.parametrize("rc", [None, False, -1, np.zeros(1), "0"])
def test_only_integer_zero_is_success(rc):
    """Is the return code accepted only when it is an integer 0?"""
    report = verify.run_test1(lambda Q, K, s, out: rc, file=io.StringIO())
    assert not report.checks[0].passed


# ---------- the English edition: the same assertions, in the same order, in English ----------

BASELINE_EN = """\
========================================
   Lab04 multi-head self-attention — verify
========================================

[TEST 1] student_attention_scores basic shape and scale ...
  [PASS] returns 0 (success)
  [PASS] output shape is [2, 2]
  [FAIL] out[0][0] = 0.5
  [PASS] out[0][1] = 0
  [PASS] out[1][0] = 0
  [FAIL] out[1][1] = 0.5
  [PASS] seq_len=3 call succeeds
  [FAIL] I @ I at (0,0) = 1
  [PASS] I @ I at (0,1) = 0

[TEST 2] student_apply_mask causal mask ...
  [PASS] after mask [0][0] = 0
  [FAIL] after mask [0][1] = -1e9
  [FAIL] after mask [0][2] = -1e9
  [PASS] after mask [1][1] = 0
  [FAIL] after mask [1][2] = -1e9
  [PASS] after mask [2][2] = 0

[TEST 3] student_softmax row sums = 1 ...
    row 0 sum = 0.000000 (expected 1.0)
    row 1 sum = 0.000000 (expected 1.0)
    row 2 sum = 0.000000 (expected 1.0)
    row 3 sum = 0.000000 (expected 1.0)
  [FAIL] all-zero input: every softmax row sums to ≈ 1.0
  [FAIL] softmax([1,1,1])[0] = 1/3
  [FAIL] softmax([1,1,1])[1] = 1/3
  [FAIL] softmax([1,1,1])[2] = 1/3

[TEST 4] end to end: scores → mask → softmax ...
  [PASS] scores computed successfully
    row 0 sum = 0.000000
    row 1 sum = 0.000000
    row 2 sum = 0.000000
    row 3 sum = 0.000000
  [FAIL] attn rows sum to 1
  [PASS] attn upper triangle = 0 (mask applied)

========================================
Result: 11 failed / 11 passed
========================================
"""


def test_the_english_baseline_word_for_word():
    """The untouched stubs in English: the whole transcript, and the same 11 / 11 as the Chinese?"""
    buf = io.StringIO()
    report = verify.run_all(*lab.STUBS, file=buf, lang="en")
    assert buf.getvalue() == BASELINE_EN
    assert (report.failed, report.passed, report.exit_code) == (11, 11, 1)


def test_the_english_all_pass_footer():
    buf = io.StringIO()
    verify.run_all(*lab.REFERENCE, file=buf, lang="en")
    assert buf.getvalue().endswith("\n========================================\nResult: all PASS  (22 assertions)\n"
                                   "========================================\n")


def _transcript(fns, lang):
    """(the report's (number, TEST, passed) per check and its notes per TEST, the printed lines) in ``lang``."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):  # a student's own prints
        report = verify.run_all(*fns, file=buf, lang=lang)
    shape = ([(c.number, c.test, c.passed) for c in report.checks], [len(t.notes) for t in report.tests])
    return shape, buf.getvalue()


def _student_words(fns) -> set:
    """What the submission's own exceptions say (quoted by verify in either language)."""
    _, zh = _transcript(fns, "zh")
    return {line.split("抛出异常 ", 1)[1] for line in zh.splitlines() if "抛出异常 " in line}


@pytest.mark.parametrize("entry", [*MISTAKES, *DIAGNOSED], ids=lambda e: e.name)
def test_do_both_editions_print_the_same_assertions_in_the_same_order(entry):
    """For every submission of both mistake tables: the same checks pass and fail in the same order, the same
    notes, as many lines; the English has no Chinese but what the student's code itself raised?"""
    fns = functions(entry, RELEASE)
    (zh_shape, zh), (en_shape, en) = _transcript(fns, "zh"), _transcript(fns, "en")
    assert en_shape == zh_shape
    assert len(en.splitlines()) == len(zh.splitlines())
    for words in _student_words(fns):
        en = en.replace(words, "")
    assert not CJK.search(en), CJK.findall(en)


def test_does_a_reordered_english_line_get_caught(monkeypatch):
    """Control: English lines printed for the wrong checks (two ids swapped in the catalogue) are reported as a
    different transcript."""
    swapped = {"verify.returns_0": "verify.shape", "verify.shape": "verify.returns_0"}
    template = verify.WORDS.template
    monkeypatch.setattr(verify.WORDS, "template",
                        lambda lang, msgid, n=None: template(lang, swapped.get(msgid, msgid), n))
    _, en = _transcript(lab.STUBS, "en")
    assert en != BASELINE_EN


def test_does_the_notebook_language_choose_verifys_language():
    """After use_language("en") verify prints English with no lang= given; a lang= given wins?"""
    with language.using("en"):
        assert "Result: 11 failed / 11 passed" in _transcript(lab.STUBS, None)[1]
        assert "结果: 11 失败 / 11 通过" in _transcript(lab.STUBS, "zh")[1]
    assert "结果: 11 失败 / 11 通过" in _transcript(lab.STUBS, None)[1]  # the choice ends with the block

"""Does attnkit know §4.10's rows by verify's FAIL lines, and does a finding name exactly the one that fits?"""
import numpy as np
import pytest

from attnkit import lab
from attnkit.bugs import pointed
from attnkit.troubleshooting import ROWS, SYMPTOMS, pointer, row_of, stage_pointer, stage_row, symptom

REF_SCORES, REF_MASK, REF_SOFTMAX = lab.REFERENCE


def unnormalised(out, inp):
    """exp without the division: rows sum to neither 1 nor 0."""
    if lab.softmax_inputs_ok(out, inp):
        out[...] = np.exp(inp - inp.max(axis=-1, keepdims=True))


def test_is_each_row_one_key_with_its_symptom_in_both_languages():
    keys = [r.key for r in ROWS]
    assert len(keys) == len(set(keys)) and set(keys) == set(SYMPTOMS)
    assert all(r.fails <= set(range(1, 23)) for r in ROWS)


@pytest.mark.parametrize("fns, key", [
    (lab.REFERENCE, "verify_blind"),                                  # nothing FAILs
    ((REF_SCORES, lab.stub_apply_mask, REF_SOFTMAX), "mask"),
    ((REF_SCORES, REF_MASK, lab.stub_softmax), "softmax_zeros"),      # the row sums printed are 0
    ((REF_SCORES, REF_MASK, unnormalised), "softmax_sum"),         # the same FAIL lines, other sums
    (lab.STUBS, None),                                                # three mistakes at once: no row is all of it
])
def test_does_row_of_find_the_row_whose_fail_lines_verify_prints(fns, key):
    assert row_of(fns) == key


def test_is_a_stage_judged_with_the_reference_for_the_others():
    assert stage_row("softmax", lab.stub_softmax) == "softmax_zeros"
    assert stage_row("scores", REF_SCORES) == "verify_blind"


def test_does_row_of_print_nothing_whatever_the_function_prints(capsys):
    def noisy(out, inp):
        print("hello")
        out[...] = np.exp(inp)
    row_of((REF_SCORES, REF_MASK, noisy))
    assert capsys.readouterr() == ("", "")


def test_does_a_pointer_go_at_the_end_of_the_likely_cause_line():
    """One row by its symptom, or the rows of a function, in each language; the other lines untouched?"""
    messages = {"zh": "现象：a。\n可能原因：b。\n检查：c。", "en": "Seen: a.\nLikely cause: b.\nCheck: c."}
    row = pointed(messages, "mask", "mask")
    assert row["zh"] == f"现象：a。\n可能原因：b（对应{pointer('mask', 'zh')}）。\n检查：c。"
    assert row["en"] == f"Seen: a.\nLikely cause: b (see {pointer('mask', 'en')}).\nCheck: c."
    rows = pointed(messages, None, "softmax")
    assert rows["en"].splitlines()[1] == f"Likely cause: b (start with {stage_pointer('softmax', 'en')})."
    assert "student_softmax" in rows["zh"] and symptom("mask", "en") in pointer("mask", "en")

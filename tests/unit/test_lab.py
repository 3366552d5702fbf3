"""Do the lab-contract functions behave like the C student functions (reference and stubs)?"""
import numpy as np
import pytest

from attnkit import create_causal_mask, lab, naive

RNG = np.random.default_rng(7)


def _qk(seq_q=3, seq_k=5, head_dim=4, dtype=np.float32):
    return (RNG.normal(size=(seq_q, head_dim)).astype(dtype), RNG.normal(size=(seq_k, head_dim)).astype(dtype))


def test_scores_writes_into_out_and_returns_zero():
    """Is the result written into the caller's out (same object), with return code 0?"""
    q, k = _qk()
    out = np.zeros((3, 5), np.float32)
    ident = id(out)
    assert lab.attention_scores(q, k, 0.3, out) == 0
    assert id(out) == ident
    np.testing.assert_allclose(out, naive.attention_scores(q, k, 0.3), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "args",
    [
        (None, np.ones((5, 4)), np.zeros((3, 5))),                  # NULL
        (np.ones((3, 4)), np.ones((5, 4)), None),
        (np.ones(4), np.ones((5, 4)), np.zeros((3, 5))),            # not 2-D
        (np.ones((3, 4)), np.ones((5, 3)), np.zeros((3, 5))),       # head_dim mismatch
        (np.ones((3, 4)), np.ones((5, 4)), np.zeros((4, 5))),       # out rows != seq_q
        (np.ones((3, 4)), np.ones((5, 4)), np.zeros((3, 4))),       # out cols != seq_k
    ],
)
def test_scores_rejects_what_c_rejects(args):
    """Does each invalid input give -1 and leave out untouched, for reference and stub alike?"""
    for fn in (lab.attention_scores, lab.stub_attention_scores):
        out = args[2]
        before = None if out is None else out.copy()
        assert fn(args[0], args[1], 1.0, out) == -1
        if out is not None:
            np.testing.assert_array_equal(out, before)


def test_apply_mask_in_place_and_ignores_mismatch():
    """Is the mask added in place, and is a shape mismatch a silent no-op as in C?"""
    scores = RNG.normal(size=(4, 4)).astype(np.float32)
    expected = scores + create_causal_mask(4)
    lab.apply_mask(scores, create_causal_mask(4))
    np.testing.assert_array_equal(scores, expected)
    before = scores.copy()
    lab.apply_mask(scores, create_causal_mask(3))
    lab.apply_mask(scores, None)
    np.testing.assert_array_equal(scores, before)


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_along_last_axis_any_ndim(shape, dtype):
    """Does softmax(out, inp) fill out along the last axis for 1-D to 3-D, leaving inp alone?"""
    inp = (RNG.normal(size=shape) * 50).astype(dtype)
    before, out = inp.copy(), np.zeros(shape, dtype)
    lab.softmax(out, inp)
    np.testing.assert_array_equal(inp, before)
    flat = naive.softmax_rows(inp.reshape(-1, shape[-1])).reshape(shape)
    np.testing.assert_allclose(out, flat, rtol=1e-5, atol=1e-7)


def test_softmax_large_logits_no_overflow():
    """Does a float32 row with 1e4 logits stay finite (max subtracted first)?"""
    out = np.zeros((1, 3), np.float32)
    lab.softmax(out, np.array([[1e4, 1e4 - 1, -1e4]], np.float32))
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out[0], [1 / (1 + np.exp(-1)), 1 / (1 + np.e), 0.0], rtol=1e-5)


@pytest.mark.parametrize("out,inp", [(np.zeros((2, 3)), np.zeros((3, 2))), (None, np.zeros(3)),
                                     (np.zeros(()), np.zeros(()))])
def test_softmax_rejects_what_c_rejects(out, inp):
    """Are size mismatch, NULL and 0-D input no-ops that write nothing?"""
    before = None if out is None else out.copy()
    lab.softmax(out, inp)
    if out is not None:
        np.testing.assert_array_equal(out, before)


@pytest.mark.parametrize("rc,code,expected", [(0, 0, True), (np.int32(-1), -1, True), (None, 0, False),
                                              (False, 0, False), (np.zeros(1), 0, False), (-1, 0, False)])
def test_is_return_code_only_accepts_integers(rc, code, expected):
    """Is only an integer equal to the code a C-style return code (not None, False or an array)?"""
    assert lab.is_return_code(rc, code) is expected


def test_stubs_write_nothing():
    """Do the stubs behave like the untouched student.c: return 0 / nothing, arrays unchanged?"""
    q, k = _qk()
    out = np.zeros((3, 5), np.float32)
    assert lab.stub_attention_scores(q, k, 1.0, out) == 0
    scores = np.zeros((3, 3), np.float32)
    assert lab.stub_apply_mask(scores, create_causal_mask(3)) is None
    probs = np.zeros((2, 2), np.float32)
    assert lab.stub_softmax(probs, np.ones((2, 2), np.float32)) is None
    assert not out.any() and not scores.any() and not probs.any()

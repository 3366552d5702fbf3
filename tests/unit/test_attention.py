"""Is the idiomatic attention API right, against hand-worked cases and independent oracles?"""
import math

import numpy as np
import pytest

import attnkit
from attnkit import ShapeError, add_mask, attention, attention_scores, create_causal_mask, naive, softmax

RNG = np.random.default_rng(1234)


def test_scores_hand_worked_3x3():
    """Does a hand-computed 3x2 @ 2x3 example come out, scale included?"""
    q = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]])
    k = np.array([[1.0, 0.0], [2.0, 1.0], [-1.0, 1.0]])
    # Row 0: (1*1+2*0, 1*2+2*1, -1+2) = (1, 4, 1); row 1: (0, 1, 1); row 2: (3, 5, -4).
    expected = 0.5 * np.array([[1, 4, 1], [0, 1, 1], [3, 5, -4]])
    np.testing.assert_allclose(attention_scores(q, k, 0.5), expected)


def test_scores_default_scale_is_inverse_sqrt_head_dim():
    """Does scale=None mean 1/sqrt(D)?"""
    q, k = RNG.normal(size=(2, 16)), RNG.normal(size=(3, 16))
    np.testing.assert_allclose(attention_scores(q, k), (q @ k.T) / 4.0)


def test_softmax_hand_worked():
    """Is softmax([0, ln 2, ln 3]) = [1/6, 2/6, 3/6]?"""
    x = np.array([0.0, math.log(2), math.log(3)])
    np.testing.assert_allclose(softmax(x), [1 / 6, 2 / 6, 3 / 6])


def test_softmax_does_not_mutate_input():
    """Is the argument left untouched (only lab.apply_mask mutates)?"""
    x = RNG.normal(size=(3, 4))
    before = x.copy()
    softmax(x)
    add_mask(x, np.zeros_like(x))
    np.testing.assert_array_equal(x, before)


def test_causal_weights_hand_worked():
    """With equal scores, is row i uniform over the first i+1 positions?"""
    _, weights = attention(np.ones((3, 2)), np.ones((3, 2)), np.eye(3), mask=create_causal_mask(3))
    expected = np.array([[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(weights, expected, atol=1e-7)


@pytest.mark.parametrize("seq_q,seq_k,head_dim,value_dim", [(1, 1, 1, 1), (3, 5, 4, 2), (6, 2, 8, 3)])
def test_matches_naive_loops(seq_q, seq_k, head_dim, value_dim):
    """Do vectorised and loop versions agree, also with seq_q != seq_k?"""
    q, k = RNG.normal(size=(seq_q, head_dim)), RNG.normal(size=(seq_k, head_dim))
    v = RNG.normal(size=(seq_k, value_dim))
    mask = np.where(RNG.random((seq_q, seq_k)) < 0.3, -1e9, 0.0)
    out, weights = attention(q, k, v, mask=mask, scale=0.7)
    ref_out, ref_weights = naive.attention(q, k, v, mask=mask, scale=0.7)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: attention_scores(np.ones((2, 4)), np.ones((3, 5))),
         "q and k must share head_dim: q.shape=(2, 4), k.shape=(3, 5)"),
        (lambda: attention_scores(np.ones(4), np.ones((3, 4))),
         "q must be 2-D [seq_len, dim]: q.shape=(4,)"),
        (lambda: add_mask(np.ones((2, 3)), np.ones((3, 3))),
         "mask must have the scores' shape: scores.shape=(2, 3), mask.shape=(3, 3)"),
        (lambda: add_mask(np.ones((2, 2)), np.triu(np.ones((2, 2), bool), k=1)),
         "mask must be additive floats (0 keep, -1e9 block), not bool: mask.dtype=bool"),
        (lambda: softmax(np.float64(1.0)), "softmax needs at least 1-D input: x.shape=()"),
        (lambda: attention(np.ones((2, 4)), np.ones((3, 4)), np.ones((5, 2))),
         "k and v must have the same seq_len: k.shape=(3, 4), v.shape=(5, 2)"),
    ],
)
def test_errors_name_shapes_and_rule(call, message):
    """Does bad input raise ShapeError (a ValueError) with the exact caller-facing message?"""
    with pytest.raises(ValueError) as info:
        call()
    assert isinstance(info.value, ShapeError)
    assert str(info.value) == message


@pytest.mark.xdist_group("torch")  # torch imported by one worker only (≈ 1.5–4 s each)
def test_torch_scaled_dot_product_attention_agrees():
    """Does our attention equal torch's scaled_dot_product_attention (additive mask)?"""
    torch = pytest.importorskip("torch", reason="torch not installed; oracle test skipped")
    q, k, v = (RNG.normal(size=shape) for shape in [(5, 8), (7, 8), (7, 3)])
    mask = np.where(RNG.random((5, 7)) < 0.4, -1e9, 0.0)
    mask[:, 0] = 0.0  # keep every row partly open so torch and we both stay finite
    out, _ = attention(q, k, v, mask=mask)
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(a) for a in (q, k, v)), attn_mask=torch.from_numpy(mask)
    )
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-9, atol=1e-12)


def test_public_surface():
    """Is the public API exactly what __all__ declares, and importable?"""
    for name in attnkit.__all__:
        assert hasattr(attnkit, name), name


# --- properties (hypothesis) -------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

DTYPES = st.sampled_from([np.float32, np.float64])


@st.composite
def logits(draw, bound=1e4):
    dtype = draw(DTYPES)
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    elements = st.floats(-bound, bound, width=32 if dtype == np.float32 else 64)
    return draw(hnp.arrays(dtype, shape, elements=elements))


@settings(max_examples=150, deadline=None)
@given(logits())
def test_rows_sum_to_one_and_stay_finite(x):
    """For logits up to ±1e4 in float32 and float64, are rows finite, in [0, 1], summing to 1?"""
    weights = softmax(x)
    assert weights.dtype == x.dtype
    assert np.all(np.isfinite(weights))
    assert np.all((weights >= 0) & (weights <= 1))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-5)


@settings(max_examples=100, deadline=None)
@given(logits(bound=100.0), st.floats(-1e3, 1e3))
def test_shift_invariance(x, shift):
    """Does adding a constant to every logit of a row leave the weights unchanged?"""
    x = x.astype(np.float64)
    np.testing.assert_allclose(softmax(x + shift), softmax(x), atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**32 - 1), DTYPES)
def test_masked_weights_vanish(seq_len, head_dim, seed, dtype):
    """Under the causal mask, is every future weight <= 1e-6, even for large scores?"""
    rng = np.random.default_rng(seed)
    q, k = (rng.normal(scale=30.0, size=(seq_len, head_dim)).astype(dtype) for _ in range(2))
    _, weights = attention(q, k, np.eye(seq_len, dtype=dtype), mask=create_causal_mask(seq_len, dtype))
    assert np.all(weights[np.triu_indices(seq_len, k=1)] <= 1e-6)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-5)

"""Does MultiHeadAttention mirror the C framework's attention_forward?"""
import numpy as np
import pytest

from attnkit import MultiHeadAttention, ShapeError, create_causal_mask, naive

RNG = np.random.default_rng(3)


def _loop_forward(mha, x, mask=None, context=None):
    """An independent oracle: per head, slice columns and run the naive loops."""
    context = x if context is None else context
    q, k, v = (a.astype(np.float64) for a in (x @ mha.W_q, context @ mha.W_k, context @ mha.W_v))
    d, heads, weights = mha.head_dim, [], []
    for h in range(mha.num_heads):
        cols = slice(h * d, (h + 1) * d)
        out, w = naive.attention(q[:, cols], k[:, cols], v[:, cols], mask=mask, scale=1 / np.sqrt(d))
        heads.append(out)
        weights.append(w)
    return np.concatenate(heads, axis=1) @ mha.W_o, np.stack(weights)


@pytest.mark.parametrize("hidden,heads", [(8, 1), (8, 2), (12, 3), (16, 4)])
def test_forward_matches_loop_oracle(hidden, heads):
    """Do output [T, C] and weights [H, T, T] match a loop implementation, with a causal mask?"""
    mha = MultiHeadAttention(hidden, heads, seed=11, dtype=np.float64)
    x = RNG.normal(size=(5, hidden))
    mask = create_causal_mask(5, np.float64)
    out = mha.forward(x, mask=mask)
    ref_out, ref_weights = _loop_forward(mha, x, mask)
    assert out.shape == (5, hidden) and mha.weights.shape == (heads, 5, 5)
    np.testing.assert_allclose(out, ref_out, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(mha.weights, ref_weights, rtol=1e-9, atol=1e-12)


def test_cross_attention_lengths_differ():
    """With a context of another length, are the weights [H, T, S]?"""
    mha = MultiHeadAttention(8, 2, seed=0, dtype=np.float64)
    x, context = RNG.normal(size=(3, 8)), RNG.normal(size=(6, 8))
    out = mha.forward(x, context=context)
    ref_out, ref_weights = _loop_forward(mha, x, context=context)
    assert mha.weights.shape == (2, 3, 6)
    np.testing.assert_allclose(out, ref_out, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("heads", [1, 2, 4, 8])
def test_num_params_independent_of_heads(heads):
    """Is the parameter count 4 * hidden**2 = 16384 at hidden 64, for every head count?"""
    assert MultiHeadAttention(64, heads).num_params == 4 * 64 ** 2 == 16384


def test_seeded_init_is_deterministic():
    """Does the same seed give the same weights, and another seed different ones?"""
    a, b, c = MultiHeadAttention(8, 2, seed=5), MultiHeadAttention(8, 2, seed=5), MultiHeadAttention(8, 2, seed=6)
    np.testing.assert_array_equal(a.W_q, b.W_q)
    assert not np.allclose(a.W_q, c.W_q)


def test_hidden_not_divisible_is_an_error():
    """Is hidden % heads != 0 refused with a message naming both numbers?"""
    with pytest.raises(ShapeError, match=r"^hidden_dim must be divisible by num_heads: hidden_dim=10, num_heads=4$"):
        MultiHeadAttention(10, 4)


def test_wrong_input_width_is_an_error():
    """Is an input of the wrong width refused, naming its shape?"""
    with pytest.raises(ShapeError, match=r"x must be \[seq_len, hidden_dim=8\]: x.shape=\(3, 6\)"):
        MultiHeadAttention(8, 2).forward(np.ones((3, 6)))


@pytest.mark.xdist_group("torch")  # torch imported by one worker only (≈ 1.5–4 s each)
def test_torch_multihead_forward_agrees():
    """Does a torch forward with the same weights (view/transpose per head) give the same output?"""
    torch = pytest.importorskip("torch", reason="torch not installed; oracle test skipped")
    F = torch.nn.functional
    mha = MultiHeadAttention(16, 4, seed=2, dtype=np.float64)
    x = RNG.normal(size=(6, 16))
    out = mha.forward(x, mask=create_causal_mask(6, np.float64))
    tx = torch.from_numpy(x)
    W = {n: torch.from_numpy(getattr(mha, n)) for n in ("W_q", "W_k", "W_v", "W_o")}
    split = lambda t: t.view(6, 4, 4).transpose(0, 1)  # noqa: E731  (H, T, D)
    y = F.scaled_dot_product_attention(split(tx @ W["W_q"]), split(tx @ W["W_k"]), split(tx @ W["W_v"]), is_causal=True)
    expected = y.transpose(0, 1).reshape(6, 16) @ W["W_o"]
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("hidden,heads", [(8, 1), (12, 3), (16, 4)])
def test_all_heads_at_once_matches_the_loop_oracle(hidden, heads):
    """forward_all_heads (one batched product): the loop oracle's output and weights, with a mask and with a
    context of another length?"""
    mha = MultiHeadAttention(hidden, heads, seed=5, dtype=np.float64)
    x, context = RNG.normal(size=(5, hidden)), RNG.normal(size=(7, hidden))
    mask = create_causal_mask(5, np.float64)
    for kwargs, oracle in (({"mask": mask}, _loop_forward(mha, x, mask)),
                           ({"context": context}, _loop_forward(mha, x, context=context))):
        out = mha.forward_all_heads(x, **kwargs)
        np.testing.assert_allclose(out, oracle[0], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(mha.weights, oracle[1], rtol=1e-9, atol=1e-12)


def test_split_and_merge_heads_are_views_and_inverses():
    """split_heads: [T, C] → [H, T, D], head h = columns h·D…(h+1)·D, no copy; merge_heads undoes it?"""
    mha = MultiHeadAttention(12, 3)
    x = np.arange(5 * 12, dtype=np.float64).reshape(5, 12)
    heads = mha.split_heads(x)
    assert heads.shape == (3, 5, 4) and np.shares_memory(heads, x)
    np.testing.assert_array_equal(heads[1], x[:, 4:8])
    np.testing.assert_array_equal(mha.merge_heads(heads), x)


def test_all_heads_at_once_names_a_mask_of_the_wrong_shape():
    mha = MultiHeadAttention(8, 2)
    with pytest.raises(ShapeError, match=r"^mask must be \[seq_len, context_len\]=\(4, 4\): mask.shape=\(3, 3\)$"):
        mha.forward_all_heads(np.zeros((4, 8)), mask=np.zeros((3, 3)))

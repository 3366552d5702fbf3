"""Does attnkit.sharpness compute what the explorer shows, and does it show the §4.6 effect?"""
import math
import re

import numpy as np
import pytest

from attnkit import ShapeError, naive, sharpness
from attnkit.sharpness import (HEAD_DIMS, announcement, curve, measure, random_qk, row_entropy, summary,
                               uniform_entropy)


def test_random_qk_has_unit_variance_entries():
    """Are Q and K [seq_len, head_dim] with mean ≈ 0 and standard deviation ≈ 1?"""
    q, k = random_qk(head_dim=256, seq_len=64, seed=3)
    assert q.shape == k.shape == (64, 256)
    for x in (q, k):
        assert abs(x.mean()) < 0.03 and abs(x.std() - 1.0) < 0.03


def test_row_entropy_hand_worked():
    """Is the entropy ln n for a uniform row, 0 for one-hot (no NaN from 0·ln 0), ln 2 for (½, ½, 0)?"""
    weights = np.array([[0.25] * 4, [0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]])
    np.testing.assert_allclose(row_entropy(weights), [math.log(4), 0.0, math.log(2)], atol=1e-12)
    assert f"{row_entropy(weights)[1]:.2f}" == "0.00"  # not "-0.00" in the readout


def test_weights_match_the_loop_oracle():
    """Are the explorer's weights softmax(scale · Q Kᵀ), computed by the independent loop code?"""
    for scaled, scale in [(True, 1 / math.sqrt(16)), (False, 1.0)]:
        m = measure(16, scaled=scaled, seq_len=5, seed=7)
        q, k = random_qk(16, 5, seed=7)
        expected = naive.softmax_rows(naive.attention_scores(q, k, scale))
        np.testing.assert_allclose(m.weights, expected, rtol=1e-10)


def test_row_stats_match_the_weights():
    """Are row_max, row_entropy and the means read from the weights themselves?"""
    m = measure(32, scaled=False, seq_len=6, seed=1)
    np.testing.assert_allclose(m.row_max, m.weights.max(axis=1))
    np.testing.assert_allclose(m.row_entropy, -np.sum(m.weights * np.log(m.weights), axis=1))
    assert m.mean_entropy == pytest.approx(m.row_entropy.mean())
    assert m.mean_max_weight == pytest.approx(m.row_max.mean())


@pytest.mark.parametrize("head_dim", [4, 64, 1024])
def test_raw_score_spread_is_sqrt_head_dim(head_dim):
    """Does raw q·k spread like sqrt(head_dim), and does 1/sqrt(head_dim) bring it back to ≈ 1?"""
    raw = measure(head_dim, scaled=False, seq_len=64, seed=0)
    scaled = measure(head_dim, scaled=True, seq_len=64, seed=0)
    assert raw.raw_score_std == pytest.approx(math.sqrt(head_dim), rel=0.1)
    assert raw.score_std == raw.raw_score_std
    assert scaled.raw_score_std == raw.raw_score_std
    assert scaled.score_std == pytest.approx(1.0, rel=0.1)


def test_causal_mask_blocks_the_future():
    """With the causal mask: upper triangle weight 0, row 0 one-hot, ceiling ln(i + 1) per row?"""
    m = measure(8, scaled=True, seq_len=5, seed=2, causal=True)
    np.testing.assert_array_equal(m.visible, np.tril(np.ones((5, 5), dtype=bool)))
    assert np.all(m.weights[~m.visible] == 0.0)
    np.testing.assert_allclose(m.weights.sum(axis=1), 1.0)
    assert m.row_max[0] == 1.0 and m.row_entropy[0] == 0.0
    np.testing.assert_allclose(m.row_entropy_max, np.log(np.arange(1, 6)))
    q, k = random_qk(8, 5, seed=2)
    visible_raw = (q @ k.T)[np.tril_indices(5)]  # the spread softmax can see: blocked cells excluded
    assert m.raw_score_std == pytest.approx(visible_raw.std())
    assert m.score_std == pytest.approx(visible_raw.std() / math.sqrt(8))


def test_entropy_fraction_is_between_zero_and_one():
    """Is entropy / ln(visible) in [0, 1], with 0 for the row that sees a single key?"""
    m = measure(2, scaled=True, seq_len=6, seed=4, causal=True)
    fraction = m.row_entropy_fraction
    assert fraction[0] == 0.0
    assert np.all((fraction >= 0) & (fraction <= 1 + 1e-12))
    np.testing.assert_allclose(fraction[1:], m.row_entropy[1:] / np.log(np.arange(2, 7)))


@pytest.mark.parametrize("causal", [False, True])
def test_unscaled_entropy_falls_as_head_dim_grows(causal):
    """Without the scale, does mean entropy fall at every doubling of head_dim, toward one-hot?"""
    c = curve(scaled=False, seq_len=8, seed=0, causal=causal, draws=100)
    assert np.all(np.diff(c.mean_entropy) < 0)
    assert c.mean_entropy[-1] < 0.1 * c.mean_entropy[0]
    assert np.all(np.diff(c.mean_max_weight) > 0) and c.mean_max_weight[-1] > 0.9


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_entropy_stays_roughly_flat(causal):
    """With 1/sqrt(head_dim), does mean entropy stay within 10% across head_dim 1…1024?"""
    scaled = curve(scaled=True, seq_len=8, seed=0, causal=causal, draws=100)
    unscaled = curve(scaled=False, seq_len=8, seed=0, causal=causal, draws=100)
    spread = np.ptp(scaled.mean_entropy) / scaled.mean_entropy.mean()
    assert spread < 0.1
    assert unscaled.mean_entropy[-1] < 0.2 * scaled.mean_entropy[-1]


def test_curve_with_one_draw_goes_through_the_measured_point():
    """Does the explorer's marker (one draw) sit exactly on its curve (draws=1, same seed)?"""
    c = curve(scaled=False, seq_len=8, seed=5, draws=1)
    for i, head_dim in enumerate(c.head_dims):
        assert c.mean_entropy[i] == measure(int(head_dim), scaled=False, seq_len=8, seed=5).mean_entropy
    np.testing.assert_array_equal(c.head_dims, HEAD_DIMS)


def test_seed_decides_the_draw():
    """Same seed, same weights; another seed, other weights?"""
    a, b, c = (measure(16, seq_len=6, seed=s).weights for s in (9, 9, 10))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_uniform_entropy_hand_worked():
    """Is the uniform ceiling ln T, or (ln 1 + ln 2 + ln 3) / 3 causally for T = 3?"""
    assert uniform_entropy(8) == pytest.approx(math.log(8))
    assert uniform_entropy(3, causal=True) == pytest.approx((math.log(2) + math.log(3)) / 3)


def test_summary_reports_the_numbers_in_chinese():
    """Does the readout name head_dim, the scaling, √head_dim and the measured stats?"""
    m = measure(64, scaled=False, seq_len=8, seed=0)
    text = summary(m)
    assert text.startswith("head_dim = 64（不缩放）")
    for number in (m.raw_score_std, math.sqrt(64), m.mean_max_weight, m.mean_entropy, math.log(8)):
        assert f"{number:.2f}" in text
    assert "× 1/√16" in summary(measure(16, scaled=True))


def test_summary_says_the_same_in_english():
    """The English readout: the same numbers, in the same order, in English words?"""
    m = measure(64, scaled=False, seq_len=8, seed=0)
    numbers = lambda text: re.findall(r"\d+\.\d+|\d+", text)  # noqa: E731
    assert summary(m, "en").startswith("head_dim = 64 (unscaled): the raw scores q·k have standard deviation")
    assert numbers(summary(m, "en")) == numbers(summary(m, "zh"))
    assert "× 1/√16" in summary(measure(16, scaled=True), "en")


@pytest.mark.parametrize("call, message", [
    (lambda: measure(0), "head_dim must be a positive integer: head_dim=0"),
    (lambda: measure(2.5), "head_dim must be a positive integer: head_dim=2.5"),
    (lambda: measure(4, seq_len=0), "seq_len must be a positive integer: seq_len=0"),
    (lambda: curve(scaled=True, draws=0), "draws must be a positive integer: draws=0"),
])
def test_bad_sizes_name_the_rule(call, message):
    """Do bad sizes raise ShapeError with a message naming the parameter and its value?"""
    with pytest.raises(ShapeError) as info:
        call()
    assert str(info.value) == message


def test_module_imports_only_numpy():
    """Is the explorer's arithmetic free of matplotlib and ipywidgets (importable headless)?"""
    source = open(sharpness.__file__, encoding="utf-8").read()
    assert "matplotlib" not in source and "ipywidgets" not in source


def test_draws_nest():
    """Is a smaller head_dim or seq_len the corner of a larger draw (the explorer grows the same vectors)?"""
    q, k = random_qk(head_dim=1024, seq_len=64, seed=3)
    small_q, small_k = random_qk(head_dim=16, seq_len=5, seed=3)
    np.testing.assert_array_equal(q[:5, :16], small_q)
    np.testing.assert_array_equal(k[:5, :16], small_k)
    assert not np.allclose(random_qk(16, 5, seed=4)[0], small_q)  # another seed, another draw
    assert abs(np.corrcoef(q.ravel(), k.ravel())[0, 1]) < 0.02  # q and k are independent streams


def test_raw_scores_is_q_k_at_every_head_dim():
    """Is raw_scores(seed)[i] the unscaled q·k at head_dims[i], [N, T, T]?"""
    table = sharpness.raw_scores(seed=2, seq_len=6)
    assert table.shape == (len(HEAD_DIMS), 6, 6) and table.dtype == np.float64
    for i, head_dim in enumerate(HEAD_DIMS):
        q, k = random_qk(head_dim, 6, seed=2)
        np.testing.assert_allclose(table[i], naive.attention_scores(q, k, 1.0), rtol=1e-12)


def test_seed_must_be_a_non_negative_integer():
    """Does a negative or fractional seed fail with the rule and the value?"""
    for seed in (-1, 1.5):
        with pytest.raises(ValueError, match=f"seed must be an integer >= 0: seed={seed}"):
            random_qk(4, 4, seed=seed)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_the_announcement_say_the_setting_and_the_largest_weight(lang):
    """What a screen reader hears once the explorer settles: the scale, head_dim, seq_len, the mask when there is
    one, and the rows' mean largest weight, from the measurement (another setting, other words)?"""
    m = measure(64, scaled=False, seq_len=8)
    heard = announcement(m, lang)
    assert heard.startswith({"zh": "不缩放，head_dim 64，seq_len 8：", "en": "unscaled, head_dim 64, seq_len 8: "}[lang])
    assert f"{m.mean_max_weight:.2f}" in heard
    other = measure(16, scaled=True, seq_len=5, causal=True)
    assert announcement(other, lang).startswith({"zh": "× 1/√16，head_dim 16，seq_len 5，因果掩码：",
                                                 "en": "× 1/√16, head_dim 16, seq_len 5, causal mask: "}[lang])
    assert f"{other.mean_max_weight:.2f}" in announcement(other, lang)
    assert other.mean_max_weight != m.mean_max_weight

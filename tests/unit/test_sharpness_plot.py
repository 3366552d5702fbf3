"""Does the explorer's figure show a measurement, and move to the next one in place?"""
import io

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.image import imread

from attnkit import sharpness
from attnkit.sharpness_plot import WIDTH_PX, ExplorerFigure, title_text

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def curves(seq_len=8, seed=0, causal=False):
    return {s: sharpness.curve(scaled=s, seq_len=seq_len, seed=seed, causal=causal) for s in (False, True)}


@pytest.fixture
def figure():
    return ExplorerFigure(sharpness.measure(64, scaled=False), curves())


def test_shows_the_measurement(figure):
    """Are the weights, the per-row stats, both curves and the marker the measured numbers?"""
    m = sharpness.measure(64, scaled=False)
    np.testing.assert_allclose(figure.weights.image.get_array(), m.weights)
    np.testing.assert_allclose(figure.row_max.get_ydata(), m.row_max)
    np.testing.assert_allclose(figure.row_entropy.get_ydata(), m.row_entropy_fraction)
    for scaled, c in curves().items():
        np.testing.assert_allclose(figure.lines[scaled].get_ydata(), c.mean_entropy)
    assert list(figure.point.get_xdata()) == [64]
    assert list(figure.point.get_ydata()) == [m.mean_entropy]


def test_update_moves_the_same_artists(figure):
    """After update, is it the same figure and image, now showing the new, causal measurement?"""
    fig, image, count = figure.figure, figure.weights.image, len(figure.figure.get_children())
    m = sharpness.measure(256, scaled=True, seq_len=12, causal=True)
    figure.update(m, curves(seq_len=12, causal=True))
    assert figure.figure is fig and figure.weights.image is image
    assert len(fig.get_children()) == count
    shown = image.get_array()
    assert shown.shape == (12, 12)
    np.testing.assert_array_equal(shown.mask, ~m.visible)  # blocked cells greyed
    assert len(figure.weights.masked.get_paths()) == 12 * 11 // 2
    assert list(figure.point.get_xdata()) == [256]
    assert figure.point.get_color() == "tab:blue"
    assert figure.ceiling.get_ydata()[0] == pytest.approx(sharpness.uniform_entropy(12, causal=True))


def test_png_changes_with_the_state(figure):
    """Is png() a PNG image, and a different one after an update?"""
    before = figure.png()
    figure.update(sharpness.measure(2, scaled=False), curves())
    after = figure.png()
    assert before.startswith(PNG_MAGIC) and after.startswith(PNG_MAGIC)
    assert before != after


def test_no_pyplot_figure_is_created():
    """Is the figure invisible to pyplot, so the inline backend never shows a stray copy?"""
    plt.close("all")
    ExplorerFigure(sharpness.measure(8), curves()).png()
    assert plt.get_fignums() == []


def test_title_names_the_spread():
    """Does the (Chinese) title give head_dim, the scale, the raw spread next to √head_dim and the scaled spread?"""
    m = sharpness.measure(16, scaled=True)
    text = title_text(m)
    assert text.startswith("head_dim = 16　缩放 = 1/√16")
    assert f"原始 q·k 标准差 = {m.raw_score_std:.2f}（√head_dim = 4.00）" in text
    assert text.endswith(f"softmax 看到的标准差 = {m.score_std:.2f}")
    assert "不缩放" in title_text(sharpness.measure(16, scaled=False))


def test_the_english_title_says_the_same():
    """The English edition's title: the same numbers in English words?"""
    m = sharpness.measure(16, scaled=True)
    assert title_text(m, "en") == (f"head_dim = 16   scale = 1/√16   raw q·k std = {m.raw_score_std:.2f} "
                                   f"(√head_dim = 4.00)   std softmax sees = {m.score_std:.2f}")
    assert "1 (unscaled)" in title_text(sharpness.measure(16, scaled=False), "en")


def full_redraw(figure: ExplorerFigure) -> np.ndarray:
    figure.figure.canvas.draw()
    return np.asarray(figure.figure.canvas.buffer_rgba())[..., :3] / 255.0  # (height, width, RGB)


def test_blitted_frames_match_a_full_redraw(figure):
    """After head_dim, scaling, seq_len and causal moves, is each PNG the picture a full redraw gives?"""
    steps = [(512, False, 8, False), (512, True, 8, False), (4, True, 12, True), (1024, False, 12, True)]
    for head_dim, scaled, seq_len, causal in steps:
        figure.update(sharpness.measure(head_dim, scaled=scaled, seq_len=seq_len, causal=causal),
                      curves(seq_len=seq_len, causal=causal))
        blitted = imread(io.BytesIO(figure.png()))
        differs = np.abs(blitted - full_redraw(figure)).max(axis=-1) > 0.05
        assert differs.mean() < 0.001  # a few anti-aliased pixels where a line crosses an axis


def test_head_dim_moves_reuse_the_background(figure):
    """Does a head_dim move keep the cached background, and a seq_len move replace it?"""
    figure.png()
    background = figure._background
    figure.update(sharpness.measure(128, scaled=True), curves())
    figure.png()
    assert figure._background is background
    figure.update(sharpness.measure(128, seq_len=9), curves(seq_len=9))
    figure.png()
    assert figure._background is not background


def test_live_figure_has_no_title_the_static_frame_does():
    """Is the per-setting title left to the readout live, and drawn on the static (grading) frame?"""
    m = sharpness.measure(16, scaled=True)
    assert ExplorerFigure(m, curves()).figure.get_suptitle() == ""
    titled = ExplorerFigure(m, curves(), title=True)
    assert titled.figure.get_suptitle() == title_text(m)
    titled.update(sharpness.measure(32), curves())
    assert titled.figure.get_suptitle() == title_text(sharpness.measure(32))


def test_png_is_rgb_at_the_figure_size(figure):
    """Is the PNG RGB (no alpha to encode) and WIDTH_PX x 360 pixels?"""
    picture = imread(io.BytesIO(figure.png()))
    assert picture.shape == (360, WIDTH_PX, 3)

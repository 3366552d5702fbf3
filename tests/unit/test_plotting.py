"""Do the chapter's heatmaps show the right numbers, keep -1e9 out of the colour scale, and speak each edition's
language (Chinese with every glyph, English with no Chinese left)?"""
import functools
import io
import re
import subprocess
import sys
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pylopdf_fonts_zh_cn
import pytest
from matplotlib import font_manager
from matplotlib.text import Text

import attnkit
from attnkit import ShapeError, naive, plotting, sharpness
from attnkit.sharpness_plot import ExplorerFigure
from support.editions import CJK

TOKENS = list("小猫坐在垫子上")  # the multi-head section's sentence
SENTENCE = {"zh": TOKENS, "en": "the little cat sat on the mat".split()}  # in each edition
PANELS = {"zh": "掩码值", "en": "mask value"}  # §4.8's heatmap_row titles, written by the chapter's code
MISSING_GLYPH = "missing from font"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def masked_scores(seq_len=4):
    scores = np.arange(seq_len * seq_len, dtype=np.float64).reshape(seq_len, seq_len) / 10  # (T, T)
    return scores + attnkit.create_causal_mask(seq_len, np.float64)


def texts(hm):
    return [t.get_text() for t in hm.texts]


def test_masked_cells_stay_out_of_the_colour_scale():
    """With -1e9 in the upper triangle, does the colour scale span only the visible scores?"""
    hm = plotting.heatmap(masked_scores())
    assert (hm.image.norm.vmin, hm.image.norm.vmax) == (0.0, 1.5)
    shown = hm.image.get_array()
    np.testing.assert_array_equal(shown.mask, np.triu(np.ones((4, 4), bool), k=1))
    np.testing.assert_array_equal(shown.data[~shown.mask], masked_scores()[~shown.mask])


def test_masked_cells_are_hatched_nan_cells_are_not():
    """Is there one hatched square per cell ≤ -1e8 (-inf included), none for NaN?"""
    matrix = np.array([[0.5, -1e9, -np.inf], [np.nan, 0.1, -2e8]])
    hm = plotting.heatmap(matrix)
    assert hm.masked.get_hatch() == plotting.HATCH
    corners = sorted(tuple(p.vertices[0]) for p in hm.masked.get_paths())
    assert corners == [(0.5, -0.5), (1.5, -0.5), (1.5, 0.5)]  # cells (0,1), (0,2), (1,2)
    assert hm.image.get_array().mask.tolist() == [[False, True, True], [True, False, True]]


def test_small_matrices_show_their_values():
    """Up to 8x8, is every value written in its cell: numbers, −1e9, −∞ and NaN?"""
    matrix = np.array([[0.25, -1e9], [-np.inf, np.nan]])
    assert texts(plotting.heatmap(matrix, ax=plt.figure().gca())) == ["0.25", "−1e9", "−∞", "NaN"]
    assert len(plotting.heatmap(np.zeros((8, 8)), ax=plt.figure().gca()).texts) == 64


def test_large_matrices_are_not_annotated_unless_asked():
    """Above 8x8, are values left out by default and written when annotate=True?"""
    assert plotting.heatmap(np.zeros((9, 9)), ax=plt.figure().gca()).texts == []
    assert len(plotting.heatmap(np.zeros((9, 9)), ax=plt.figure().gca(), annotate=True).texts) == 81


def test_text_contrasts_with_its_cell():
    """Is the value white on the darkest viridis cell and black on the brightest?"""
    hm = plotting.heatmap(np.array([[0.0, 1.0]]))
    assert [t.get_color() for t in hm.texts] == ["white", "black"]


def test_tokens_label_both_axes():
    """Do the tokens appear, in order, as the row and the column tick labels?"""
    ax = plt.figure().gca()
    plotting.heatmap(np.eye(3), ax=ax, row_labels=TOKENS[:3], col_labels=TOKENS[:3])
    assert [t.get_text() for t in ax.get_xticklabels()] == TOKENS[:3]
    assert [t.get_text() for t in ax.get_yticklabels()] == TOKENS[:3]


def test_default_axes_is_the_current_one():
    """Like matplotlib's helpers, does ax=None draw into plt.gca()?"""
    ax = plt.figure().gca()
    hm = plotting.heatmap(np.eye(2))
    assert hm.image.axes is ax


def test_update_heatmap_moves_existing_artists():
    """Does update_heatmap change data, extent, hatching and ticks of the same image?"""
    hm = plotting.heatmap(np.zeros((3, 3)), ax=plt.figure().gca(), annotate=False)
    image = hm.image
    plotting.update_heatmap(hm, masked_scores(5))
    assert hm.image is image and image.get_array().shape == (5, 5)
    assert image.get_extent() == [-0.5, 4.5, 4.5, -0.5]
    assert len(hm.masked.get_paths()) == 10
    assert len(image.axes.get_xticks()) == 5


def test_pipeline_shows_each_step_of_the_reference():
    """Are the four panels scores, mask, scores + mask and softmax (loop oracle), row sums printed?"""
    scores = np.array([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.5]])
    mask = attnkit.create_causal_mask(3, np.float64)
    p = plotting.pipeline(scores, mask, tokens=TOKENS[:3])
    np.testing.assert_array_equal(p.scores.image.get_array().data, scores)
    np.testing.assert_array_equal(p.mask.image.get_array().mask, mask < 0)
    np.testing.assert_array_equal(p.masked.image.get_array().mask, mask < 0)
    np.testing.assert_allclose(p.weights.image.get_array(), naive.softmax_rows(scores + mask))
    assert [t.get_text() for t in p.row_sums] == ["Σ=1.00"] * 3
    assert (p.masked.image.norm.vmin, p.masked.image.norm.vmax) == (0.0, 0.5)


def test_pipeline_shows_a_students_own_arrays():
    """Passing a student's weights (a softmax that never wrote), are they shown with their wrong sums?"""
    scores = np.eye(2)
    p = plotting.pipeline(scores, np.zeros((2, 2)), weights=np.zeros((2, 2)))
    np.testing.assert_array_equal(p.weights.image.get_array(), np.zeros((2, 2)))
    assert [t.get_text() for t in p.row_sums] == ["Σ=0.00", "Σ=0.00"]


def test_head_grid_has_one_panel_per_head():
    """Does each head get its own panel, title and weights, with unused grid cells hidden?"""
    mha = attnkit.MultiHeadAttention(hidden_dim=12, num_heads=3, seed=0)
    mha.forward(np.random.default_rng(0).normal(size=(4, 12)))
    maps = plotting.head_grid(mha.weights, tokens=TOKENS[:4], ncols=2)
    assert [m.image.axes.get_title() for m in maps] == ["头 0", "头 1", "头 2"]
    for h, m in enumerate(maps):
        np.testing.assert_allclose(m.image.get_array(), mha.weights[h])
    spare = [ax for ax in maps[0].image.axes.figure.axes if not ax.get_visible()]
    assert len(spare) == 1


@pytest.mark.parametrize("call, message", [
    (lambda: plotting.heatmap(np.zeros(3)), "a heatmap shows a 2-D matrix [T, S]: matrix.shape=(3,)"),
    (lambda: plotting.heatmap(np.zeros((2, 3)), col_labels=["a"]),
     "col_labels must have one label per column: len(col_labels)=1, columns=3"),
    (lambda: plotting.head_grid(np.zeros((2, 2))), "head_grid needs weights [num_heads, T, S]: weights.shape=(2, 2)"),
    (lambda: plotting.pipeline(np.zeros((2, 2)), np.zeros((3, 3))),
     "mask must have the scores' shape: scores.shape=(2, 2), mask.shape=(3, 3)"),
])
def test_bad_input_names_the_shapes(call, message):
    """Do wrong shapes raise ShapeError naming the shapes and the rule?"""
    with pytest.raises(ShapeError) as info:
        call()
    assert str(info.value) == message


def render(draw) -> tuple:
    """(the figure ``draw`` makes, rendered once to PNG; the messages of the warnings rendering gave)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure = draw()
        figure.savefig(io.BytesIO(), format="png")  # tick labels and glyphs exist once drawn
    return figure, [str(w.message) for w in caught]


@functools.cache
def chapter_figures(lang: str = "zh"):
    """Every figure the chapter draws, in the ``lang`` edition, with its tokens."""
    tokens = SENTENCE[lang]
    x = np.random.default_rng(0).normal(size=(len(tokens), 64))
    mha = attnkit.MultiHeadAttention(hidden_dim=64, num_heads=4, seed=0)
    mha.forward(x, mask=attnkit.create_causal_mask(len(tokens)))
    scores = attnkit.attention_scores(x[:, :8], x[:, :8])
    blocked = np.zeros((3, 3))
    blocked[0] = -np.inf
    with np.errstate(invalid="ignore"):
        nan_row = attnkit.softmax(blocked)
    curves = {s: sharpness.curve(scaled=s) for s in (False, True)}
    causal = attnkit.create_causal_mask(len(tokens))
    panels = {f"{PANELS[lang]} -1e9": nan_row, f"{PANELS[lang]} -inf": nan_row}
    return {
        "pipeline": lambda: plotting.pipeline(scores, causal, tokens=tokens, lang=lang).scores.image.figure,
        "wrong_order": lambda: plotting.wrong_order(scores, causal, tokens=tokens, lang=lang).zeroed.image.figure,
        "head_grid": lambda: plotting.head_grid(mha.weights, tokens=tokens, mask=causal, lang=lang)[0].image.figure,
        "heatmap_row": lambda: plotting.heatmap_row(panels)[0].image.figure,
        "explorer": lambda: ExplorerFigure(sharpness.measure(64, causal=True), curves, title=True, lang=lang).figure,
    }


FIGURES = ["pipeline", "wrong_order", "head_grid", "heatmap_row", "explorer"]
# identifiers and notation the chapter's prose uses as they are; every other word is Chinese
IDENTIFIERS = {"head_dim", "softmax", "scale", "ln", "nats", "one", "hot", "NaN", "inf"}


def english_words(figure) -> list:
    """Words of two or more Latin letters in the texts of ``figure`` (drawn) that are not identifiers."""
    words = [w for t in figure.findobj(Text) if t.get_visible()
             for w in re.findall(r"[A-Za-z_]{2,}", t.get_text())]
    return [w for w in words if w not in IDENTIFIERS]


@pytest.mark.parametrize("name", FIGURES)
def test_chapter_figures_speak_chinese_with_every_glyph(name):
    """Rendering each chapter figure once: no English word in its texts but identifiers, and no warning of a
    missing glyph (Chinese included)?"""
    figure, messages = render(chapter_figures()[name])
    assert english_words(figure) == []
    assert not [m for m in messages if MISSING_GLYPH in m]


def all_text(figure) -> str:
    return " ".join(t.get_text() for t in figure.findobj(Text) if t.get_visible())


@pytest.mark.parametrize("name", FIGURES)
def test_in_the_english_edition_every_word_is_english(name):
    """The same figures drawn for the English edition: no Chinese character anywhere, no missing glyph, and
    different words from the Chinese figure (the title is translated, not dropped)?"""
    figure, messages = render(chapter_figures("en")[name])
    assert not CJK.search(all_text(figure)), CJK.findall(all_text(figure))
    assert not [m for m in messages if MISSING_GLYPH in m]
    assert all_text(figure) != all_text(render(chapter_figures("zh")[name])[0])


def test_english_words_would_be_caught():
    """Control: does the same walk find an English title and legend?"""
    fig, ax = plt.subplots()
    ax.plot([0, 1], label="max weight")
    ax.set_title("weights")
    ax.legend()
    assert english_words(render(lambda: fig)[0]) == ["weights", "max", "weight"]


def test_wrong_order_says_so_and_shows_the_sums():
    """Is the second §4.7 figure titled as the wrong order, zeroed rows summing below 1, the right ones to 1?"""
    scores = np.array([[0.5, 0.2, 0.1], [0.3, 0.9, 0.4], [0.2, 0.1, 0.7]])
    mask = attnkit.create_causal_mask(3, np.float64)
    w = plotting.wrong_order(scores, mask)
    assert "错误" in w.zeroed.image.figure.get_suptitle()
    titles = [h.image.axes.get_title() for h in (w.softmax_first, w.zeroed, w.right)]
    assert "错误" in titles[1] and "正确" in titles[2]
    wrong = naive.softmax_rows(scores) * np.tril(np.ones((3, 3)))
    np.testing.assert_allclose(w.zeroed.image.get_array(), wrong)
    assert [t.get_text() for t in w.zeroed_sums] == [f"Σ={x:.2f}" for x in wrong.sum(axis=1)]
    assert [t.get_text() for t in w.right_sums] == ["Σ=1.00"] * 3


def test_minus_1e9_labels_sit_on_a_box_above_the_hatching():
    """Does each −1e9 label have an opaque box drawn above the hatched collection (hatch never crosses it)?"""
    hm = plotting.heatmap(attnkit.create_causal_mask(3, np.float64), ax=plt.figure().gca())
    labels = [t for t in hm.texts if t.get_text() == "−1e9"]
    assert len(labels) == 3
    for label in labels:
        box = label.get_bbox_patch()
        assert box is not None and box.get_facecolor()[3] == 1.0
        assert label.get_zorder() > hm.masked.get_zorder()
    assert all(t.get_bbox_patch() is None for t in hm.texts if t.get_text() != "−1e9")


def test_head_grid_hatches_the_masked_cells_instead_of_zeros():
    """With the causal mask, are the blocked weights hatched and unlabelled, not '0.00'?"""
    mha = attnkit.MultiHeadAttention(hidden_dim=8, num_heads=2, seed=0)
    causal = attnkit.create_causal_mask(4)
    mha.forward(np.random.default_rng(0).normal(size=(4, 8)), mask=causal)
    for m in plotting.head_grid(mha.weights, mask=causal):
        assert len(m.masked.get_paths()) == 6
        assert len(m.texts) == 10 and "0.00" not in [t.get_text() for t in m.texts]


def test_blocked_hatching_keeps_a_students_nonzero_weight():
    """In the pipeline, is a blocked cell a student's softmax left non-zero shown as a number, not hatched?"""
    mask = attnkit.create_causal_mask(2, np.float64)
    weights = np.array([[0.7, 0.3], [0.4, 0.6]])  # row 0 leaks into the future
    p = plotting.pipeline(np.eye(2), mask, weights=weights)
    assert len(p.weights.masked.get_paths()) == 0 and "0.30" in [t.get_text() for t in p.weights.texts]


def test_missing_glyphs_would_be_caught():
    """Control: without the CJK fallback, does the same check see the missing-glyph warning?"""
    def draw():
        fig = plt.figure()
        fig.gca().set_title("小猫", fontfamily="DejaVu Sans")
        return fig
    assert any(MISSING_GLYPH in m for m in render(draw)[1])


def test_cjk_glyphs_come_from_the_packaged_font():
    """Does the fallback family resolve to the wheel's Noto Sans SC, not a system font?"""
    family = plotting.cjk_font_family()
    assert family[0] == "DejaVu Sans" and family[1] == "Noto Sans SC"
    found = font_manager.findfont(font_manager.FontProperties(family=family[1]), fallback_to_default=False)
    assert found == str(pylopdf_fonts_zh_cn.sans_path())


def test_plotting_stays_out_of_import_attnkit():
    """Does `import attnkit` leave matplotlib out of the numeric modules (plotting is explicit)?"""
    code = "import sys, attnkit; print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

"""Heatmaps of the chapter's matrices: scores, mask, masked scores, weights (matplotlib only here).

Helpers follow matplotlib's helper style: pass ``ax`` / ``axes`` to draw into your own figure
(``heatmap`` defaults to the current axes, ``plt.gca()``; the multi-panel figures make their own),
get the artists back. Masked cells (``<= -1e8``, the lab's
``-1e9``; ``-inf`` too) are drawn grey and hatched and are left out of the colour scale, so
one ``-1e9`` does not wash the other cells out; their labels sit on a grey box the hatching
does not cross. Cells a mask blocked *before* softmax (weights of exactly 0) are hatched the
same way when the caller passes ``blocked``. NaN cells are grey and labelled ``NaN``.
Every label is in the chapter's language (``lang``, default the notebook's: :mod:`attnkit.language`;
identifiers such as ``softmax`` stay); Chinese renders with Noto Sans SC,
which the ``pylopdf-fonts-zh-cn`` wheel (a project dependency) ships; it is registered with
matplotlib on first use, nothing global changes. Under nbgrader the chapter draws these
through :mod:`attnkit.figures`, which caches the PNGs.

Shape legend: ``T`` queries (rows), ``S`` keys (columns), ``H`` heads.
"""
import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pylopdf_fonts_zh_cn
from matplotlib import font_manager
from matplotlib.collections import PatchCollection
from matplotlib.patches import Rectangle

from .attention import add_mask, softmax
from .errors import require
from .language import WORDS, resolve
from .masks import MASKED_BELOW  # verify.c's test for a masked cell, re-exported for the figures

__all__ = ["MASKED_BELOW", "ANNOTATE_MAX", "cjk_font_family", "Heatmap", "heatmap", "update_heatmap",
           "heatmap_row", "Pipeline", "pipeline", "WrongOrder", "wrong_order", "head_grid"]

ANNOTATE_MAX = 8  # write values into the cells up to 8 x 8
MASKED_GREY, HATCH = "0.82", "///"

@functools.lru_cache(maxsize=None)
def _register_cjk_font() -> str:
    path = str(pylopdf_fonts_zh_cn.sans_path())
    font_manager.fontManager.addfont(path)
    return font_manager.FontProperties(fname=path).get_name()  # "Noto Sans SC"


def cjk_font_family() -> list:
    """``["DejaVu Sans", "Noto Sans SC"]``: Latin from matplotlib's default font, CJK glyphs fall back."""
    return ["DejaVu Sans", _register_cjk_font()]


@dataclass
class Heatmap:
    """The artists of one heatmap: the image, the hatched masked cells, the value texts."""
    image: object  # matplotlib.image.AxesImage
    masked: PatchCollection
    texts: list


def _matrix(matrix) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float64)
    require(matrix.ndim == 2, f"a heatmap shows a 2-D matrix [T, S]: matrix.shape={matrix.shape}")
    return matrix


def _blocked(matrix: np.ndarray) -> np.ndarray:
    return matrix <= MASKED_BELOW  # (T, S); -inf included, NaN excluded


def _hatched(matrix: np.ndarray, blocked) -> np.ndarray:
    """Cells drawn grey and hatched: ``-1e9``/``-inf`` values, and the caller's ``blocked`` cells."""
    if blocked is None:
        return _blocked(matrix)
    blocked = np.asarray(blocked, dtype=bool)
    require(blocked.shape == matrix.shape,
            f"blocked must have the matrix's shape: matrix.shape={matrix.shape}, blocked.shape={blocked.shape}")
    return _blocked(matrix) | blocked  # (T, S)


def _display(matrix: np.ndarray, hatched: np.ndarray) -> np.ma.MaskedArray:
    """The array the image shows: hatched and NaN cells become 'bad' (grey, outside the scale)."""
    return np.ma.masked_array(matrix, mask=hatched | np.isnan(matrix))


def _cell_text(value: float, fmt: str) -> str:
    if np.isnan(value):
        return "NaN"
    if value == -np.inf:
        return "−∞"
    if value <= MASKED_BELOW:
        return f"{value:.0e}".replace("e+0", "e").replace("-", "−")  # -1e9
    return fmt.format(value)


def _hatch_paths(hatched: np.ndarray) -> list:
    return [Rectangle((j - 0.5, i - 0.5), 1, 1) for i, j in zip(*np.nonzero(hatched))]


# a label on a hatched cell sits on a grey box, so the hatching never runs through "−1e9"
LABEL_BOX = {"boxstyle": "square,pad=0.15", "facecolor": MASKED_GREY, "edgecolor": "none"}


def _annotate(ax, image, matrix: np.ndarray, hatched: np.ndarray, fmt: str) -> list:
    """Value texts, dark on light cells and light on dark ones (as matplotlib's gallery does).

    A cell hatched only because the caller blocked it (a weight of exactly 0) gets no label:
    the hatching already says "masked".
    """
    size = 9 if max(matrix.shape) <= 5 else 7
    texts = []
    for (i, j), value in np.ndenumerate(matrix):
        if hatched[i, j] and value > MASKED_BELOW:
            continue
        bad = np.isnan(value) or hatched[i, j]
        light = bad or sum(image.cmap(image.norm(value))[:3]) > 1.5
        texts.append(ax.text(j, i, _cell_text(value, fmt), ha="center", va="center", fontsize=size,
                             color="black" if light else "white", zorder=4,
                             bbox=LABEL_BOX if hatched[i, j] else None))
    return texts


def _ticks(size: int, labels, name: str, what: str):
    """Every token when labelled; indices otherwise, thinned to about 8 on long axes."""
    if labels is not None:
        labels = list(labels)
        require(len(labels) == size,
                f"{name} must have one label per {what}: len({name})={len(labels)}, {what}s={size}")
        return range(size), labels
    step = math.ceil(size / ANNOTATE_MAX) if size > 2 * ANNOTATE_MAX else 1
    return range(0, size, step), list(range(0, size, step))


def _label_axes(ax, shape, row_labels, col_labels) -> None:
    # tokens may be Chinese; index labels keep the default font (fallback lists slow redraws)
    rows = {} if row_labels is None else {"fontfamily": cjk_font_family()}
    cols = {} if col_labels is None else {"fontfamily": cjk_font_family()}
    ax.set_yticks(*_ticks(shape[0], row_labels, "row_labels", "row"), **rows)
    ax.set_xticks(*_ticks(shape[1], col_labels, "col_labels", "column"), **cols)
    ax.set_xlim(-0.5, shape[1] - 0.5)
    ax.set_ylim(shape[0] - 0.5, -0.5)


def heatmap(matrix, *, row_labels=None, col_labels=None, ax=None, cmap="viridis", vmin=None,
            vmax=None, annotate=None, fmt="{:.2f}", title=None, blocked=None) -> Heatmap:
    """Draw a ``[T, S]`` matrix; annotate values when ``annotate`` (default: both sides ≤ 8).

    ``blocked`` (bool ``[T, S]``, optional) hatches cells a mask blocked before softmax, as
    ``-1e9`` cells are. Used for every matrix of §4.5-4.8: the scores table, the mask, the
    weights, the fully-masked-row demo (``-inf`` → NaN vs ``-1e9`` → uniform), and by
    :func:`pipeline`, :func:`head_grid` and the sharpness explorer.
    """
    matrix = _matrix(matrix)  # (T, S)
    hatched = _hatched(matrix, blocked)  # (T, S)
    ax = plt.gca() if ax is None else ax
    palette = plt.get_cmap(cmap).with_extremes(bad=MASKED_GREY)
    image = ax.imshow(_display(matrix, hatched), cmap=palette, vmin=vmin, vmax=vmax, aspect="equal")
    masked = PatchCollection(_hatch_paths(hatched), facecolor="none", edgecolor="0.45",
                             linewidth=0, hatch=HATCH)
    ax.add_collection(masked)
    if annotate is None:
        annotate = max(matrix.shape) <= ANNOTATE_MAX
    texts = _annotate(ax, image, matrix, hatched, fmt) if annotate else []
    _label_axes(ax, matrix.shape, row_labels, col_labels)
    if title is not None:
        ax.set_title(title, fontfamily=cjk_font_family())
    return Heatmap(image, masked, texts)


def update_heatmap(artists: Heatmap, matrix, *, row_labels=None, col_labels=None, blocked=None) -> None:
    """Show a new matrix in existing, unannotated artists (the explorer's in-place redraw)."""
    matrix = _matrix(matrix)  # (T, S)
    hatched = _hatched(matrix, blocked)  # (T, S)
    rows, cols = matrix.shape
    artists.image.set_data(_display(matrix, hatched))
    artists.image.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
    artists.masked.set_paths(_hatch_paths(hatched))
    _label_axes(artists.image.axes, matrix.shape, row_labels, col_labels)


def heatmap_row(matrices: dict, *, figsize=None, **kwargs) -> list:
    """One heatmap per ``{title: matrix}`` entry, side by side in a new figure; ``kwargs`` go to :func:`heatmap`.

    Used in §4.8: the fully masked row under ``-1e9`` (uniform) and under ``-inf`` (NaN).
    """
    count = len(matrices)
    require(count >= 1, "heatmap_row needs at least one {title: matrix} entry: got none")
    _, axes = plt.subplots(1, count, figsize=figsize or (3.5 * count, 2.6), layout="constrained", squeeze=False)
    return [heatmap(matrix, ax=ax, title=title, **kwargs)
            for ax, (title, matrix) in zip(axes[0], matrices.items())]


class Pipeline(NamedTuple):
    """The four heatmaps of :func:`pipeline` and the row-sum texts beside the weights."""
    scores: Heatmap
    mask: Heatmap
    masked: Heatmap
    weights: Heatmap
    row_sums: list


def _finite_range(matrix: np.ndarray):
    visible = matrix[np.isfinite(matrix) & ~_blocked(matrix)]
    return (float(visible.min()), float(visible.max())) if visible.size else (0.0, 1.0)


def _row_sums(ax, weights: np.ndarray) -> list:
    cols = weights.shape[1]
    return [ax.text(cols - 0.3, i, f"Σ={total:.2f}", va="center", fontsize=8, clip_on=False)
            for i, total in enumerate(weights.sum(axis=-1))]


def _masked_zeros(weights: np.ndarray, mask) -> np.ndarray:
    """Weights a mask blocked and softmax sent to exactly 0: hatched; a student's non-zero stays a number."""
    return (np.asarray(mask, dtype=np.float64) <= MASKED_BELOW) & (weights == 0)  # (T, S)


def _panels(count: int, axes):
    if axes is None:
        _, axes = plt.subplots(1, count, figsize=(3.5 * count, 3.8), layout="constrained")
    return axes


def pipeline(scores, mask, *, tokens=None, masked=None, weights=None, axes=None, lang=None) -> Pipeline:
    """scores → mask → scores + mask → softmax, side by side, each weight row's sum printed.

    Used in §4.7 (why the mask goes in before softmax). ``masked`` and ``weights`` default to
    the reference (``add_mask``, ``softmax``); pass a student's own arrays to see which step
    goes wrong first. ``tokens`` label both axes.
    """
    scores = np.asarray(scores, dtype=np.float64)  # (T, S)
    masked = add_mask(scores, mask) if masked is None else np.asarray(masked, dtype=np.float64)
    weights = softmax(masked) if weights is None else np.asarray(weights, dtype=np.float64)
    axes, lang = _panels(4, axes), resolve(lang)
    low, high = _finite_range(scores)
    labels = dict(row_labels=tokens, col_labels=tokens)
    maps = [
        heatmap(scores, ax=axes[0], vmin=low, vmax=high, title=WORDS.say(lang, "plotting.scores"), **labels),
        heatmap(mask, ax=axes[1], cmap="Greys", vmin=0, vmax=1, title=WORDS.say(lang, "plotting.mask"), **labels),
        heatmap(masked, ax=axes[2], vmin=low, vmax=high, title=WORDS.say(lang, "plotting.masked"), **labels),
        heatmap(weights, ax=axes[3], vmin=0, vmax=1, title=WORDS.say(lang, "plotting.weights"),
                blocked=_masked_zeros(weights, mask), **labels),
    ]
    return Pipeline(*maps, _row_sums(axes[3], weights))


class WrongOrder(NamedTuple):
    """The three heatmaps of :func:`wrong_order` and the row-sum texts of the two weight panels."""
    softmax_first: Heatmap
    zeroed: Heatmap
    right: Heatmap
    zeroed_sums: list
    right_sums: list


def wrong_order(scores, mask, *, tokens=None, axes=None, lang=None) -> WrongOrder:
    """Softmax, then zeroing the future cells without renormalising, next to the right weights, row sums printed.

    Used in §4.7 after :func:`pipeline`: the same scores and mask; the zeroed rows sum to
    less than 1, the right weights to exactly 1.
    """
    scores = np.asarray(scores, dtype=np.float64)  # (T, S)
    future = np.asarray(mask, dtype=np.float64) <= MASKED_BELOW  # (T, S)
    first = softmax(scores)  # (T, S) the future cells take their share too
    zeroed = np.where(future, 0.0, first)  # (T, S)
    right = softmax(add_mask(scores, mask))  # (T, S)
    axes, lang = _panels(3, axes), resolve(lang)
    labels = dict(row_labels=tokens, col_labels=tokens, vmin=0, vmax=1)
    maps = [
        heatmap(first, ax=axes[0], title=WORDS.say(lang, "plotting.first"), **labels),
        heatmap(zeroed, ax=axes[1], title=WORDS.say(lang, "plotting.zeroed"), **labels),
        heatmap(right, ax=axes[2], blocked=_masked_zeros(right, mask), title=WORDS.say(lang, "plotting.right"), **labels),
    ]
    axes[0].figure.suptitle(WORDS.say(lang, "plotting.wrong"), fontfamily=cjk_font_family(), color="tab:red", fontsize=13)
    return WrongOrder(*maps, _row_sums(axes[1], zeroed), _row_sums(axes[2], right))


def head_grid(weights, *, tokens=None, mask=None, axes=None, ncols=4, lang=None) -> list:
    """One weights heatmap per head of a ``[H, T, S]`` array (``MultiHeadAttention.weights``).

    Used in the multi-head section: the same sentence, a different pattern per head. Pass
    the ``mask`` the heads used to hatch the cells it blocked, as in every other figure.
    """
    weights = np.asarray(weights, dtype=np.float64)  # (H, T, S)
    require(weights.ndim == 3, f"head_grid needs weights [num_heads, T, S]: weights.shape={weights.shape}")
    heads = weights.shape[0]
    if axes is None:
        cols = min(heads, ncols)
        rows = -(-heads // cols)
        _, grid = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.2 * rows), layout="constrained",
                               squeeze=False)
        for extra in grid.flat[heads:]:
            extra.set_visible(False)
        axes = grid.flat
    lang = resolve(lang)
    return [heatmap(w, ax=ax, vmin=0, vmax=1, row_labels=tokens, col_labels=tokens,
                    title=WORDS.say(lang, "plotting.head", h=h),
                    blocked=None if mask is None else _masked_zeros(w, mask))
            for h, (w, ax) in enumerate(zip(weights, axes))]

"""Heatmaps of the chapter's matrices: scores, mask, masked scores, weights (matplotlib only here).

Helpers follow matplotlib's helper style: pass ``ax`` / ``axes`` to draw into your own figure
(``heatmap`` defaults to the current axes, ``plt.gca()``; the multi-panel figures make their own),
get the artists back. Masked cells (``<= -1e8``, the lab's
``-1e9``; ``-inf`` too) are drawn grey and hatched and are left out of the colour scale, so
one ``-1e9`` does not wash the other cells out. NaN cells are grey and labelled ``NaN``.
Chinese tokens render with Noto Sans SC, which the ``pylopdf-fonts-zh-cn`` wheel (a project
dependency) ships; it is registered with matplotlib on first use, nothing global changes.

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

__all__ = ["MASKED_BELOW", "ANNOTATE_MAX", "cjk_font_family", "Heatmap", "heatmap",
           "update_heatmap", "Pipeline", "pipeline", "head_grid"]

MASKED_BELOW = -1e8  # verify.c's test for a masked cell
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


def _display(matrix: np.ndarray) -> np.ma.MaskedArray:
    """The array the image shows: masked and NaN cells become 'bad' (grey, outside the scale)."""
    return np.ma.masked_array(matrix, mask=_blocked(matrix) | np.isnan(matrix))


def _cell_text(value: float, fmt: str) -> str:
    if np.isnan(value):
        return "NaN"
    if value == -np.inf:
        return "−∞"
    if value <= MASKED_BELOW:
        return f"{value:.0e}".replace("e+0", "e").replace("-", "−")  # -1e9
    return fmt.format(value)


def _hatch_paths(matrix: np.ndarray) -> list:
    return [Rectangle((j - 0.5, i - 0.5), 1, 1) for i, j in zip(*np.nonzero(_blocked(matrix)))]


def _annotate(ax, image, matrix: np.ndarray, fmt: str) -> list:
    """Value texts, dark on light cells and light on dark ones (as matplotlib's gallery does)."""
    size = 9 if max(matrix.shape) <= 5 else 7
    texts = []
    for (i, j), value in np.ndenumerate(matrix):
        bad = np.isnan(value) or value <= MASKED_BELOW
        light = bad or sum(image.cmap(image.norm(value))[:3]) > 1.5
        texts.append(ax.text(j, i, _cell_text(value, fmt), ha="center", va="center", fontsize=size,
                             color="black" if light else "white"))
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
            vmax=None, annotate=None, fmt="{:.2f}", title=None) -> Heatmap:
    """Draw a ``[T, S]`` matrix; annotate values when ``annotate`` (default: both sides ≤ 8).

    Used for every matrix of §4.5-4.8: the scores table, the mask, the weights, the
    fully-masked-row demo (``-inf`` → NaN vs ``-1e9`` → uniform), and by :func:`pipeline`,
    :func:`head_grid` and the sharpness explorer.
    """
    matrix = _matrix(matrix)  # (T, S)
    ax = plt.gca() if ax is None else ax
    palette = plt.get_cmap(cmap).with_extremes(bad=MASKED_GREY)
    image = ax.imshow(_display(matrix), cmap=palette, vmin=vmin, vmax=vmax, aspect="equal")
    masked = PatchCollection(_hatch_paths(matrix), facecolor="none", edgecolor="0.45",
                             linewidth=0, hatch=HATCH)
    ax.add_collection(masked)
    if annotate is None:
        annotate = max(matrix.shape) <= ANNOTATE_MAX
    texts = _annotate(ax, image, matrix, fmt) if annotate else []
    _label_axes(ax, matrix.shape, row_labels, col_labels)
    if title is not None:
        ax.set_title(title, fontfamily=cjk_font_family())
    return Heatmap(image, masked, texts)


def update_heatmap(artists: Heatmap, matrix, *, row_labels=None, col_labels=None) -> None:
    """Show a new matrix in existing, unannotated artists (the explorer's in-place redraw)."""
    matrix = _matrix(matrix)  # (T, S)
    rows, cols = matrix.shape
    artists.image.set_data(_display(matrix))
    artists.image.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
    artists.masked.set_paths(_hatch_paths(matrix))
    _label_axes(artists.image.axes, matrix.shape, row_labels, col_labels)


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


def pipeline(scores, mask, *, tokens=None, masked=None, weights=None, axes=None) -> Pipeline:
    """scores → mask → scores + mask → softmax, side by side, each weight row's sum printed.

    Used in §4.7 (why the mask goes in before softmax). ``masked`` and ``weights`` default to
    the reference (``add_mask``, ``softmax``); pass a student's own arrays to see which step
    goes wrong first. ``tokens`` label both axes.
    """
    scores = np.asarray(scores, dtype=np.float64)  # (T, S)
    masked = add_mask(scores, mask) if masked is None else np.asarray(masked, dtype=np.float64)
    weights = softmax(masked) if weights is None else np.asarray(weights, dtype=np.float64)
    if axes is None:
        _, axes = plt.subplots(1, 4, figsize=(14, 3.8), layout="constrained")
    low, high = _finite_range(scores)
    labels = dict(row_labels=tokens, col_labels=tokens)
    maps = [
        heatmap(scores, ax=axes[0], vmin=low, vmax=high, title="1. scores = scale·Q·Kᵀ", **labels),
        heatmap(mask, ax=axes[1], cmap="Greys", vmin=0, vmax=1, title="2. mask (0 keep, −1e9 block)",
                **labels),
        heatmap(masked, ax=axes[2], vmin=low, vmax=high, title="3. scores + mask", **labels),
        heatmap(weights, ax=axes[3], vmin=0, vmax=1, title="4. softmax → weights", **labels),
    ]
    return Pipeline(*maps, _row_sums(axes[3], weights))


def head_grid(weights, *, tokens=None, axes=None, ncols=4) -> list:
    """One weights heatmap per head of a ``[H, T, S]`` array (``MultiHeadAttention.weights``).

    Used in the multi-head section: the same sentence, a different pattern per head.
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
    return [heatmap(w, ax=ax, vmin=0, vmax=1, row_labels=tokens, col_labels=tokens, title=f"head {h}")
            for h, (w, ax) in enumerate(zip(weights, axes))]

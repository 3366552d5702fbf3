"""The sharpness explorer's figure in matplotlib: the PNG shown under grading (§4.6).

The live explorer computes and draws in the browser (:mod:`attnkit.widgets`,
``attnkit/assets/explorer.js``, the same three panels); this figure is its stand-in where
no browser code runs, :func:`attnkit.widgets.first_frame_png`, cached by :mod:`attnkit.figures`.
It was the live explorer's figure before, hence the in-place redrawing below.

Three panels: the weights heatmap; each row's max weight and entropy (as a fraction of the
uniform row's ``ln(visible keys)``); mean entropy against head_dim for both scalings, with
the current setting marked. :meth:`ExplorerFigure.update` changes the artists' data, never
creates a figure; :meth:`ExplorerFigure.png` renders it with Agg, so the widget (or the static
nbgrader path) only swaps image bytes. No pyplot: the figure never lands in a notebook by itself.

Moving head_dim or the scaling changes only the "moving" artists (weights, per-row lines,
marker). :meth:`ExplorerFigure.png` therefore blits: axes, ticks, legends and curves
are drawn once per (seq_len, causal, curves) and kept as a background, and only the moving
artists are drawn over it (≈ 4x faster). The background
itself is layered the same way: what never changes (titles, legends, colour bar, frames) is
drawn once; a seq_len move redraws only tick labels, curves and the ceiling over it.
The live figure has no per-setting title: the widget's readout says the same in HTML, and a
Chinese title re-laid out on every move cost a third of a redraw. Its words are the chapter's
language (``lang``; :func:`attnkit.sharpness.words`, the live explorer's too). The static frame shown
under nbgrader (``title=True``) keeps it. The PNG is RGB without row filters (:mod:`attnkit.png`: ≈ 3 ms instead of Pillow's ≈ 14 ms),
``WIDTH_PX`` CSS pixels wide and ``pixel_ratio`` times that in real pixels, so the widget can
show it 1:1 instead of stretching it.
"""
import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .language import WORDS, resolve
from .plotting import cjk_font_family, heatmap, update_heatmap
from .png import encode_rgb
from .sharpness import HEAD_DIMS, Sharpness, uniform_entropy, words as explorer_words

__all__ = ["ExplorerFigure", "title_text"]

DPI = 100
FIGSIZE = (11.0, 3.6)  # inches: 1100 x 360 CSS pixels at DPI
WIDTH_PX = int(FIGSIZE[0] * DPI)
LAYOUT_ROWS = 16  # lay out with two-digit row labels, so any seq_len below 100 fits
COLOURS = {False: "tab:red", True: "tab:blue"}


def title_text(m: Sharpness, lang: str | None = None) -> str:
    """The figure's one-line summary, in the chapter's language like the widget's readout."""
    lang = resolve(lang)
    scale = f"1/√{m.head_dim}" if m.scaled else WORDS.say(lang, "sharpness_plot.unscaled")
    return WORDS.say(lang, "sharpness_plot.title", head_dim=m.head_dim, scale=scale, raw=m.raw_score_std,
                     root=math.sqrt(m.head_dim), seen=m.score_std)


def _zh(size=None) -> dict:
    """Font properties for Chinese labels (Latin from DejaVu Sans, CJK from Noto Sans SC)."""
    return {"family": cjk_font_family(), **({} if size is None else {"size": size})}


class ExplorerFigure:
    """One Agg figure whose artists :meth:`update` moves to a new measurement."""

    def __init__(self, m: Sharpness, curves: dict, *, title: bool = False, pixel_ratio: float = 1.0,
                 lang: str | None = None):
        self.lang = resolve(lang)
        words = explorer_words(self.lang)
        self.figure = Figure(figsize=FIGSIZE, dpi=DPI * pixel_ratio, layout="constrained")
        FigureCanvasAgg(self.figure)
        ax_w, self.ax_rows, self.ax_curve = self.figure.subplots(1, 3, width_ratios=[1, 1.15, 1.3])
        self.weights = heatmap(np.zeros((1, 1)), ax=ax_w, vmin=0, vmax=1, annotate=False)
        self.weights.image.set_interpolation("nearest")  # one flat colour per cell: no resampling pass
        ax_w.set_title(words["weights"], fontproperties=_zh(10))
        self.figure.colorbar(self.weights.image, ax=ax_w, shrink=0.85)
        self.row_max, = self.ax_rows.plot([], [], "o-", color="tab:purple", label=words["rowMax"])
        self.row_entropy, = self.ax_rows.plot([], [], "s--", color="tab:green", label=words["rowEntropy"])
        self._style_rows(words)
        labels = {False: words["unscaled"], True: "× 1/√head_dim"}
        self.lines = {s: self.ax_curve.plot([], [], "o-", ms=3, color=COLOURS[s], label=labels[s])[0]
                      for s in (False, True)}
        self.ceiling = self.ax_curve.axhline(0, color="0.5", ls=":", label=words["uniform"])
        self.point, = self.ax_curve.plot([], [], "o", ms=12, mfc="none", mew=2.5, color="black")
        self._style_curve(words)
        self.title = self.figure.suptitle(title_text(m, self.lang), fontproperties=_zh()) if title else None
        self._moving = [self.weights.image, self.weights.masked, *ax_w.spines.values(),
                        self.row_max, self.row_entropy, self.point]  # in drawing order
        self._moving += [self.title] if title else []
        self._frame, self._background, self._static = None, None, None
        self._freeze_layout()
        self.update(m, curves)

    def _freeze_layout(self) -> None:
        """Lay out once, then keep the panels where they are: a layout pass costs ~50 ms a redraw."""
        update_heatmap(self.weights, np.zeros((LAYOUT_ROWS, LAYOUT_ROWS)))
        self.figure.draw_without_rendering()
        self.figure.set_layout_engine("none")

    def _style_rows(self, words: dict) -> None:
        self.ax_rows.set_ylim(0, 1.3)
        self.ax_rows.set_xlabel(words["query"], fontproperties=_zh())
        self.ax_rows.set_title(words["rows"], fontproperties=_zh())
        self.ax_rows.legend(loc="upper center", ncols=2, prop=_zh(8))

    def _style_curve(self, words: dict) -> None:
        self.ax_curve.set_xscale("log", base=2)
        ticks = HEAD_DIMS[::2]  # plain labels: log-axis mathtext labels cost a third of a redraw
        self.ax_curve.set_xticks(ticks, labels=[str(t) for t in ticks])
        self.ax_curve.minorticks_off()
        self.ax_curve.set_xlabel("head_dim")
        self.ax_curve.set_ylabel(words["entropy"], fontproperties=_zh())
        self.ax_curve.set_title(words["curve"], fontproperties=_zh())
        self.ax_curve.legend(loc="lower left", prop=_zh(8))

    def update(self, m: Sharpness, curves: dict) -> None:
        """Show measurement ``m`` and ``curves`` (``{scaled: Curve}``) in the same artists."""
        seq_len = m.weights.shape[0]
        frame = (seq_len, m.causal, [c.mean_entropy.tolist() for c in curves.values()])
        if frame != self._frame:
            self._update_frame(seq_len, m.causal, curves)
            self._frame, self._background = frame, None
        update_heatmap(self.weights, np.where(m.visible, m.weights, -np.inf))  # grey where masked
        self.row_max.set_data(range(seq_len), m.row_max)
        self.row_entropy.set_data(range(seq_len), m.row_entropy_fraction)
        self.point.set_data([m.head_dim], [m.mean_entropy])
        self.point.set_color(COLOURS[m.scaled])
        if self.title is not None:
            self.title.set_text(title_text(m, self.lang))

    def _update_frame(self, seq_len: int, causal: bool, curves: dict) -> None:
        """The background's data: limits, curves and the uniform ceiling."""
        self.ax_rows.set_xlim(-0.5, seq_len - 0.5)
        for scaled, c in curves.items():
            self.lines[scaled].set_data(c.head_dims, c.mean_entropy)
        ceiling = uniform_entropy(seq_len, causal)
        self.ceiling.set_ydata([ceiling, ceiling])
        self.ax_curve.set_xlim(0.7, 1500)
        self.ax_curve.set_ylim(0, 1.08 * ceiling + 1e-3)

    def _frame_artists(self) -> list:
        """What a seq_len / causal / seed move changes: tick labels, curves, ceiling."""
        ax_w = self.weights.image.axes
        return [ax_w.xaxis, ax_w.yaxis, self.ax_rows.xaxis, self.ax_curve.yaxis, *self.lines.values(),
                self.ceiling]

    def _snapshot(self, hidden: list):
        """A full draw with ``hidden`` left out, kept as pixels."""
        for artist in hidden:
            artist.set_visible(False)
        self.figure.canvas.draw()
        for artist in hidden:
            artist.set_visible(True)
        return self.figure.canvas.copy_from_bbox(self.figure.bbox)

    def _draw_background(self):
        """Titles, legends, colour bar and frames are drawn once (Chinese text is the slow part);
        a new frame only draws its own artists over them."""
        if self._static is None:
            self._static = self._snapshot(self._frame_artists() + self._moving)
        self.figure.canvas.restore_region(self._static)
        for artist in self._frame_artists():
            self.figure.draw_artist(artist)
        return self.figure.canvas.copy_from_bbox(self.figure.bbox)

    def png(self) -> bytes:
        """Render the current state (background + moving artists) and return PNG bytes."""
        if self._background is None:
            self._background = self._draw_background()
        self.figure.canvas.restore_region(self._background)
        for artist in self._moving:
            self.figure.draw_artist(artist)
        return encode_rgb(np.asarray(self.figure.canvas.buffer_rgba())[..., :3])  # (height, width, RGB)


"""The sharpness explorer (§4.6): sliders wired to :mod:`attnkit.sharpness`, ipywidgets only here.

One Agg figure (:class:`attnkit.sharpness_plot.ExplorerFigure`) is updated in place and
shown through an ``ipywidgets.Image``: a change swaps the image's bytes, the page keeps its
layout (no flicker, no new figure, no output area cleared), and it needs only the core
widgets that JupyterLab 4 / ipywidgets 8 ship. The chapter calls
:func:`attnkit.figures.sharpness_explorer`, which under nbgrader shows :func:`first_frame_png`
(cached) instead.

Stable hooks for tests and the browser: the root box has CSS class ``attn-explorer``,
the head_dim slider ``attn-head-dim`` (description ``head_dim``), the seq_len slider
``attn-seq-len``, the text readout
``attn-readout``, the figure ``attn-figure``.
"""
import functools

import ipywidgets as w

from . import sharpness
from .sharpness_plot import WIDTH_PX, ExplorerFigure

__all__ = ["SharpnessExplorer", "sharpness_explorer", "first_frame_png"]

SCALINGS = [("不缩放", False), ("× 1/√head_dim", True)]
READOUT_HEIGHT = "48px"  # two 22 px lines and a little air; the widget's own line height is 28 px
_LINE = '<div style="line-height: 22px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis">{}</div>'


def readout_html(m: sharpness.Sharpness) -> str:
    """:func:`attnkit.sharpness.summary` as two single-line rows (its two clauses)."""
    spread, peak = sharpness.summary(m).split("；", 1)
    return _LINE.format(spread + "；") + _LINE.format(peak)


@functools.lru_cache(maxsize=64)
def _curves(seq_len: int, seed: int, causal: bool) -> dict:
    """Both scalings' curves; head_dim and scaling only move the marker, so cache per the rest."""
    return {scaled: sharpness.curve(scaled=scaled, seq_len=seq_len, seed=seed, causal=causal)
            for scaled in (False, True)}


def _settings(head_dim: int, scaled: bool, seq_len: int, seed: int, causal: bool):
    m = sharpness.measure(head_dim, scaled=scaled, seq_len=seq_len, seed=seed, causal=causal)
    return m, _curves(seq_len, seed, causal)


class SharpnessExplorer:
    """The live explorer: controls, a Chinese readout and one figure; display it as the cell's value."""

    def __init__(self, head_dim=64, scaled=False, seq_len=8, seed=0, causal=False, pixel_ratio=1.0):
        self.head_dim = w.SelectionSlider(options=sharpness.HEAD_DIMS, value=head_dim, description="head_dim",
                                          layout=w.Layout(width="460px"))
        # a ToggleButtons' own description wraps above its buttons in JupyterLab 4: use a Label
        self.scaling = w.ToggleButtons(options=SCALINGS, value=scaled, style={"button_width": "120px"})
        self.seq_len = w.IntSlider(value=seq_len, min=2, max=64, description="seq_len", continuous_update=False)
        self.seed = w.IntSlider(value=seed, min=0, max=99, description="seed", continuous_update=False)
        self.causal = w.Checkbox(value=causal, description="因果掩码")
        # two lines, each kept on one line, in a box of fixed height: the figure never jumps
        self.readout = w.HTML(layout=w.Layout(height=READOUT_HEIGHT, overflow="hidden"))
        # shown at its own width (1:1 pixels, sharp); narrower cells scale it down, never up
        self.image = w.Image(format="png", layout=w.Layout(width=f"{WIDTH_PX}px", max_width="100%"))
        self.figure = ExplorerFigure(*_settings(head_dim, scaled, seq_len, seed, causal), pixel_ratio=pixel_ratio)
        controls = [self.head_dim, self.scaling, self.seq_len, self.seed, self.causal]
        first_row = w.HBox([self.head_dim, w.Label("缩放"), self.scaling])
        self.widget = w.VBox([first_row, w.HBox(controls[2:]), self.readout, self.image])
        for widget, css in [(self.widget, "attn-explorer"), (self.head_dim, "attn-head-dim"),
                            (self.seq_len, "attn-seq-len"),
                            (self.readout, "attn-readout"), (self.image, "attn-figure")]:
            widget.add_class(css)
        for control in controls:
            control.observe(self.update, names="value")
        self.update()

    def update(self, change=None) -> None:
        """Recompute for the controls' current values and redraw the same figure."""
        m, curves = _settings(self.head_dim.value, self.scaling.value, self.seq_len.value,
                              self.seed.value, self.causal.value)
        self.figure.update(m, curves)
        self.image.value = self.figure.png()
        self.readout.value = readout_html(m)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def sharpness_explorer(head_dim=64, scaled=False, seq_len=8, seed=0, causal=False,
                       pixel_ratio=1.0) -> SharpnessExplorer:
    """Return the live explorer (display it as a cell's value); ``pixel_ratio=2`` for a sharp HiDPI figure."""
    return SharpnessExplorer(head_dim, scaled, seq_len, seed, causal, pixel_ratio)


def first_frame_png(head_dim=64, scaled=False, seq_len=8, seed=0, causal=False) -> bytes:
    """The explorer's figure for these settings, titled with the readout's numbers, as PNG bytes; no widget."""
    return ExplorerFigure(*_settings(head_dim, scaled, seq_len, seed, causal), title=True).png()

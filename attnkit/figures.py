"""The chapter's demo figures, one call each: live for the student, a cached PNG under nbgrader.

The notebook's demo cells call these. In a student's kernel each one draws exactly what
:mod:`attnkit.plotting` / :mod:`attnkit.widgets` draw (pyplot's inline figure, or the live
explorer) and returns their artists. Under nbgrader (:func:`attnkit.static.under_grading`)
each one displays the same picture as a PNG from :func:`attnkit.static.cached_png` and
returns None (the explorer returns the image): a warm cache costs a file read, no
matplotlib import, no drawing; under Validate, which keeps no output, nothing is shown at all
(:func:`attnkit.static.validating`). Grades never depend on these cells. Each figure's words are in
the chapter's language (``lang``, default the notebook's), and so is its cache entry.

Every picture comes with its text alternative, made from the same data (:mod:`attnkit.describe`): the figure is
shown as HTML, the PNG with that text as its ``alt`` and the numbers as tables folded under it (``text/plain``
carries the words alone, for a front end that shows no HTML), live and under grading alike.

matplotlib, ipywidgets and the plotting modules are imported inside the functions, only
when something is drawn: importing pyplot alone costs ≈ 0.3 s of every graded notebook.
"""
import io

import numpy as np
from IPython.display import display

from . import describe, sharpness
from .language import resolve
from .static import cached_png, under_grading, validating

__all__ = ["pipeline", "wrong_order", "heatmap_row", "head_grid", "sharpness_explorer", "png_of", "show", "Described"]

DPI = 72  # the inline backend's resolution: the cached PNG looks like the live figure
_WORDED = ("pipeline", "wrong_order", "head_grid")  # the figures with titles of their own (heatmap_row: the caller's)


def drawn(draw) -> tuple:
    """Run ``draw()`` (which makes one pyplot figure): what it returned, and that figure as PNG, closed (so pyplot
    does not show it again, without its text alternative)."""
    import matplotlib.pyplot as plt  # only when drawing

    result = draw()
    figure = plt.gcf()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(figure)
    return result, buffer.getvalue()


def png_of(draw) -> bytes:
    """Run ``draw()`` (which makes one pyplot figure), return that figure as PNG, and close it."""
    return drawn(draw)[1]


class Described:
    """A picture and its text alternative, shown as one output: HTML (the PNG, its ``alt``, the numbers folded
    under it) and plain text (the words alone)."""

    def __init__(self, png: bytes, description: describe.Description, lang: str):
        self.png, self.description, self.lang = png, description, lang

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": describe.figure_html(self.png, self.description, self.lang),
                "text/plain": self.description.text}


def show(png: bytes, description: describe.Description, lang: str) -> None:
    display(Described(png, description, lang))


def _figure(name: str, params: dict, lang: str | None):
    """Draw ``plotting.<name>(**params)`` live (its artists returned), or its cached PNG under grading; either with
    its text alternative."""
    lang = resolve(lang)
    if not under_grading():
        artists, png = drawn(lambda: _draw(name, params, lang))
        show(png, describe.figure(name, params, lang), lang)
        return artists
    if not validating():
        png = cached_png(name, params, lambda: png_of(lambda: _draw(name, params, lang)), lang=lang)
        show(png, describe.figure(name, params, lang), lang)
    return None


def _draw(name: str, params: dict, lang: str):
    from . import plotting

    return getattr(plotting, name)(**params, **({"lang": lang} if name in _WORDED else {}))


def _arrays(**arrays) -> dict:
    return {k: v if v is None or isinstance(v, (list, dict)) else np.asarray(v) for k, v in arrays.items()}


def pipeline(scores, mask, *, tokens=None, lang=None):
    """§4.7: :func:`attnkit.plotting.pipeline` (scores → mask → scores + mask → softmax)."""
    return _figure("pipeline", _arrays(scores=scores, mask=mask, tokens=tokens), lang)


def wrong_order(scores, mask, *, tokens=None, lang=None):
    """§4.7: :func:`attnkit.plotting.wrong_order` (softmax, then zeroing, next to the right order)."""
    return _figure("wrong_order", _arrays(scores=scores, mask=mask, tokens=tokens), lang)


def heatmap_row(matrices: dict, *, lang=None, **kwargs):
    """§4.8: :func:`attnkit.plotting.heatmap_row` (``{title: matrix}`` side by side; the titles are the caller's)."""
    return _figure("heatmap_row", {"matrices": _arrays(**matrices), **kwargs}, lang)


def head_grid(weights, *, tokens=None, mask=None, lang=None):
    """Multi-head section: :func:`attnkit.plotting.head_grid` (one heatmap per head)."""
    return _figure("head_grid", _arrays(weights=weights, tokens=tokens, mask=mask), lang)


def sharpness_explorer(head_dim=64, scaled=False, seq_len=8, seed=0, causal=False, lang=None):
    """§4.6: the live explorer (:class:`attnkit.widgets.SharpnessExplorer`, computed and drawn in the
    browser); under grading its first frame as a cached PNG (no widget, no compute)."""
    settings = dict(head_dim=head_dim, scaled=scaled, seq_len=seq_len, seed=seed, causal=causal)
    lang = resolve(lang)
    if not under_grading():
        from .widgets import SharpnessExplorer

        return SharpnessExplorer(**settings, lang=lang)
    if validating():
        return None
    png = cached_png("sharpness_explorer", settings, lambda: _explorer_png(settings, lang), lang=lang)
    m = sharpness.measure(head_dim, scaled=scaled, seq_len=seq_len, seed=seed, causal=causal)
    return Described(png, describe.explorer(m, sharpness.summary(m, lang), lang), lang)


def _explorer_png(settings: dict, lang: str) -> bytes:
    from .widgets import first_frame_png

    return first_frame_png(**settings, lang=lang)

"""The |student − reference| gap of one diagnosis finding: its numbers, its title, and an HTML table of it.

The chapter draws the gap as a matplotlib heatmap (:mod:`attnkit.diagnose_plot`). Under grading
the same numbers are shown as an HTML table instead (:func:`gap_table`): each cell coloured on the
same white-to-dark-red scale, its value written in it up to :data:`ANNOTATE_MAX` × ``ANNOTATE_MAX``,
NaN/inf cells grey, its words in the chapter's language (attnkit's catalogue, ``deviation.*``; ``lang``). No matplotlib and no PNG: a buggy student's feedback costs milliseconds, not a
drawing (≈ 0.4 s of every buggy submission's kernel), and the numbers stay selectable text.
"""
import html
import textwrap

import numpy as np

from .bugs import labels
from .language import WORDS, resolve

__all__ = ["ANNOTATE_MAX", "DARK", "gap", "gap_table", "likely_cause", "title_text", "title_width"]

ANNOTATE_MAX = 8  # larger matrices show colour only (the value is the cell's tooltip)
# ColorBrewer's 9-class "Reds" (what matplotlib's "Reds" colour map interpolates), 0 → the largest gap
_REDS = ("#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d", "#a50f15", "#67000d")
_GREY = "#bfbfbf"  # NaN or inf on either side
DARK = 0.6  # above this share of the largest gap the text turns white (here and in the heatmap)


def gap(finding) -> np.ndarray:
    """``|student − reference|`` as float64 [T, S]; NaN where either side is not finite.

    A stacked probe (3-D or more) gives its first matrix.
    """
    student, reference = np.asarray(finding.student, np.float64), np.asarray(finding.reference, np.float64)
    with np.errstate(all="ignore"):
        values = np.abs(student - reference)
    values[~np.isfinite(values)] = np.nan
    while values.ndim > 2:
        values = values[0]
    return np.atleast_2d(values)


def title_width(lang: str) -> int:
    """Characters per title line over the chapter's 4.6-inch heatmap (9 pt) in ``lang``: a number its catalogue
    gives, as wide as the language's characters are (26 Chinese, 52 English)."""
    return int(WORDS.say(lang, "locale.title_width"))


def likely_cause(finding, lang: str | None = None) -> str:
    """The finding's "likely cause" in ``lang``, as its message says it (its first line when it has none)."""
    lang = resolve(lang)
    lines = finding.text(lang).splitlines() or [""]
    label = labels(lang)[1]
    return next((line[len(label):] for line in lines if line.startswith(label)), lines[0])


def title_text(finding, lang: str | None = None, width: int | None = None) -> str:
    """What is drawn and at which stage, then the likely cause in words (never the bug's id: students read it),
    wrapped at ``width`` characters when given."""
    lang = resolve(lang)
    title = WORDS.say(lang, "deviation.title", stage=finding.stage, cause=likely_cause(finding, lang))
    if width is None:
        return title
    return "\n".join(part for line in title.splitlines() for part in textwrap.wrap(line, width) or [""])


def _colour(share: float) -> str:
    """The scale's colour at ``share`` ∈ [0, 1], interpolated between its two nearest stops."""
    position = min(max(share, 0.0), 1.0) * (len(_REDS) - 1)
    low = int(position)
    high = min(low + 1, len(_REDS) - 1)
    mix = position - low
    rgb = [round((1 - mix) * int(_REDS[low][k:k + 2], 16) + mix * int(_REDS[high][k:k + 2], 16)) for k in (1, 3, 5)]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _cell(value: float, top: float, annotate: bool) -> str:
    label = "NaN" if np.isnan(value) else f"{value:.2g}"
    if np.isnan(value):
        background, ink = _GREY, "black"
    else:
        share = value / top if top > 0 else 0.0
        background, ink = _colour(share), "white" if share > DARK else "black"
    style = f"background:{background};color:{ink};padding:2px 5px;text-align:center;border:1px solid #fff"
    return f'<td style="{style}" title="{label}">{label if annotate else ""}</td>'


def gap_table(finding, lang: str | None = None) -> str:
    """The finding's gap as an HTML fragment: the title lines, then one coloured cell per value."""
    lang = resolve(lang)
    values = gap(finding)
    top = float(np.nanmax(values)) if np.any(np.isfinite(values)) else 0.0
    annotate = max(values.shape) <= ANNOTATE_MAX
    head = "".join(f'<th style="padding:2px 5px">{j}</th>' for j in range(values.shape[1]))
    rows = "".join(
        f'<tr><th style="padding:2px 5px">{i}</th>' + "".join(_cell(v, top, annotate) for v in row) + "</tr>"
        for i, row in enumerate(values))
    title = "<br>".join(html.escape(line) for line in title_text(finding, lang).splitlines())
    corner, legend = WORDS.say(lang, "deviation.corner"), WORDS.say(lang, "deviation.legend", top=top)
    return (f'<div class="attn-deviation"><p style="font-size:90%">{title}</p>'
            f'<table style="border-collapse:collapse;font-size:80%">'
            f'<tr><th style="padding:2px 5px">{html.escape(corner)}</th>{head}</tr>{rows}</table>'
            f'<p style="font-size:80%">{html.escape(legend)}</p></div>')

"""The report's figures as inline SVG: score distributions, check pass rates, common mistakes.

Figures are drawn with matplotlib's object API (no pyplot state) and saved as SVG with text
as paths, so the Chinese labels (Noto Sans SC, from the course's font package, as the chapter's
own figures draw them) render from disk in any browser. Their words are in the course's language
(``lang``; their ids: ``report.figure.*`` in the catalogue).
"""
import functools
import io
import re
import unicodedata

import matplotlib
import numpy as np
import pylopdf_fonts_zh_cn
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..language import DEFAULT, WORDS

__all__ = ["svg", "score_distributions", "check_pass_rates", "common_mistakes", "wrapped"]

VISIBLE, HIDDEN, BAR = "#3b7dd8", "#e08a2c", "#5a9e6f"


def svg(fig: Figure) -> str:
    """``fig`` as an ``<svg>`` element (XML prolog dropped) for inlining in HTML."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg"):]


@functools.lru_cache(maxsize=None)
def _fonts() -> list:
    """Latin from matplotlib's default font; the CJK glyphs fall back to Noto Sans SC."""
    path = str(pylopdf_fonts_zh_cn.sans_path())
    font_manager.fontManager.addfont(path)
    return ["DejaVu Sans", font_manager.FontProperties(fname=path).get_name()]


def _figure(width: float, height: float) -> Figure:
    with matplotlib.rc_context({"font.family": _fonts()}):
        return Figure(figsize=(width, height), layout="constrained")


def _histogram(ax, scores: list, top: float, title: str, lang: str) -> None:
    step = 0.25 if top <= 12 else 1.0
    bins = np.arange(-step / 2, top + step, step)
    ax.hist(scores, bins=bins, color=BAR, edgecolor="white")
    ax.set_xlim(-step, top + step)
    ax.set_title(title, fontfamily=_fonts(), fontsize=9)
    ax.set_xlabel(WORDS.say(lang, "report.figure.score"), fontfamily=_fonts(), fontsize=8)
    ax.tick_params(labelsize=8)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of students


PANEL_INCHES, COLUMNS = (2.6, 2.5), 3  # a panel's size; panels a row: 3 × 2.6 in fit a report page (1200 px)
TITLE_COLUMNS = 30  # a panel's title wraps past this many columns (a CJK character takes two) at 9 pt
_PIECES = re.compile(r"\s+|[^\s\u2e80-\u9fff\uff00-\uffef]+|.")  # spaces, a run of Latin, one CJK character


def _columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrapped(title: str, width: int = TITLE_COLUMNS) -> str:
    """``title`` on lines of at most ``width`` columns, broken between words or CJK characters (a word longer than
    a line is cut)."""
    lines, line = [], ""
    for piece in _PIECES.findall(title):
        if piece.isspace():
            line += " " if line else ""
        elif line and _columns(line + piece) > width:
            lines.append(line.rstrip())
            line = piece
        else:
            line += piece
        while _columns(line.rstrip()) > width:  # one word wider than the panel
            cut = next(k for k in range(len(line), 0, -1) if _columns(line[:k]) <= width)
            lines.append(line[:cut])
            line = line[cut:]
    return "\n".join(lines + ([line.rstrip()] if line.strip() else []))


def score_distributions(panels: list, lang: str = DEFAULT) -> Figure:
    """One histogram per ``(title, scores, max score)``: each autograded cell and the total, :data:`COLUMNS` a row
    (the rows wrap, so the figure fits a report page), each title wrapped to its panel's width."""
    columns = min(COLUMNS, len(panels))
    rows = -(-len(panels) // columns)
    fig = _figure(PANEL_INCHES[0] * columns, PANEL_INCHES[1] * rows)
    grid = np.atleast_2d(fig.subplots(rows, columns, squeeze=False))
    for k, ax in enumerate(grid.flat):
        if k >= len(panels):
            ax.set_axis_off()
            continue
        title, scores, top = panels[k]
        title = wrapped(WORDS.say(lang, "report.figure.panel", title=title, top=format(top, "g")))
        _histogram(ax, scores, top, title, lang)
        if k % columns == 0:
            ax.set_ylabel(WORDS.say(lang, "report.figure.students"), fontfamily=_fonts(), fontsize=8)
    return fig


def _short(label: str, width: int = 48) -> str:
    """A bar's name on one line: cut with an ellipsis past ``width`` characters (the table below has it whole)."""
    return label if len(label) <= width else label[:width - 1] + "…"


def check_pass_rates(checks: list, lang: str = DEFAULT, names=None) -> Figure:
    """Horizontal bars, lowest pass rate on top; blue visible (verify), orange hidden; each bar named ``names`` (one
    per check: what it tests, in the course's language), else by its id."""
    fig = _figure(7.5, 0.6 + 0.2 * max(len(checks), 1))
    ax = fig.subplots()
    y = np.arange(len(checks))
    ax.barh(y, [100 * c.pass_rate for c in checks], color=[VISIBLE if c.visible else HIDDEN for c in checks])
    ax.set_yticks(y, [_short(name) for name in (names or [c.id for c in checks])], fontsize=7, fontfamily=_fonts())
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(WORDS.say(lang, "report.figure.pass_rate"), fontfamily=_fonts(), fontsize=9)
    return fig


def common_mistakes(mistakes: list, diagnosed: int, lang: str = DEFAULT, names=None) -> Figure:
    """Horizontal bars: how many students each mistake was diagnosed in, each named ``names`` (else its bug id)."""
    fig = _figure(7.5, 0.6 + 0.28 * max(len(mistakes), 1))
    ax = fig.subplots()
    y = np.arange(len(mistakes))
    ax.barh(y, [len(m.students) for m in mistakes], color=BAR)
    ax.set_yticks(y, [_short(name) for name in (names or [m.bug for m in mistakes])], fontsize=8, fontfamily=_fonts())
    ax.invert_yaxis()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(WORDS.say(lang, "report.figure.diagnosed", n=diagnosed), fontfamily=_fonts(), fontsize=9)
    return fig

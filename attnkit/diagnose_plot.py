"""The |student − reference| heatmap of the first deviating stage (matplotlib only here).

Shown in the chapter right after the visible verify, under the diagnosis text
(:mod:`attnkit.diagnose`): the cells that light up are where the student's output
left the reference's on the probe named in the title. Values are written into the
cells up to 8×8; NaN/inf cells are grey. A 3-D probe shows its first matrix.
The title is in the chapter's language: the stage, then the likely cause in words (the finding's
own, wrapped to the figure's width; never the bug's id); the colour bar sits beside the heatmap at
exactly its height, so it never covers the title.

Under nbgrader (:func:`attnkit.static.under_grading`) :func:`show_diagnosis` shows the same
numbers as an HTML table (:func:`attnkit.deviation.gap_table`) instead: a graded kernel cannot
keep a drawing for the next student (its cache is read-only in the sandbox), and drawing would
cost every buggy submission ≈ 0.4 s. matplotlib is imported only when something is drawn.
"""
import sys

import numpy as np
from IPython.display import HTML, display

from . import deviation
from .diagnose import diagnose, first_deviation, format_findings
from .errors import require
from .language import WORDS, resolve
from .static import under_grading

__all__ = ["plot_deviation", "plot_first_deviation", "show_diagnosis"]


def _annotate(ax, gap: np.ndarray, top: float) -> list:
    texts = []
    for (i, j), value in np.ndenumerate(gap):
        dark = np.isfinite(value) and top > 0 and value > deviation.DARK * top  # white text on dark red
        label = "NaN" if np.isnan(value) else f"{value:.2g}"
        texts.append(ax.text(j, i, label, ha="center", va="center", fontsize=8,
                             color="white" if dark else "black"))
    return texts


def plot_deviation(finding, ax=None, lang=None):
    """Draw ``|student − reference|`` for one finding into ``ax``; return the ``AxesImage``."""
    require(finding.student is not None and finding.reference is not None,
            f"finding {finding.bug!r} carries no arrays to compare (the call raised, or only a return code was wrong)")
    import matplotlib.pyplot as plt  # only when drawing: see the module docstring

    from .plotting import cjk_font_family

    ax = ax if ax is not None else plt.figure(figsize=(4.6, 4.2), layout="constrained").gca()
    gap = deviation.gap(finding)
    cmap = plt.get_cmap("Reds").with_extremes(bad="0.75")
    top = np.nanmax(gap) if np.any(np.isfinite(gap)) else 0.0
    image = ax.imshow(np.ma.masked_invalid(gap), cmap=cmap, vmin=0.0, vmax=top if top > 0 else 1.0)
    if max(gap.shape) <= deviation.ANNOTATE_MAX:
        _annotate(ax, gap, top)
    lang = resolve(lang)
    ax.set_title(deviation.title_text(finding, lang, deviation.title_width(lang)), fontsize=9,
                 fontfamily=cjk_font_family())
    ax.set_xticks(range(gap.shape[1]))
    ax.set_yticks(range(gap.shape[0]))
    ax.set_xlabel(WORDS.say(lang, "deviation.column"), fontfamily=cjk_font_family())
    ax.set_ylabel(WORDS.say(lang, "deviation.row"), fontfamily=cjk_font_family())
    # an inset follows the heatmap's aspect-adjusted box: same height, right beside it
    ax.figure.colorbar(image, cax=ax.inset_axes([1.04, 0.0, 0.05, 1.0]))
    return image


def plot_first_deviation(findings, ax=None, lang=None):
    """Heatmap of the first deviating stage, or None (nothing drawn) when there is nothing to compare."""
    finding = first_deviation(findings)
    return None if finding is None else plot_deviation(finding, ax, lang)


def show_diagnosis(scores_fn, mask_fn, softmax_fn, file=None, lang=None) -> list:
    """The notebook's one call: print the diagnosis, draw the first deviation, return the findings."""
    findings = diagnose(scores_fn, mask_fn, softmax_fn)
    print(format_findings(findings, lang), file=file or sys.stdout, flush=True)
    if under_grading():
        finding = first_deviation(findings)
        if finding is not None:
            display(HTML(deviation.gap_table(finding, lang)))
    else:
        plot_first_deviation(findings, lang=lang)
    return findings

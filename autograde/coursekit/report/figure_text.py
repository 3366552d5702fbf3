"""The report's figures in words: what each chart shows and what matters in it, from the numbers it draws.

An instructor who cannot see a chart gets the same: its sentence is the SVG's accessible name (``role="img"``,
``aria-label``: :func:`labelled`), and the numbers are tables on the page, the pass rates' and the mistakes' right
under their charts, the score distributions' here (:func:`distribution_table`). Every word is in the course's
language (the ``report.figure.*`` messages of the toolkit's catalogue). Standard library and numpy only.
"""
import html

import numpy as np

from ..language import WORDS

__all__ = ["labelled", "distributions", "distribution_table", "pass_rates", "mistakes"]


def labelled(svg: str, text: str) -> str:
    """``svg`` (an ``<svg …>`` element) as an image a screen reader names with ``text``."""
    if not svg.startswith("<svg"):
        raise ValueError(f"labelled() needs an <svg> element, got {svg[:20]!r}")
    return f'<svg role="img" aria-label="{html.escape(text)}"' + svg[len("<svg"):]


def _counts(scores: list) -> list:
    """``[(score, students)]`` for each score some student has, lowest first."""
    values, counts = np.unique(np.round(np.asarray(scores, dtype=np.float64), 2), return_counts=True)
    return [(float(v), int(n)) for v, n in zip(values, counts)]


def distributions(panels: list, lang: str) -> str:
    """The score histograms (``(title, scores, max score)`` each) in words: each panel's mean and its commonest
    score."""
    said = []
    for title, scores, top in panels:
        if not scores:
            said.append(WORDS.say(lang, "report.figure.no_scores", title=title))
            continue
        score, n = max(_counts(scores), key=lambda pair: (pair[1], -pair[0]))
        said.append(WORDS.say(lang, "report.figure.distribution", title=title, top=format(top, "g"),
                              students=len(scores), mean=format(np.mean(scores), ".2f"), score=format(score, "g"),
                              n=n))
    return WORDS.say(lang, "report.figure.distributions", panels=WORDS.say(lang, "report.figure.separator").join(said))


def distribution_table(panels: list, lang: str) -> str:
    """The histograms' numbers: per panel, how many students, the mean, and how many students got each score."""
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in (
        WORDS.say(lang, "report.figure.cell"), WORDS.say(lang, "report.figure.students"),
        WORDS.say(lang, "report.figure.mean"), WORDS.say(lang, "report.figure.counts")))
    rows = []
    for title, scores, top in panels:
        counts = "  ".join(WORDS.say(lang, "report.figure.count", score=format(s, "g"), n=n)
                           for s, n in _counts(scores))
        mean = f"{np.mean(scores):.2f}" if scores else ""
        name = html.escape(WORDS.say(lang, "report.figure.panel", title=title, top=format(top, "g")))
        rows.append(f'<tr><th scope="row">{name}</th><td class="num">{len(scores)}</td><td class="num">{mean}</td>'
                    f"<td>{html.escape(counts)}</td></tr>")
    caption = html.escape(WORDS.say(lang, "report.figure.distribution_caption"))
    return f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def pass_rates(checks: list, names: list, lang: str) -> str:
    """The pass-rate bars in words: how many checks (how many hidden), the lowest rate and the checks at it."""
    if not checks:
        return WORDS.say(lang, "report.figure.no_checks")
    low = checks[0].pass_rate  # the chart's order: lowest first
    lowest = [name for check, name in zip(checks, names) if check.pass_rate == low]
    return WORDS.say(lang, "report.figure.pass_rates", checks=len(checks), hidden=sum(not c.visible for c in checks),
                     rate=format(100 * low, ".0f"), lowest=WORDS.say(lang, "report.figure.separator").join(lowest[:3]))


def mistakes(found: list, names: list, diagnosed: int, lang: str) -> str:
    """The mistakes' bars in words: how many mistakes, the commonest and in how many students."""
    if not found:
        return WORDS.say(lang, "report.figure.no_mistakes")
    return WORDS.say(lang, "report.figure.mistakes", mistakes=len(found), first=names[0],
                     n=len(found[0].students), diagnosed=diagnosed)

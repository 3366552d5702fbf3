"""The class report's regrade requests: per question (written answer or test cell), how many were filed, are still
open, and were decided each way; and the one line ``make report`` prints about them.

The counts are :func:`coursekit.regrade_book.counts` of the gradebook, after the requests waiting in the exchange
were taken in (:func:`coursekit.regrade_book.take_in_course`), so the report counts what students filed until it
ran. A question many ask about is a question to look at again (its rubric, or how it was taught). No reason is shown
here: they are read, and answered, on the marking page.
"""
import html

from ..language import DEFAULT, WORDS, marked
from .html_page import table

__all__ = ["section", "summary_line"]

COLUMNS = (marked("report.regrades.columns.question"), marked("report.regrades.columns.filed"),
           marked("report.regrades.columns.open"), marked("report.regrades.columns.mark_changed"),
           marked("report.regrades.columns.mark_kept"))  # the section's table, by message id


def _rows(counts: dict, labels) -> list:
    return [[labels.cell(question), c["filed"], c["open"], c["changed"], c["kept"]]
            for question, c in sorted(counts.items(), key=lambda item: (-item[1]["filed"], item[0]))]


def section(counts: dict, labels, lang: str = DEFAULT) -> tuple:
    """``(heading, HTML)`` of the section (``counts``: :func:`coursekit.regrade_book.counts`)."""
    heading = WORDS.say(lang, "report.regrades.heading")
    if not counts:
        return heading, "<p>" + html.escape(WORDS.say(lang, "report.regrades.none")) + "</p>"
    rows = [[html.escape(r[0]), *r[1:]] for r in _rows(counts, labels)]
    return heading, ("<p>" + html.escape(WORDS.say(lang, "report.regrades.note")) + "</p>"
                     + table([WORDS.say(lang, column) for column in COLUMNS], rows, numeric=range(1, 5)))


def summary_line(counts: dict, labels, lang: str = DEFAULT) -> str | None:
    """The line ``make report`` prints (None when nothing was filed)."""
    if not counts:
        return None
    rows = _rows(counts, labels)
    questions = WORDS.say(lang, "locale.list_separator").join(f"{r[0]} ×{r[1]}" for r in rows)
    return WORDS.say(lang, "report.regrades.line", filed=sum(r[1] for r in rows), open=sum(r[2] for r in rows),
                     questions=questions)

"""The class report's regrade requests: per question (written answer or test cell), how many were filed, are still
open, and were decided each way; and the one line ``make report`` prints about them.

The counts are :func:`coursekit.regrade_book.counts` of the gradebook, after the requests waiting in the exchange
were taken in (:func:`coursekit.regrade_book.take_in_course`), so the report counts what students filed until it
ran. A question many ask about is a question to look at again (its rubric, or how it was taught). No reason is shown
here: they are read, and answered, on the marking page.
"""
import html

from ..language import DEFAULT
from .html_page import table

__all__ = ["TEXT", "section", "summary_line"]

# Every word of the section and the line, by the course's language: the same keys, the same placeholders.
TEXT = {
    "zh": {"heading": "复查申请", "none": "还没有学生申请复查。",
           "note": "每道题（书面题或测试单元格）收到的复查申请：已收到、待处理，以及老师复查后维持原分或改了分的份数。"
                   "理由在批改页里读和处理（按 q）。",
           "columns": ("题目", "已收到", "待处理", "改了分", "维持原分"),
           "line": "复查申请：{filed} 份，{open} 份待处理（{questions}）"},
    "en": {"heading": "Regrade requests", "none": "No student has asked for a regrade yet.",
           "note": "The regrade requests of each question (written answer or test cell): filed, still open, and "
                   "decided with the mark changed or kept. Their reasons are read and answered on the marking page "
                   "(press q).",
           "columns": ("question", "filed", "open", "mark changed", "mark kept"),
           "line": "regrade requests: {filed}, {open} open ({questions})"},
}


def _rows(counts: dict, labels) -> list:
    return [[labels.cell(question), c["filed"], c["open"], c["changed"], c["kept"]]
            for question, c in sorted(counts.items(), key=lambda item: (-item[1]["filed"], item[0]))]


def section(counts: dict, labels, lang: str = DEFAULT) -> tuple:
    """``(heading, HTML)`` of the section (``counts``: :func:`coursekit.regrade_book.counts`)."""
    text = TEXT[lang]
    if not counts:
        return text["heading"], f"<p>{html.escape(text['none'])}</p>"
    rows = [[html.escape(r[0]), *r[1:]] for r in _rows(counts, labels)]
    return text["heading"], f"<p>{html.escape(text['note'])}</p>" + table(text["columns"], rows, numeric=range(1, 5))


def summary_line(counts: dict, labels, lang: str = DEFAULT) -> str | None:
    """The line ``make report`` prints (None when nothing was filed)."""
    if not counts:
        return None
    rows = _rows(counts, labels)
    questions = ("、" if lang == "zh" else ", ").join(f"{r[0]} ×{r[1]}" for r in rows)
    return TEXT[lang]["line"].format(filed=sum(r[1] for r in rows), open=sum(r[2] for r in rows), questions=questions)

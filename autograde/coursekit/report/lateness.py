"""The class report's section on due dates: the piece of work's due date, every student's extension (who granted it,
when and why) and every late submission with its grade, the penalty taken off as every surface takes it
(:func:`coursekit.grades.lateness`). In the course's language (:data:`TEXT`), times in the course's time zone."""
import html

from ..language import DEFAULT
from .html_page import table

__all__ = ["TEXT", "section"]

TEXT = {
    "zh": {"heading": "截止时间、延期与迟交", "due": "截止时间：{due}（两个版本相同）。", "no_due": "这份作业没有截止时间。",
           "extensions": "延期（{n}）", "extension_table": ("学生", "延期到", "原因", "记录人", "记录于"),
           "late": "迟交的提交（{n}）：成绩已扣迟交分，与 nbgrader export、反馈页、LMS 相同",
           "late_table": ("学生", "版本", "提交于", "应交（含延期）", "原始分", "迟交扣分", "成绩"), "nothing": "无。"},
    "en": {"heading": "Due date, extensions and late work", "due": "Due {due} (both editions).",
           "no_due": "This assignment has no due date.", "extensions": "Extensions ({n})",
           "extension_table": ("student", "until", "reason", "granted by", "granted at"),
           "late": "Late submissions ({n}): grades with the late penalty taken off, as nbgrader export, the feedback "
                   "page and the LMS give them",
           "late_table": ("student", "edition", "submitted", "due for them", "raw", "late penalty", "grade"),
           "nothing": "None."},
}


def _number(value: float) -> str:
    return f"{value:g}"


def section(lateness: dict, lang: str = DEFAULT) -> tuple:
    """``(heading, HTML)`` of :func:`coursekit.grades.lateness`'s answer (every cell escaped: a reason is typed text)."""
    text, e = TEXT[lang], html.escape
    extensions = [(x["student"], x["until_text"], x["reason"], x["granted_by"], x["granted_at"])
                  for x in lateness["extensions"]]
    late = [(g["student"], g["assignment"], g["submitted"], g["due"], _number(g["raw"]), f"-{_number(g['penalty'])}",
             f"{_number(g['score'])} / {_number(g['max_score'])}") for g in lateness["late"]]
    parts = [f"<p>{e(text['due'].format(due=lateness['due_text']) if lateness['due'] else text['no_due'])}</p>"]
    for title, header, rows, numeric in ((text["extensions"], text["extension_table"], extensions, ()),
                                         (text["late"], text["late_table"], late, (4, 5, 6))):
        parts.append(f"<h3>{e(title.format(n=len(rows)))}</h3>")
        shown = [[e(cell) for cell in row] for row in rows]
        parts.append(table(header, shown, numeric) if rows else f"<p>{e(text['nothing'])}</p>")
    return text["heading"], "".join(parts)

"""The class report's section on due dates: the piece of work's due date, every student's extension (who granted it,
when and why) and every late submission with its grade, the penalty taken off as every surface takes it
(:func:`coursekit.grades.lateness`). In the course's language (its words: ``report.late.*`` in the
catalogue), times in the course's time zone."""
import html

from ..language import DEFAULT, WORDS, marked
from .html_page import table

__all__ = ["section"]

# the two tables' columns, by message id
EXTENSION_TABLE = (marked("report.late.extension_table.student"), marked("report.late.extension_table.until"),
                   marked("report.late.extension_table.reason"), marked("report.late.extension_table.granted_by"),
                   marked("report.late.extension_table.granted_at"))
LATE_TABLE = (marked("report.late.late_table.student"), marked("report.late.late_table.edition"),
              marked("report.late.late_table.submitted"), marked("report.late.late_table.due"),
              marked("report.late.late_table.raw"), marked("report.late.late_table.penalty"),
              marked("report.late.late_table.grade"))


def _number(value: float) -> str:
    return f"{value:g}"


def section(lateness: dict, lang: str = DEFAULT) -> tuple:
    """``(heading, HTML)`` of :func:`coursekit.grades.lateness`'s answer (every cell escaped: a reason is typed text)."""
    e = html.escape
    extensions = [(x["student"], x["until_text"], x["reason"], x["granted_by"], x["granted_at"])
                  for x in lateness["extensions"]]
    late = [(g["student"], g["assignment"], g["submitted"], g["due"], _number(g["raw"]), f"-{_number(g['penalty'])}",
             f"{_number(g['score'])} / {_number(g['max_score'])}") for g in lateness["late"]]
    due = (WORDS.say(lang, "report.late.due", due=lateness["due_text"]) if lateness["due"]
           else WORDS.say(lang, "report.late.no_due"))
    parts = [f"<p>{e(due)}</p>"]
    for title, header, rows, numeric in (
            (WORDS.say(lang, "report.late.extensions", n=len(extensions)), EXTENSION_TABLE, extensions, ()),
            (WORDS.say(lang, "report.late.late", n=len(late)), LATE_TABLE, late, (4, 5, 6))):
        parts.append(f"<h3>{e(title)}</h3>")
        shown = [[e(cell) for cell in row] for row in rows]
        parts.append(table([WORDS.say(lang, column) for column in header], shown, numeric) if rows
                     else "<p>" + e(WORDS.say(lang, "report.late.nothing")) + "</p>")
    return WORDS.say(lang, "report.late.heading"), "".join(parts)

"""The feedback page of a submission that could not be graded: what happened, in the student's words.

nbgrader writes no feedback for a notebook it could not grade (invalid JSON, a kernel that died,
a job stopped after the service's time limit): the autograded copy is removed and the gradebook
holds 0 with the reason. The student would see nothing after Fetch Feedback; this page, released
in place of nbgrader's, tells them their submission was received but not graded, why, and what to
do, in their language (the assignment's, as the course config declares it:
:attr:`coursekit.assignments.Assignment.language`, since the notebook itself may be unreadable;
the course's catalogue, ``notice.*``). The reason is the one the gradebook holds (escaped: it may quote the student's notebook).
"""
import html

from ..language import DEFAULT, WORDS

__all__ = ["notice_page", "is_notice", "NOT_GRADED"]

# On the page's <body>: the course's release_feedback reads it back and tells the student's Lab that this
# submission was not graded (coursekit/service/student_status.py), rather than a score of 0.
NOT_GRADED = 'data-not-graded="true"'

_PAGE = """<!DOCTYPE html>
<html lang="{html_lang}"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;max-width:46em;margin:2em auto;line-height:1.6}}
pre{{white-space:pre-wrap;background:#f6f6f6;padding:.8em;border-left:4px solid #c33}}</style></head>
<body {not_graded}><h1>{heading}</h1>
<p>{received}</p>
<pre>{reason}</pre>
<p>{todo}</p>
</body></html>
"""


def notice_page(assignment: str, timestamp: str, reason: str, lang: str = DEFAULT) -> str:
    """The HTML page for a submission of ``assignment`` (its title: :func:`coursekit.cell_names.assignment_title`)
    made at ``timestamp`` that was not graded, in ``lang``."""
    name = html.escape(assignment)
    return _PAGE.format(html_lang=WORDS.say(lang, "locale.html_lang"),
                        title=WORDS.say(lang, "notice.title", assignment=name),
                        heading=WORDS.say(lang, "notice.heading", assignment=name),
                        received=WORDS.say(lang, "notice.received", timestamp=html.escape(timestamp)),
                        todo=WORDS.say(lang, "notice.todo"), reason=html.escape(reason), not_graded=NOT_GRADED)


def is_notice(page: str) -> bool:
    """Is ``page`` this module's page (the reason on it is escaped: it cannot write the mark itself)?"""
    return f"<body {NOT_GRADED}>" in page

"""The marking page: the written answers marked by question, with the marking guide beside them.

An instructor's Jupyter server extension (``/marking/``, menu 批改 in JupyterLab). One question
at a time, every student's answer, similar answers grouped, keyboard only; scores and comments
are nbgrader's own (``Grade.manual_score``, ``Comment.manual_comment``) in the course's gradebook.

One concept per module: :mod:`.normalise` (what is "the same answer"), :mod:`.grouping` (identical and
near-identical groups), :mod:`.rubric` (the rubric file and its hints), :mod:`.negation` (which words of an answer
a negation turns round), :mod:`.neighbours` (how alike two answers are; what to mark first), :mod:`.suggestions`
(what the page suggests, and when Enter may save it), :mod:`.rubric_edition` (another edition's rubric, written
from the master's), :mod:`.comment` (the comment a judgement writes), :mod:`.answers` (master questions, students'
answers), :mod:`.render` (safe Markdown + MathML), :mod:`.store` (gradebook read/write), :mod:`.splits` (answers
split out of a group), :mod:`.board` (one question's view), :mod:`.judging` (a judgement saved), :mod:`.requests`
(regrade requests listed and decided), :mod:`.dates` (``make due``, ``make extend`` and the page's extension form:
a due date, an extension, the grade recomputed everywhere), :mod:`.course` (which course and gradebook),
:mod:`.handlers` (HTTP), :mod:`.extension` (the server extension), :mod:`.enable` (turning it on), ``static/`` (the
page).
"""

__all__ = ["_jupyter_server_extension_points", "_load_jupyter_server_extension"]


def _jupyter_server_extension_points():
    return [{"module": "coursekit.marking"}]


def _load_jupyter_server_extension(serverapp):
    from .extension import load

    load(serverapp)

"""The comment a judgement writes into nbgrader's ``Comment.manual_comment``, and reading it back.

The gradebook is the only store: the ticked and missed rubric points travel inside the comment,
as Markdown the student reads in the feedback (nbgrader renders comments as Markdown)::

    **得分要点**（0.5 / 1 分）
    - ✓ 点积的方差约为 head_dim，维度越大分数差距越大
    - ✗ softmax 把分数差指数放大，权重趋于 one-hot

    **评语**：第二点没有说到 softmax。

An unanswered one reads ``**未作答**：提交的仍是发布时的占位文字（或为空）。``. The comment is in the language of
the assignment's edition (its students'; ``feedback.comment_*`` in the catalogue), the rubric's points in that edition's
words. :func:`parse` reads a comment written in any language the catalogues speak, and recovers the ticks by the points'
text, so a comment typed in the formgrader, or one written before the rubric changed, keeps its text and simply shows
no ticks.
"""
import re
from dataclasses import dataclass

from ..grades import NOT_ANSWERED_MARKS
from ..language import DEFAULT, SPOKEN, WORDS

__all__ = ["Judgement", "compose", "parse"]

# the comment's headings in every language, as parse reads them
POINTS_HEADINGS = tuple(WORDS.say(lang, "feedback.comment_points") for lang in SPOKEN)
REMARK_HEADINGS = tuple(WORDS.say(lang, "feedback.comment_remark") for lang in SPOKEN)
TICK, MISS = "✓", "✗"
_POINT_LINE = re.compile(rf"^- ([{TICK}{MISS}]) (.+)$")


@dataclass(frozen=True)
class Judgement:
    ticks: tuple | None = None      # one bool per rubric point; None: no rubric points in the comment
    remark: str = ""                # the marker's own words
    unanswered: bool = False


def _number(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".")


def compose(judgement: Judgement, point_texts, score: float | None, max_score: float,
            lang: str = DEFAULT) -> str | None:
    """The Markdown comment for ``judgement`` in ``lang`` (the edition's; None when there is nothing to say)."""
    parts = []
    if judgement.unanswered:  # the class report counts such an answer as left blank too (NOT_ANSWERED_MARKS)
        parts.append(WORDS.say(lang, "feedback.comment_unanswered")
                     + WORDS.say(lang, "feedback.comment_unanswered_text"))
    elif judgement.ticks is not None and point_texts:
        got = WORDS.say(lang, "feedback.comment_score", score=_number(score), max_score=_number(max_score)) \
            if score is not None else ""
        lines = [f"- {TICK if tick else MISS} {text}" for tick, text in zip(judgement.ticks, point_texts)]
        parts.append("\n".join([WORDS.say(lang, "feedback.comment_points") + got, *lines]))
    if judgement.remark.strip():
        parts.append(WORDS.say(lang, "feedback.comment_remark") + judgement.remark.strip())
    return "\n\n".join(parts) or None


def parse(comment: str | None, point_texts) -> Judgement:
    """The judgement a comment holds; ticks only when every rubric point is found by its text."""
    text = (comment or "").strip()
    if not text:
        return Judgement()
    remark_heading = next((heading for heading in REMARK_HEADINGS if heading in text), None)
    if not (text.startswith(POINTS_HEADINGS + NOT_ANSWERED_MARKS) or remark_heading):
        return Judgement(remark=text)  # typed elsewhere (formgrader): all of it is the remark
    marks = {}
    for line in text.splitlines():
        match = _POINT_LINE.match(line.strip())
        if match:
            marks[match.group(2).strip()] = match.group(1) == TICK
    ticks = tuple(marks[t] for t in point_texts) if point_texts and all(t in marks for t in point_texts) else None
    remark = text.split(remark_heading, 1)[1].strip() if remark_heading else ""
    return Judgement(ticks, remark, text.startswith(NOT_ANSWERED_MARKS))

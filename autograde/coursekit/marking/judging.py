"""A marker's judgement, as the page sends it, turned into scores and comments and saved in one transaction.

Request shape (JSON)::

    {"question": grade_id, "students": [student], "seen": {student: token}, "texts": {student: fingerprint},
     "ticks": [bool] | null, "score": number | null, "remark": str, "unanswered": bool, "clear": bool}

With a rubric the score is computed here from ``ticks`` (Python is the source of truth; the page
shows the same sum, checked by a test); without one ``score`` is taken as sent, within
0…max. ``unanswered`` scores 0 with the "not answered" reason; ``clear`` removes the score and
the comment (the answer is unmarked again).

A mark is given for the text its marker read: ``texts`` holds the fingerprint of each answer as the page showed it
(:func:`.answers.text_fingerprint`; the board sends them), and a judgement naming an answer that is another text now
(the student submitted again since the page loaded it) is refused whole (:func:`check_texts`): nothing is saved, and
the page shows the new text to mark.
"""
import threading
from dataclasses import dataclass, field, replace

from ..language import DEFAULT, WORDS, Refusal, marked
from .comment import Judgement, compose
from .rubric import score_of
from .store import write_judgement

__all__ = ["AnswerChanged", "JudgementError", "Request", "Ordering", "check_texts", "parse_request",
           "apply"]


class JudgementError(Refusal):
    """A request the page should never send (names the field and what was expected), said in the page's language."""


class AnswerChanged(Exception):
    """A judgement made on a text that is no longer the answer (:attr:`students`: whose)."""

    def __init__(self, students):
        self.students = tuple(students)
        super().__init__(self.message("en"))

    def message(self, lang: str) -> str:
        """What the marker reads (the page shows the server's message), in the page's language."""
        students = WORDS.say(lang, "locale.list_separator").join(self.students)
        return WORDS.say(lang, "marking.answer_changed", students=students)


@dataclass(frozen=True)
class Request:
    question: str
    students: tuple
    seen: dict
    judgement: Judgement
    score: float | None
    clear: bool = False
    page: str = ""                  # the page that sent it (random per page load) …
    seq: int = 0                    # … and its running number there: later judgements win
    texts: dict = field(default_factory=dict)   # {student: fingerprint of the answer's text the marker read}


def _field(body: dict, name: str, kinds, default=None):
    value = body.get(name, default)
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        expected = " | ".join("null" if k is type(None) else k.__name__ for k in kinds)
        raise JudgementError(marked("refused.field"), field=name, expected=expected, value=value)
    return value


def parse_request(body) -> Request:
    if not isinstance(body, dict):
        raise JudgementError(marked("refused.not_object"), kind=type(body).__name__)
    students = _field(body, "students", list)
    if not students or not all(isinstance(s, str) for s in students):
        raise JudgementError(marked("refused.no_students"))
    ticks = _field(body, "ticks", (list, type(None)))
    if ticks is not None and not all(isinstance(t, bool) for t in ticks):
        raise JudgementError(marked("refused.ticks"), ticks=ticks)
    score = _field(body, "score", (int, float, type(None)))
    judgement = Judgement(None if ticks is None else tuple(ticks), _field(body, "remark", str, ""),
                          _field(body, "unanswered", bool, False))
    return Request(_field(body, "question", str), tuple(students), dict(_field(body, "seen", dict, {})), judgement,
                   None if score is None else float(score), _field(body, "clear", bool, False),
                   _field(body, "page", str, ""), _field(body, "seq", int, 0), dict(_field(body, "texts", dict, {})))


def check_texts(request: Request, current: dict) -> None:
    """Raise :class:`AnswerChanged` naming every student of ``request`` whose answer's fingerprint now (``current``,
    {student: fingerprint}) is not the one the marker read (a judgement without one included)."""
    changed = [s for s in request.students if request.texts.get(s) != current.get(s)]
    if changed:
        raise AnswerChanged(changed)


class Ordering:
    """A page's judgements take effect in the order the marker made them, whatever order they arrive in.

    A page sends one judgement at a time, but when its tab closes it sends all it still holds at
    once, and those may overtake the one in flight. Each carries ``(page, seq)``; an answer already
    given a later judgement by the same page is left out of an earlier one.
    """

    def __init__(self):
        self._last, self._lock = {}, threading.Lock()   # {(page, student): seq}; one lock: writes are quick

    def apply(self, engine, assignment: str, question, rubric, request: Request, lang: str = DEFAULT):
        with self._lock:
            if request.page:
                stale = {s for s in request.students if self._last.get((request.page, s), -1) > request.seq}
                request = replace(request, students=tuple(s for s in request.students if s not in stale))
            saved = apply(engine, assignment, question, rubric, request, lang)
            for student in request.students:
                self._last[(request.page, student)] = request.seq
            return saved


def _score(request: Request, rubric, max_score: float) -> float | None:
    judgement = request.judgement
    if judgement.unanswered:
        return 0.0
    if judgement.ticks is not None:
        if rubric is None:
            raise JudgementError(marked("refused.no_rubric"), question=request.question)
        return score_of(rubric, judgement.ticks, max_score)
    if request.score is not None and not 0 <= request.score <= max_score:
        raise JudgementError(marked("refused.score"), score=f"{request.score:g}", most=f"{max_score:g}",
                             question=request.question)
    return request.score


def apply(engine, assignment: str, question, rubric, request: Request, lang: str = DEFAULT):
    """Save ``request`` for every student it names, its comment in ``lang`` (the edition's); :class:`.store.Saved`."""
    if request.clear:
        score, text = None, None
    else:
        score = _score(request, rubric, question.max_score)
        texts = [p.text for p in rubric.points] if rubric else []
        text = compose(request.judgement, texts, score, question.max_score, lang)
    changes = {student: (score, text) for student in request.students}
    return write_judgement(engine, assignment, question.notebook, question.grade_id, changes, request.seen)

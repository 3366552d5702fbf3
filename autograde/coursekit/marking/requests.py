"""The marking page's side of regrade requests: the list it shows, and a TA's decision with what follows it.

Requests are taken in from the exchange and kept in the gradebook by :mod:`coursekit.regrade_book`. The page lists
an assignment's requests, open ones first (:func:`board_requests`), each with the student's answer's question, the
reason (the student's text: the page shows it as text, never as HTML), the mark when filed and now. A request never
changes a mark: the TA re-marks with the page's keys (a written answer) or gives a test cell a score in the decision
(nbgrader's manual score, as the formgrader would), then records the decision with a comment (:func:`decide`).

What follows a decision, for each student it concerns: the answer published where only their request's id finds it
(:func:`coursekit.regrades.publish_status`), their feedback generated and released again by nbgrader (so their
Lab says so and an open feedback tab shows the new score: :mod:`coursekit.plugins.release_feedback`), and their
score marked for the LMS (:func:`coursekit.lms.outbox.mark`). The feedback runs in the background: the page does not
wait for nbgrader.
"""
import logging
import os
import subprocess
import sys
import threading

from .. import regrade_book as book
from ..language import Refusal, marked
from ..lms import outbox as lms_outbox
from ..regrades import publish_status
from ..settings import course_settings
from .store import write_judgement

__all__ = ["COMMENT_MOST", "DecisionError", "board_requests", "decide", "refresh_feedback"]

COMMENT_MOST = 2000  # characters of a decision's comment
log = logging.getLogger(__name__)


class DecisionError(Refusal):
    """A decision the page should never send (names what was expected), said in the page's language."""


def _iso(moment) -> str | None:
    return moment.isoformat(" ", "minutes") + " UTC" if moment else None


def board_requests(course, assignment: str, names: dict, manual: set) -> list:
    """The assignment's requests as the page draws them, open first (``names``: {grade id: name}; ``manual``: the
    grade ids the page marks; any other is a test cell)."""
    from sqlalchemy.orm import Session
    records = book.requests(course.engine, assignment)
    with Session(course.engine) as db:
        now = {r.id: book.cell_score(db, assignment, r.student, r.question) for r in records}
    return [{"id": r.id, "student": r.student, "question": r.question, "name": names.get(r.question, r.question),
             "kind": "answer" if r.question in manual else "test", "reason": r.reason, "filed": _iso(r.filed_at),
             "state": r.state, "score_then": r.score_then, "score_now": now[r.id], "comment": r.comment,
             "decided_by": r.decided_by, "decided": _iso(r.decided_at), "score_after": r.score_after}
            for r in records]


def decide(course, assignment: str, body, by: str, questions: dict, feedback=None) -> list:
    """Record a TA's decision (``body``: ``{"ids": [...], "comment": str, "score": number | null}``) on open requests
    of ``assignment``; a score is given to test cells only (``questions``: {grade id: Question} of the cells the page
    marks). The decided records; then the students' answers, feedback and LMS follow (module docstring)."""
    if not isinstance(body, dict) or not isinstance(body.get("ids"), list) or not body["ids"] or \
            not all(isinstance(i, str) for i in body["ids"]) or len(body["ids"]) > 500:
        raise DecisionError(marked("refused.decision"))
    comment, score = body.get("comment", ""), body.get("score")
    if not isinstance(comment, str) or len(comment) > COMMENT_MOST:
        raise DecisionError(marked("refused.decision_comment"), most=COMMENT_MOST)
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise DecisionError(marked("refused.decision_score"), score=score)
    chosen = [r for r in book.requests(course.engine, assignment) if r.id in set(body["ids"]) and r.open]
    if score is not None:
        _score_tests(course, assignment, chosen, float(score), questions)
    decided = book.decide(course.engine, [r.id for r in chosen], comment.strip(), by)
    _follow(course, assignment, decided, feedback or refresh_feedback)
    return decided


def _score_tests(course, assignment: str, chosen: list, score: float, questions: dict) -> None:
    """A test cell's new score, nbgrader's manual score over the automatic one (the TA's act, before the decision)."""
    from nbgrader.api import GradeCell, Notebook
    from sqlalchemy.orm import Session
    if any(r.question in questions for r in chosen):
        raise DecisionError(marked("refused.answer_by_score"))
    for record in chosen:
        with Session(course.engine) as db:
            most = (db.query(GradeCell.max_score).join(Notebook, GradeCell.notebook_id == Notebook.id)
                    .filter(GradeCell.name == record.question, Notebook.name == record.notebook).scalar())
        if most is None or not 0 <= score <= float(most):
            raise DecisionError(marked("refused.score"), score=f"{score:g}",
                                most="?" if most is None else f"{float(most):g}", question=record.question)
        write_judgement(course.engine, assignment, record.notebook, record.question, {record.student: (score, None)},
                        {})


def _follow(course, assignment: str, decided: list, feedback) -> None:
    settings = course_settings(course.folder)
    for record in decided:
        if settings.exchange:
            publish_status(settings.exchange, settings.course_id, record.id,
                           {"state": record.state, "comment": record.comment or "", "question": record.question,
                            "score_then": record.score_then, "score_after": record.score_after,
                            "decided": _iso(record.decided_at)})
    students = sorted({r.student for r in decided})
    if students:
        lms_outbox.mark(course.folder, assignment, students, "a regrade request decided")
        threading.Thread(target=feedback, args=(course.folder, assignment, students), name="regrade-feedback",
                         daemon=True).start()


def refresh_feedback(folder, assignment: str, students) -> bool:
    """nbgrader's ``generate_feedback`` and the course's ``release_feedback`` for ``students``, in the course
    folder, as the instructor would type them; False (logged) when nbgrader failed."""
    done = True
    for student in students:
        for step in (["generate_feedback", "--force"], ["release_feedback"]):
            command = [sys.executable, "-m", "nbgrader", step[0], assignment, "--student", student, *step[1:]]
            finished = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600,
                                      env=dict(os.environ))
            if finished.returncode != 0:
                log.warning("regrade decided, but nbgrader %s failed for %s: %s", step[0], student,
                            finished.stderr[-2000:])
                done = False
                break
    return done

"""One graded test cell's verdict as an :class:`coursekit.record.CellRecord`, and the lines the feedback shows.

The grader process builds it with its own attnkit, which no student code ever touched. Everything it
says is in the notebook's language (``lang``: the edition's; the grader's catalogue): the hidden checks' lines,
the score's arithmetic and the reason for a 0, which the record keeps too. :func:`text` is what the
feedback shows under the cell's visible lines. The grading process writes the record into the cell's
outputs for the class report; points come only from the gradebook.
"""
from attnkit import guard
from coursekit import record

from .words import WORDS, marked

__all__ = ["REASONS", "failed", "graded", "reason", "text"]

# Why a cell scored 0, by what the grader found (the verdict's other sentences: outcome.* in the grader's catalogue).
REASONS = {"timeout": marked("outcome.timeout"), "hung": marked("outcome.hung"), "error": marked("outcome.error"),
           "limit": marked("outcome.limit"), "delegated": marked("outcome.delegated")}


def reason(key: str, lang: str, **values) -> str:
    """The reason for a 0 (``timeout``, ``hung``, ``error``, ``limit``, ``delegated``) in ``lang``; the probe's codes
    in ``values["codes"]`` are said in ``lang`` too (:func:`attnkit.guard.describe`)."""
    if "codes" in values:
        separator = WORDS.say(lang, "outcome.separator")
        values["what"] = separator.join(guard.describe(code, lang) for code in sorted(values.pop("codes")))
    return WORDS.say(lang, REASONS[key], **values)


def failed(test, status: str, why: str):
    """0 points for ``test`` (an ``attnkit.gradecell.TestCell``, or only its number when unknown); ``why`` from
    :func:`reason`."""
    if isinstance(test, int):
        return record.CellRecord(f"test{test}", test, 0.0, 0.0, status, why)
    return record.CellRecord(test.grade_id, test.number, test.points, 0.0, status, why)


def graded(test, visible: list, hidden: list, forbidden: list, findings: list, lang: str):
    """The record of a cell whose checks all ran: ``visible`` verify checks, ``hidden`` (check, passed) pairs,
    ``forbidden`` the probe's codes, ``findings`` the diagnosis's; every text in ``lang``."""
    checks = tuple([record.Check(f"verify.{c.number}", True, c.message, bool(c.passed)) for c in visible]
                   + [record.Check(h.id, False, h.text(lang), bool(ok)) for h, ok in hidden])
    found = tuple(record.FindingRecord(f.stage, f.bug, f.probe, f.text(lang)) for f in findings)
    if forbidden:
        return record.CellRecord(test.grade_id, test.number, test.points, 0.0, record.DELEGATED,
                                 reason("delegated", lang, codes=forbidden), checks, found)
    passed = sum(check.passed for check in checks)
    return record.CellRecord(test.grade_id, test.number, test.points, test.points * passed / len(checks),
                             record.GRADED, "", checks, found)


def text(cell, lang: str) -> str:
    """The hidden checks, then the score's arithmetic or the reason for 0, in ``lang``."""
    lines = []
    hidden = [check for check in cell.checks if not check.visible]
    if hidden:
        lines.append(WORDS.say(lang, "outcome.hidden"))
        lines += [WORDS.say(lang, "outcome.hidden_line", mark="PASS" if check.passed else "FAIL", n=i,
                            description=check.description) for i, check in enumerate(hidden, 1)]
    if cell.status != record.GRADED:
        lines.append("\n" + cell.reason)
    else:
        lines.append(WORDS.say(lang, "outcome.score", points=cell.points, passed=cell.passed, total=len(cell.checks),
                               score=cell.score))
    return "\n".join(lines)

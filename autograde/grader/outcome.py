"""One graded test cell's verdict as an :class:`coursekit.record.CellRecord`, and the lines the feedback shows.

The grader process builds it with its own attnkit, which no student code ever touched. Everything it
says is in the notebook's language (``lang``: the edition's, :data:`TEXT`): the hidden checks' lines,
the score's arithmetic and the reason for a 0, which the record keeps too. :func:`text` is what the
feedback shows under the cell's visible lines. The grading process writes the record into the cell's
outputs for the class report; points come only from the gradebook.
"""
from attnkit import guard
from coursekit import record
from coursekit.language import marked

from .words import WORDS

__all__ = ["TEXT", "failed", "graded", "reason", "text", "practice", "practice_text"]

# Every sentence of the verdict, by language: the same keys, the same placeholders.
TEXT = {
    "zh": {
        "hidden": "\n评分时追加的隐藏检查：",
        "hidden_line": "  [{mark}] 隐藏检查 {n}: {description}",
        "score": "\n本项得分 = {points:g} × {passed}/{total} = {score:.4g}",
        "timeout": "运行超时被中断（可能有死循环），本项记 0 分。",
        "hung": "这个函数在前面的单元格里运行超时，评分时不再调用，本项记 0 分。",
        "error": "评分中断（{name}），本项记 0 分。",
        "limit": "{what}，本项记 0 分。",
        "delegated": "检测到调用 attnkit 的参考实现或启动子进程（{what}），本项记 0 分。",
        "separator": "；",
    },
    "en": {
        "hidden": "\nHidden checks added at grading:",
        "hidden_line": "  [{mark}] hidden check {n}: {description}",
        "score": "\nScore for this cell = {points:g} × {passed}/{total} = {score:.4g}",
        "timeout": "Interrupted when it ran out of time (an endless loop?): 0 points for this cell.",
        "hung": "This function ran out of time in an earlier cell and is not called again while grading: "
                "0 points for this cell.",
        "error": "Grading was interrupted ({name}): 0 points for this cell.",
        "limit": "Over a limit of grading: the function {what}; 0 points for this cell.",
        "delegated": "Your code called attnkit's reference implementation or started a process ({what}): "
                     "0 points for this cell.",
        "separator": "; ",
    },
}


def reason(key: str, lang: str, **values) -> str:
    """The reason for a 0 (``timeout``, ``hung``, ``error``, ``limit``, ``delegated``) in ``lang``; the probe's codes
    in ``values["codes"]`` are said in ``lang`` too (:func:`attnkit.guard.describe`)."""
    words = TEXT[lang]
    if "codes" in values:
        values["what"] = words["separator"].join(guard.describe(code, lang) for code in sorted(values.pop("codes")))
    return words[key].format(**values)


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
    words, lines = TEXT[lang], []
    hidden = [check for check in cell.checks if not check.visible]
    if hidden:
        lines.append(words["hidden"])
        lines += [words["hidden_line"].format(mark="PASS" if check.passed else "FAIL", n=i,
                                              description=check.description) for i, check in enumerate(hidden, 1)]
    if cell.status != record.GRADED:
        lines.append("\n" + cell.reason)
    else:
        lines.append(words["score"].format(points=cell.points, passed=cell.passed, total=len(cell.checks),
                                           score=cell.score))
    return "\n".join(lines)


def practice(exercise, tried: bool, results: list, forbidden: list, lang: str):
    """The record of a practice exercise (points 0, score 0, whatever it found): its hidden checks, ``results``
    (check, passed) pairs; none and a reason when the function was not ``tried``; delegated as a test cell is."""
    checks = tuple(record.Check(h.id, False, h.text(lang), bool(ok)) for h, ok in results)
    if forbidden:
        return record.CellRecord(exercise.grade_id, exercise.number, 0.0, 0.0, record.DELEGATED,
                                 reason("delegated", lang, codes=forbidden), checks)
    why = "" if tried else WORDS.say(lang, "practice.untried", function=exercise.function)
    return record.CellRecord(exercise.grade_id, exercise.number, 0.0, 0.0, record.GRADED, why, checks)


def practice_text(exercise, cell, lang: str) -> str:
    """What a practice exercise's test cell shows after grading: each hidden check passed or failed and the
    outcome (passed, not passed, not tried), always saying it counts in no score."""
    lines = [WORDS.say(lang, "practice.heading", n=exercise.number)]
    if cell.status != record.GRADED or not cell.checks:
        return "\n".join([*lines, cell.reason])
    lines += [WORDS.say(lang, "practice.check_line", mark="PASS" if check.passed else "FAIL", n=i,
                        description=check.description) for i, check in enumerate(cell.checks, 1)]
    passed = all(check.passed for check in cell.checks)
    lines.append(WORDS.say(lang, marked("practice.passed") if passed else marked("practice.not_passed")))
    return "\n".join(lines)

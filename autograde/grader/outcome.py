"""One graded test cell's verdict as an :class:`coursekit.record.CellRecord`, and the lines the feedback shows.

The grader process builds it with its own attnkit, which no student code ever touched. :func:`text` is
what the feedback shows under the cell's visible lines (Chinese). The grading process writes the record
into the cell's outputs for the class report; points come only from the gradebook.
"""
from coursekit import record

__all__ = ["failed", "graded", "text"]


def failed(test, status: str, reason: str):
    """0 points for ``test`` (an ``attnkit.gradecell.TestCell``, or only its number when unknown)."""
    if isinstance(test, int):
        return record.CellRecord(f"test{test}", test, 0.0, 0.0, status, reason)
    return record.CellRecord(test.grade_id, test.number, test.points, 0.0, status, reason)


def graded(test, visible: list, hidden: list, forbidden: list, findings: list):
    """The record of a cell whose checks all ran: ``visible`` verify checks, ``hidden`` (check, passed) pairs."""
    checks = tuple([record.Check(f"verify.{c.number}", True, c.message, bool(c.passed)) for c in visible]
                   + [record.Check(h.id, False, h.description, bool(ok)) for h, ok in hidden])
    found = tuple(record.FindingRecord(f.stage, f.bug, f.probe, f.message) for f in findings)
    if forbidden:
        reason = "检测到调用 attnkit 的参考实现或启动子进程（" + "；".join(forbidden) + "），本项记 0 分。"
        return record.CellRecord(test.grade_id, test.number, test.points, 0.0, record.DELEGATED, reason,
                                 checks, found)
    passed = sum(check.passed for check in checks)
    return record.CellRecord(test.grade_id, test.number, test.points, test.points * passed / len(checks),
                             record.GRADED, "", checks, found)


def text(cell) -> str:
    """The hidden checks, then the score's arithmetic or the reason for 0."""
    lines = []
    hidden = [check for check in cell.checks if not check.visible]
    if hidden:
        lines.append("\n评分时追加的隐藏检查：")
        lines += [f"  [{'PASS' if check.passed else 'FAIL'}] 隐藏检查 {i}: {check.description}"
                  for i, check in enumerate(hidden, 1)]
    if cell.status != "graded":
        lines.append("\n" + cell.reason)
    else:
        lines.append(f"\n本项得分 = {cell.points:g} × {cell.passed}/{len(cell.checks)} = {cell.score:.4g}")
    return "\n".join(lines)

"""One graded test cell's result: status, every check, the diagnosis, the score and its texts.

:meth:`Outcome.text` is what the feedback shows under the cell's visible lines (Chinese);
:meth:`Outcome.payload` is the machine-readable record (MIME type :data:`MIME`) that the
class report reads from the autograded notebook. Points still come only from the gradebook.
"""
from dataclasses import dataclass, field

__all__ = ["MIME", "SCHEMA", "Outcome"]

MIME = "application/vnd.attnkit.grading+json"
SCHEMA = 1


@dataclass(frozen=True)
class Outcome:
    number: int
    grade_id: str
    points: float
    status: str                      # graded | tampered | delegated | timeout | error
    score: float
    reason: str = ""
    checks: list = field(default_factory=list)    # dicts: id, visible, description, passed
    findings: list = field(default_factory=list)  # dicts: stage, bug, probe, message

    @classmethod
    def failed(cls, test, status: str, reason: str) -> "Outcome":
        """0 points for ``test`` (an ``attnkit.gradecell.TestCell``, or only its number when unknown)."""
        if isinstance(test, int):
            return cls(test, f"test{test}", 0.0, status, 0.0, reason)
        return cls(test.number, test.grade_id, test.points, status, 0.0, reason)

    @classmethod
    def graded(cls, test, visible: list, hidden: list, forbidden: list, findings: list) -> "Outcome":
        rows = [{"id": f"verify.{c.number}", "visible": True, "description": c.message, "passed": bool(c.passed)}
                for c in visible]
        rows += [{"id": h.id, "visible": False, "description": h.description, "passed": bool(ok)} for h, ok in hidden]
        found = [{"stage": f.stage, "bug": f.bug, "probe": f.probe, "message": f.message} for f in findings]
        if forbidden:
            reason = "检测到调用 attnkit 的参考实现或启动子进程（" + "；".join(forbidden) + "），本项记 0 分。"
            return cls(test.number, test.grade_id, test.points, "delegated", 0.0, reason, rows, found)
        passed = sum(row["passed"] for row in rows)
        return cls(test.number, test.grade_id, test.points, "graded", test.points * passed / len(rows), "", rows, found)

    def text(self) -> str:
        lines = []
        hidden = [row for row in self.checks if not row["visible"]]
        if hidden:
            lines.append("\n评分时追加的隐藏检查：")
            lines += [f"  [{'PASS' if row['passed'] else 'FAIL'}] 隐藏检查 {i}: {row['description']}"
                      for i, row in enumerate(hidden, 1)]
        if self.status != "graded":
            lines.append("\n" + self.reason)
        else:
            passed = sum(row["passed"] for row in self.checks)
            lines.append(f"\n本项得分 = {self.points:g} × {passed}/{len(self.checks)} = {self.score:.4g}")
        return "\n".join(lines)

    def payload(self) -> dict:
        return {"schema": SCHEMA, "grade_id": self.grade_id, "test": self.number, "points": self.points,
                "score": self.score, "status": self.status, "reason": self.reason,
                "checks": self.checks, "findings": self.findings}

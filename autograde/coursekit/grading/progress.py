"""What a class grading run shows: one progress line per graded student and a closing summary.

Pure bookkeeping (no nbgrader, no processes), so it is unit-tested with a fake clock. Everything
``make grade`` says is in the course's language (``c.CourseKit.language``, Chinese unless the
config says otherwise): :data:`TEXT`, one table, the same keys and placeholders in each language.
What a student had a hand in (their id, a reason quoting their notebook's error, a note) is printed with
its control characters escaped (:mod:`coursekit.printable`).
"""
import dataclasses
import time

from ..language import DEFAULT
from ..printable import printable
from ..settings import FLOOR_TIMEOUTS, MULTIPLE

__all__ = ["StudentResult", "Progress", "TEXT", "format_duration"]

TEXT = {
    "zh": {
        "header": "{assignment}：评分 {count} 名学生{shard}，{workers} 个并行进程，成绩写入 {gradebook}，{sandbox}；"
                  "nbgrader 的日志：{logs}/",
        "shard": "（分片 {shard}）", "sandboxed": "每个内核都在沙箱里运行", "unsandboxed": "没有沙箱（WITHOUT A SANDBOX）",
        "nothing": "{assignment}：没有要评分的学生：{scope}提交了的学生都已评分（FORCE=1 会全部重评）。",
        "whole_class": "", "this_shard": "分片 {shard} 里",
        "nothing_collected": "{assignments}：还没有要评分的提交（{folder}/ 里还没有）。{how}",
        "collect": "先收取学生的提交：{commands}（或在 Formgrader 里点 Collect），再运行 `make grade`。",
        "service_collects": "这门课的评分服务正在运行：学生一提交，它就收取、评分并发布反馈（`make service-status` 列出每一份）；"
                            "`make grade` 只评它还没评的。",
        "and": "、",
        "not_generated": "成绩册 {gradebook} 里没有 {assignment}：先在 {course} 里运行 "
                         "`nbgrader generate_assignment {assignment}`",
        "line": "[{done}/{total}] {mark} {student}（{seconds:.1f} 秒）· 已失败 {failed} · 预计还需 {eta}",
        "ok": "完成", "FAILED": "失败",
        "Done": "完成", "Interrupted": "已中断", "STOPPED": "已停止",
        "summary": "{head}：{graded} 名已评分，{failed} 名失败，{missing} 名未评分，共 {total} 名，用时 {elapsed}{per}",
        "per": "，每名 {seconds:.2f} 秒",
        "failed_line": "  失败   {student}：{reason}", "note_line": "  注意   {student}：{note}",
        "kept": "在它之前评分的 {count} 名学生保留成绩；修好之后再运行 `make grade`，只评其余的学生（不会重复评分）。",
        "again": "再运行一次 `make grade`，只评失败的和还没评的学生。",
        "stopping": "Ctrl-C：正在停止评分进程和它们的内核……",
        "changed": "改动了测试单元格 {grade_id}（评分用的是发布时的单元格）",
        "tampered": "篡改了测试单元格 {grade_ids}：内核显示的结果与评分器的不同（记录的是评分器的结果）",
        "limit": "{grade_id} 超过了评分沙箱的限制：{reason}",
        "remark": "书面题 {grade_id} 批改之后又改过：之前的分数和评语已清除，需要重新批改",
        "unreadable": "{name} 读不回来：{error}",
        "over_budget": "  超时   {students}：每名学生最多 {seconds:g} 秒（{why}），超过即停止、记 0 分",
        "budget_config": "c.CourseKit.student_seconds 设定", "budget_canary": "发布版评分用时 {canary:.2f} 秒的 {times} 倍",
        "budget_floor": "{cells} 个单元格超时，每个 {timeout:g} 秒",
        "grades": "{assignment} 的成绩（与 nbgrader export 相同，已扣迟交分）：{count} 名，平均 {mean:.2f} / {max_score:g} 分{late}",
        "late": "；{count} 名迟交被扣分，共扣 {points:g} 分", "no_grades": "{assignment}：成绩册里还没有成绩",
    },
    "en": {
        "header": "{assignment}: grading {count} students{shard} with {workers} workers into {gradebook}, {sandbox}; "
                  "nbgrader's logs: {logs}/",
        "shard": " (shard {shard})", "sandboxed": "each kernel in a sandbox", "unsandboxed": "WITHOUT A SANDBOX",
        "nothing": "{assignment}: nothing to grade: every submitted student{scope} is graded (FORCE=1 grades them "
                   "again).",
        "whole_class": "", "this_shard": " of shard {shard}",
        "nothing_collected": "{assignments}: nothing to grade yet: no submission has been collected into {folder}/. "
                             "{how}",
        "collect": "Collect the students' submissions first: {commands} (or Collect in the Formgrader), then run "
                   "`make grade`.",
        "service_collects": "The course's grading service is running: it collects, grades and releases the feedback of "
                            "each submission as it arrives (`make service-status` lists them); `make grade` grades only "
                            "what it has not.",
        "and": ", ",
        "not_generated": "{assignment} is not in the gradebook {gradebook}: run "
                         "`nbgrader generate_assignment {assignment}` in {course} first",
        "line": "[{done}/{total}] {mark} {student} ({seconds:.1f} s) · failed so far: {failed} · ETA {eta}",
        "ok": "ok", "FAILED": "FAILED",
        "Done": "Done", "Interrupted": "Interrupted", "STOPPED": "STOPPED",
        "summary": "{head}: {graded} graded, {failed} failed, {missing} not graded, of {total} in {elapsed}{per}",
        "per": ", {seconds:.2f} s per student",
        "failed_line": "  FAILED {student}: {reason}", "note_line": "  NOTE   {student}: {note}",
        "kept": "The {count} students graded before it keep their grades; after the repair, `make grade` grades the "
                "others (nobody twice).",
        "again": "Run `make grade` again to grade the failed and the missing students only.",
        "stopping": "Ctrl-C: stopping the workers and their kernels …",
        "changed": "changed test cell {grade_id} (the released cell was graded)",
        "tampered": "tampered test cells {grade_ids}: its kernel showed another result than the grader's "
                    "(the grader's was recorded)",
        "limit": "{grade_id} over a sandbox limit: {reason}",
        "remark": "written answer {grade_id} changed since it was marked: the earlier mark and comment were cleared, "
                  "mark it again",
        "unreadable": "{name} could not be read back: {error}",
        "over_budget": "  OVER TIME {students}: at most {seconds:g} s per student ({why}); stopped there and scored 0",
        "budget_config": "c.CourseKit.student_seconds", "budget_canary": "{times} × the release's {canary:.2f} s of grading",
        "budget_floor": "{cells} cell timeouts of {timeout:g} s",
        "grades": "{assignment} grades (as nbgrader export gives them, late penalties taken off): {count} students, mean "
                  "{mean:.2f} / {max_score:g}{late}",
        "late": "; {count} late and penalised, {points:g} points in all", "no_grades": "{assignment}: no grades in the gradebook yet",
    },
}


@dataclasses.dataclass
class StudentResult:
    """How grading one student went, as a worker reports it."""
    student: str
    ok: bool
    reason: str = ""      # why it failed (the gradebook's comment, or nbgrader's error); "" when ok
    seconds: float = 0.0  # wall time in the worker
    worker: int = 0
    timings: dict = dataclasses.field(default_factory=dict)  # "kernel", "cells" (the notebook says), "*_cpu" (.worker)
    notes: list = dataclasses.field(default_factory=list)    # graded, but worth the instructor's eye (one line each)
    over_budget: bool = False  # stopped at one student's time (Progress.budget), not graded


def format_duration(seconds: float) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"``; unknown (None) -> ``"?"``."""
    if seconds is None:
        return "?"
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts the results of ``total`` students; ETA from the wall time per student so far; says it in ``lang``."""

    INTERRUPTED = "interrupted"  # what stopped a run early: this, or the one line of a fault of the machine

    def __init__(self, total: int, clock=time.monotonic, lang: str = DEFAULT):
        self.total, self.clock, self.text = total, clock, TEXT[lang]
        self.start = clock()
        self.results = []
        self.budget = None  # one student's time (coursekit.canary.Budget), said when someone went over it

    @property
    def failed(self):
        return [o for o in self.results if not o.ok]

    def record(self, result: StudentResult) -> str:
        """Add ``result``; the progress line to print for it."""
        self.results.append(result)
        return self.line(result)

    def eta(self):
        """Seconds until every student is graded at the pace so far; None before the first result."""
        done = len(self.results)
        if not done:
            return None
        return (self.clock() - self.start) / done * (self.total - done)

    def line(self, last: StudentResult) -> str:
        marks = (self.text["ok"], self.text["FAILED"])
        width = max(len(mark) for mark in marks)
        return self.text["line"].format(done=f"{len(self.results):>{len(str(self.total))}}", total=self.total,
                                        mark=marks[not last.ok].ljust(width), student=printable(last.student, True),
                                        seconds=last.seconds, failed=len(self.failed), eta=format_duration(self.eta()))

    def _budget_source(self) -> str:
        """Where one student's time came from (:class:`coursekit.canary.Budget`), in words."""
        budget = self.budget
        return self.text[f"budget_{budget.source}"].format(canary=budget.canary or 0.0, times=MULTIPLE,
                                                            cells=FLOOR_TIMEOUTS, timeout=budget.cell_timeout)

    def summary(self, stopped: str = "") -> str:
        """The closing screen: counts, wall time, every failed student with the reason, and why it stopped early
        (``stopped``: :data:`INTERRUPTED`, or the one line of a fault of the machine)."""
        text, elapsed = self.text, self.clock() - self.start
        per = text["per"].format(seconds=elapsed / len(self.results)) if self.results else ""
        head = text["Done" if not stopped else ("Interrupted" if stopped == self.INTERRUPTED else "STOPPED")]
        lines = [text["summary"].format(head=head, graded=len(self.results) - len(self.failed), failed=len(self.failed),
                                        missing=self.total - len(self.results), total=self.total,
                                        elapsed=format_duration(elapsed), per=per)]
        lines += [text["failed_line"].format(student=printable(o.student, True), reason=printable(o.reason, True))
                  for o in self.failed]
        lines += [text["note_line"].format(student=printable(o.student, True), note=printable(note, True))
                  for o in self.results for note in o.notes]
        over = [printable(o.student, True) for o in self.results if o.over_budget]
        if over and self.budget is not None:
            lines.append(text["over_budget"].format(students=", ".join(over), seconds=self.budget.seconds,
                                                    why=self._budget_source()))
        if stopped and stopped != self.INTERRUPTED:
            lines.append(f"make grade: {stopped}")
            lines.append(text["kept"].format(count=len(self.results)))
        elif self.failed or stopped:
            lines.append(text["again"])
        return "\n".join(lines)

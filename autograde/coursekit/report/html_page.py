"""``index.html`` of the class report: one self-contained page (inline CSS and SVG, no script).

Sections, in the order an instructor preparing Monday's lesson reads them: the class at a
glance, the most common mistakes with what to reteach, score distributions, the written questions'
manual marking (marked, to mark, mean and spread), the pass rate of every check, students not graded or without a submission, one line per student.
"""
import html

from .. import record
from . import figures
from .written import written_stats
from .tables import GRADED, NO_SUBMISSION, NOT_GRADED, PENDING

__all__ = ["render"]

STATUS = {GRADED: "已评分", NOT_GRADED: "未能自动评分（0 分）", NO_SUBMISSION: "未提交",
          PENDING: "已收取，尚未评分"}

CSS = """
body { font-family: "Noto Sans SC", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif;
       margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; font-size: .9em; }
th, td { border: 1px solid #ccc; padding: .25em .5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.message { white-space: pre-wrap; max-width: 34em; } .summary td { padding: .3em .8em; }
.warn { background: #fff4e0; border-left: 4px solid #e08a2c; padding: .5em 1em; }
.hidden-check { color: #b0651a; } .visible-check { color: #2a62b0; }
details summary { cursor: pointer; color: #555; }
"""


def _e(value) -> str:
    return html.escape(str(value))


def _table(header: list, rows: list, numeric=()) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _names(students: list, shown: int = 12) -> str:
    if len(students) <= shown:
        return _e(", ".join(students))
    return f"<details><summary>{len(students)} 名学生</summary>{_e(', '.join(students))}</details>"


def _summary(report) -> str:
    rows, graded = report.rows, [r for r in report.rows if r.status == GRADED]
    counts = {status: sum(r.status == status for r in rows) for status in STATUS}
    mean = sum(r.total for r in graded) / len(graded) if graded else 0.0
    cells = [("学生（成绩册 + 已收取）", len(rows)), ("已评分", counts[GRADED]),
             ("有结构化结果（诊断）", report.diagnosed), ("未能自动评分", counts[NOT_GRADED]),
             ("未提交", counts[NO_SUBMISSION]), ("已收取未评分", counts[PENDING]),
             ("已评分学生平均总分", f"{mean:.2f} / {report.grades.max_total:g}")]
    return "<table class='summary'>" + "".join(f"<tr><th>{_e(k)}</th><td class='num'>{_e(v)}</td></tr>"
                                               for k, v in cells) + "</table>"


def _warnings(report) -> str:
    notes = []
    graded = sum(r.status == GRADED for r in report.rows)
    if graded and report.has_grader and not report.diagnosed:
        notes.append(f"已评分的 notebook 里没有评分器的结构化结果（{record.MIME}）："
                     "检查项与错误统计为空。请用当前的评分器重新 autograde。")
    if report.mismatches:
        listed = "; ".join(f"{s} {g}: 结果 {p:g} ≠ 成绩册 {'无' if a is None else f'{a:g}'}"
                           for s, g, p, a in report.mismatches[:20])
        notes.append(f"{len(report.mismatches)} 个单元格的评分器结果与成绩册的自动分数不一致"
                     f"（以成绩册为准）：{listed}")
    return "".join(f"<p class='warn'>{_e(n)}</p>" for n in notes)


def _mistakes(report) -> str:
    if not report.mistakes:
        return "<p>没有诊断出错误。</p>"
    rows = [[f"<code>{_e(m.bug)}</code>", _e(m.stage), len(m.students), f"{100 * report.share(m):.1f}%",
             f"<div class='message'>{_e(m.message)}</div>", _e(m.reteach), _names(m.students)]
            for m in report.mistakes]
    fig = figures.svg(figures.common_mistakes(report.mistakes, report.diagnosed))
    return fig + _table(["错误编号", "阶段", "人数", "占比", "诊断说明（示例）", "该重讲什么", "学生"], rows, (2, 3))


def _distributions(report) -> str:
    graded = [r for r in report.rows if r.status in (GRADED, NOT_GRADED)]
    panels = [(c.name, [r.cells[c.name].score for r in graded if c.name in r.cells], c.max_score)
              for c in report.grades.cells if c.autograded]
    panels.append(("总分", [r.total for r in graded], report.grades.max_total))
    return figures.svg(figures.score_distributions(panels))


def _checks(report) -> str:
    if not report.checks:
        return "<p>没有检查结果。</p>"
    rows = [[f"<code>{_e(c.id)}</code>", c.test,
             "<span class='visible-check'>可见</span>" if c.visible else "<span class='hidden-check'>隐藏</span>",
             _e(c.description), f"{100 * c.pass_rate:.1f}%", f"{c.passed}/{c.ran}", _names(c.failing)]
            for c in report.checks]
    fig = figures.svg(figures.check_pass_rates(report.checks))
    note = "<p>只统计正常评分的单元格（被标记为篡改、调用参考实现、超时的单元格不计入）。</p>"
    return note + fig + _table(["检查", "TEST", "类型", "说明", "通过率", "通过/运行", "未通过的学生"], rows, (1, 4, 5))


def _not_graded(report) -> str:
    zero = [[_e(r.student), f"<div class='message'>{_e(r.reason)}</div>"]
            for r in report.rows if r.status == NOT_GRADED]
    flagged = [[_e(s), _e(g), _e(status), _e(reason)] for s, g, status, reason in report.flagged]
    missing = [r.student for r in report.rows if r.status == NO_SUBMISSION]
    pending = [r.student for r in report.rows if r.status == PENDING]
    parts = ["<h3>未能自动评分（记 0 分）</h3>",
             _table(["学生", "原因"], zero) if zero else "<p>无。</p>",
             "<h3>评分器标记的单元格（篡改、超时、出错……）</h3>",
             _table(["学生", "单元格", "状态", "原因"], flagged) if flagged else "<p>无。</p>",
             f"<h3>未提交（{len(missing)}）</h3><p>{_e(', '.join(missing)) or '无。'}</p>"]
    if pending:
        parts.append(f"<h3>已收取、尚未 autograde（{len(pending)}）</h3><p>{_e(', '.join(pending))}</p>")
    return "".join(parts)


def _students(report) -> str:
    auto = [c for c in report.grades.cells if c.autograded]
    header = ["学生", "状态"] + [c.name for c in auto] + ["人工评分", "总分", "第一个错误"]
    rows = []
    for r in report.rows:
        scores = [f"{r.cells[c.name].score:g}" if c.name in r.cells else "" for c in auto]
        manual = sum(g.score for name, g in r.cells.items() if name not in {c.name for c in auto})
        total = f"{r.total:g}" if r.cells else ""
        rows.append([_e(r.student), _e(STATUS[r.status])] + scores
                    + [f"{manual:g}" if r.cells else "", total, f"<code>{_e(r.first_mistake)}</code>"])
    numeric = tuple(range(2, 4 + len(auto)))
    return _table(header, rows, numeric)


def _written(report) -> str:
    """Per written question: marked / not answered / to mark, and the manual scores (coursekit.report.written)."""
    rows = [[f"<code>{_e(s.question)}</code>", f"{s.max_score:g}", s.submissions, s.marked, s.unanswered, s.to_mark,
             "" if s.mean is None else f"{s.mean:.2f}", "" if s.median is None else f"{s.median:g}",
             _e("  ".join(f"{score:g} 分 × {n}" for score, n in s.scores.items()))]
            for s in written_stats(report.grades)]
    if not rows:
        return "<p>本作业没有书面题。</p>"
    return _table(["书面题", "满分", "提交", "已批改", "未作答（自动 0 分）", "待批改", "平均分", "中位数", "人工分数分布"],
                  rows, numeric=range(1, 8))


def render(report) -> str:
    """The whole page for ``report`` (a :class:`coursekit.report.ClassReport`)."""
    title = f"班级报告：{report.grades.assignment}"
    sections = [("概况", _summary(report) + _warnings(report)),
                ("最常见的错误（诊断）", _mistakes(report)),
                ("分数分布", _distributions(report)),
                ("书面题的人工评分", _written(report)),
                ("每个检查的通过率（从低到高）", _checks(report)),
                ("未评分与未提交的学生", _not_graded(report)),
                ("每个学生一行", _students(report))]
    body = "".join(f"<h2>{_e(name)}</h2>{content}" for name, content in sections)
    return (f"<!DOCTYPE html><html lang='zh-CN'><head><meta charset='utf-8'>"
            f"<link rel='icon' href='data:,'><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{_e(title)}</h1>{body}</body></html>")

"""``index.html`` of the class report: one self-contained page (inline CSS and SVG, no script).

Sections, in the order an instructor preparing Monday's lesson reads them: the class at a
glance, the most common mistakes with what to reteach, score distributions, the written questions'
manual marking (marked, to mark, mean and spread), the pass rate of every check (and the cells that may be
hard-coded to the visible ones), students not graded or without a submission, one line per student. Every word of the page is in the course's language (``lang``:
``c.CourseKit.language``; :data:`TEXT`); what the students' records say (a diagnosis, a check's
description, a reason) is quoted as the student read it, in their edition's language.
"""
import html

from .. import record
from ..language import DEFAULT
from ..language import WORDS as CATALOGUE
from . import figure_text, figures
from .labels import Labels
from .tables import CHANGED, GRADED, NO_SUBMISSION, NOT_GRADED, OTHER_EDITION, PENDING, TAMPERED
from .written import written_stats

__all__ = ["TEXT", "CSS", "table", "render"]

# Every word of the page, by the course's language: the same keys, the same placeholders.
TEXT = {
    "zh": {
        "html_lang": "zh-CN", "title": "班级报告：{assignment}",
        "status": {GRADED: "已评分", NOT_GRADED: "未能自动评分（0 分）", NO_SUBMISSION: "未提交",
                   OTHER_EDITION: "提交的是另一版本", PENDING: "已收取，尚未评分"},
        "sections": ("概况", "最常见的错误（诊断）", "分数分布", "书面题的人工评分", "每个检查的通过率（从低到高）",
                     "未评分与未提交的学生", "每个学生一行"),
        "students_n": "{n} 名学生",
        "summary": ("学生（成绩册 + 已收取）", "已评分", "评分器检查过的学生", "其中诊断出错误的学生", "未能自动评分",
                    "未提交（任何版本都没有）", "提交的是另一版本", "已收取未评分", "已评分学生平均总分"),
        "no_results": "已评分的 notebook 里没有评分器的结构化结果（{mime}）："
                      "检查项与错误统计为空。请用当前的评分器重新 autograde。",
        "mismatch": "{s} {g}: 结果 {p} ≠ 成绩册 {a}", "none": "无",
        "mismatches": "{n} 个单元格的评分器结果与成绩册的自动分数不一致（以成绩册为准）：{listed}",
        "no_mistakes": "评分器检查过的 {n} 名学生都没有诊断出错误。", "no_diagnosis": "没有评分器检查过的学生。",
        "mistakes": ("错误", "阶段", "人数", "占比", "诊断说明（示例）", "该重讲什么", "学生"),
        "total": "总分", "no_checks": "没有检查结果。", "visible": "可见", "hidden": "隐藏",
        "checks_note": "只统计正常评分的单元格（被标记为篡改、调用参考实现、超时的单元格不计入）。",
        "checks": ("TEST", "类型", "检查的内容", "通过率", "通过/运行", "未通过的学生"),
        "zero": "未能自动评分（记 0 分）", "zero_table": ("学生", "原因"), "nothing": "无。",
        "flagged": "评分器标记的单元格（篡改、超时、出错……）", "flagged_table": ("学生", "单元格", "状态", "原因"),
        "missing": "未提交（{n}）", "other": "提交的是另一版本（{n}）", "pending": "已收取、尚未 autograde（{n}）",
        "flag_status": {CHANGED: "改动了测试单元格", TAMPERED: "篡改", "unreadable": "读不回来", record.DELEGATED: "调用了参考实现",
                        record.TIMEOUT: "超时", record.LIMIT: "超过沙箱限制", record.ERROR: "评分中断"},
        "flag": {CHANGED: "学生改动了这个测试单元格；评分用的是发布时的单元格",
                 TAMPERED: "学生的内核在这个测试单元格显示的结果与评分器的不同；记录的是评分器的结果"},
        "rows": ("学生", "状态", "人工评分", "总分", "第一个错误"),
        "hard_coded": "可能写死了可见检查的答案（{n}）",
        "hard_coded_note": "这些单元格通过了全部可见检查（verify），却没有通过任何隐藏检查（发布版本身就能通过的输入检查不算），"
                           "诊断也没有找到有名字的错误：函数可能只对 verify 用的输入给出答案。值得打开看看，不是证据。",
        "hard_coded_table": ("学生", "单元格", "通过的可见检查", "未通过的隐藏检查"),
        "no_written": "本作业没有书面题。", "score_times": "{score} 分 × {n}",
        "written": ("书面题", "满分", "提交", "已批改", "未作答（0 分）", "待批改", "平均分", "中位数", "人工分数分布"),
    },
    "en": {
        "html_lang": "en", "title": "Class report: {assignment}",
        "status": {GRADED: "graded", NOT_GRADED: "not graded automatically (0 points)", NO_SUBMISSION: "no submission",
                   OTHER_EDITION: "submitted the other edition", PENDING: "collected, not graded yet"},
        "sections": ("At a glance", "The most common mistakes (diagnosis)", "Score distributions",
                     "Written questions: manual marking", "Pass rate of every check (lowest first)",
                     "Students not graded or without a submission", "One line per student"),
        "students_n": "{n} students",
        "summary": ("students (gradebook + collected)", "graded", "students the grader checked",
                    "of them, with a mistake diagnosed", "not graded automatically", "no submission (of any edition)",
                    "submitted the other edition", "collected, not graded yet", "mean total of the graded students"),
        "no_results": "The graded notebooks hold no structured results of the grader ({mime}): the checks and "
                      "mistakes below are empty. Autograde again with the current grader.",
        "mismatch": "{s} {g}: record {p} ≠ gradebook {a}", "none": "none",
        "mismatches": "{n} cells whose grader record differs from the gradebook's automatic score "
                      "(the gradebook wins): {listed}",
        "no_mistakes": "No mistake was diagnosed in any of the {n} students the grader checked.",
        "no_diagnosis": "The grader checked no student.",
        "mistakes": ("mistake", "stage", "students", "share", "diagnosis (an example)", "what to reteach", "who"),
        "total": "total", "no_checks": "No check results.", "visible": "visible", "hidden": "hidden",
        "checks_note": "Only cells graded normally count (cells flagged as tampered, delegated or timed out do not).",
        "checks": ("TEST", "kind", "what it checks", "pass rate", "passed/ran", "students who failed it"),
        "zero": "Not graded automatically (0 points)", "zero_table": ("student", "reason"), "nothing": "None.",
        "flagged": "Cells the grader flagged (tampered, timed out, errors …)",
        "flagged_table": ("student", "cell", "status", "reason"),
        "missing": "No submission ({n})", "other": "Submitted the other edition ({n})",
        "pending": "Collected, not autograded yet ({n})",
        "flag_status": {CHANGED: "test cell changed", TAMPERED: "tampered", "unreadable": "unreadable",
                        record.DELEGATED: "called the reference", record.TIMEOUT: "timed out",
                        record.LIMIT: "over a sandbox limit", record.ERROR: "grading interrupted"},
        "flag": {CHANGED: "the student changed this test cell; the cell as released was graded",
                 TAMPERED: "the student's kernel showed another result in this test cell than the grader's; "
                           "the grader's was recorded"},
        "rows": ("student", "status", "manual", "total", "first mistake"),
        "hard_coded": "May be hard-coded to the visible checks ({n})",
        "hard_coded_note": "These cells passed every visible check (verify) and no hidden check (beyond the input checks "
                           "the release passes by itself), and the diagnosis names no mistake: the function may answer "
                           "verify's inputs only. A reason to look, not proof.",
        "hard_coded_table": ("student", "cell", "visible checks passed", "hidden checks failed"),
        "no_written": "This assignment has no written questions.", "score_times": "{score} points × {n}",
        "written": ("written question", "points", "submitted", "marked", "not answered (0 points)",
                    "to mark", "mean", "median", "manual scores"),
    },
}

CSS = """
body { font-family: "Noto Sans SC", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif;
       margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; font-size: .9em; }
th, td { border: 1px solid #ccc; padding: .25em .5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.message { white-space: pre-wrap; max-width: 34em; } .summary td { padding: .3em .8em; }
.warn { background: #fff4e0; border-left: 4px solid #e08a2c; padding: .5em 1em; }
.hidden-check { color: #9a5516; } .visible-check { color: #2a62b0; }
details summary { cursor: pointer; color: #555; }
svg { max-width: 100%; height: auto; }
"""


def _e(value) -> str:
    return html.escape(str(value))


def table(header, rows: list, numeric=()) -> str:
    """An HTML table: ``header`` escaped, ``rows`` of cells already HTML; the columns ``numeric`` right-aligned."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _names(students: list, text: dict, labels: Labels, shown: int = 12) -> str:
    """``students`` by name (:meth:`.Labels.student`), folded away past ``shown`` of them."""
    said = ", ".join(labels.student(s) for s in students)
    if len(students) <= shown:
        return _e(said)
    return f"<details><summary>{_e(text['students_n'].format(n=len(students)))}</summary>{_e(said)}</details>"


def _summary(report, text: dict) -> str:
    rows, graded = report.rows, [r for r in report.rows if r.status == GRADED]
    counts = {status: sum(r.status == status for r in rows) for status in text["status"]}
    mean = sum(r.total for r in graded) / len(graded) if graded else 0.0
    with_mistake = sum(bool(r.mistakes) for r in rows)
    values = (len(rows), counts[GRADED], report.diagnosed, with_mistake, counts[NOT_GRADED], counts[NO_SUBMISSION],
              counts[OTHER_EDITION], counts[PENDING], f"{mean:.2f} / {report.grades.max_total:g}")
    return "<table class='summary'>" + "".join(f"<tr><th>{_e(k)}</th><td class='num'>{_e(v)}</td></tr>"
                                               for k, v in zip(text["summary"], values)) + "</table>"


def _warnings(report, text: dict, labels: Labels) -> str:
    notes = []
    graded = sum(r.status == GRADED for r in report.rows)
    if graded and report.has_grader and not report.diagnosed:
        notes.append(text["no_results"].format(mime=record.MIME))
    if report.mismatches:
        listed = "; ".join(text["mismatch"].format(s=labels.student(s), g=labels.cell(g), p=f"{p:g}",
                                                   a=text["none"] if a is None else f"{a:g}")
                           for s, g, p, a in report.mismatches[:20])
        notes.append(text["mismatches"].format(n=len(report.mismatches), listed=listed))
    return "".join(f"<p class='warn'>{_e(n)}</p>" for n in notes)


def _mistakes(report, text: dict, labels: Labels) -> str:
    """Each mistake by its name; the diagnosis a student read only when it is in the course's language too."""
    if not report.mistakes:  # the same count as the summary's "checked": never a contradiction beside it
        said = text["no_mistakes"].format(n=report.diagnosed) if report.diagnosed else text["no_diagnosis"]
        return f"<p>{_e(said)}</p>"
    keep = [0, 1, 2, 3, 4, 5, 6] if labels.same_language else [0, 1, 2, 3, 5, 6]
    rows = [[_e(labels.mistake(m.bug)), _e(m.stage), len(m.students), f"{100 * report.share(m):.1f}%",
             f"<div class='message'>{_e(m.message)}</div>", _e(m.reteach), _names(m.students, text, labels)]
            for m in report.mistakes]
    names = [labels.mistake(m.bug) for m in report.mistakes]
    chart = figures.svg(figures.common_mistakes(report.mistakes, report.diagnosed, labels.lang, names))
    fig = figure_text.labelled(chart, figure_text.mistakes(report.mistakes, names, report.diagnosed, labels.lang))
    return fig + table([text["mistakes"][i] for i in keep], [[row[i] for i in keep] for row in rows], (2, 3))


def _distributions(report, text: dict, labels: Labels) -> str:
    graded = [r for r in report.rows if r.status in (GRADED, NOT_GRADED)]
    panels = [(labels.cell(c.name), [r.cells[c.name].score for r in graded if c.name in r.cells], c.max_score)
              for c in report.grades.cells if c.autograded and c.max_score]  # a practice exercise's 0 of 0: no figure
    panels.append((text["total"], [r.total for r in graded], report.grades.max_total))
    fig = figures.svg(figures.score_distributions(panels, labels.lang))
    return (figure_text.labelled(fig, figure_text.distributions(panels, labels.lang))
            + figure_text.distribution_table(panels, labels.lang))


def _checks(report, text: dict, labels: Labels) -> str:
    if not report.checks:
        return f"<p>{_e(text['no_checks'])}</p>"
    described = [labels.check(c.id, c.description) for c in report.checks]
    rows = [[c.test,
             f"<span class='visible-check'>{_e(text['visible'])}</span>" if c.visible
             else f"<span class='hidden-check'>{_e(text['hidden'])}</span>",
             _e(what), f"{100 * c.pass_rate:.1f}%", f"{c.passed}/{c.ran}", _names(c.failing, text, labels)]
            for c, what in zip(report.checks, described)]
    names = [f"{c.test} · {what}" for c, what in zip(report.checks, described)]
    fig = figure_text.labelled(figures.svg(figures.check_pass_rates(report.checks, labels.lang, names)),
                               figure_text.pass_rates(report.checks, names, labels.lang))
    return f"<p>{_e(text['checks_note'])}</p>" + fig + table(text["checks"], rows, (0, 3, 4))


def _hard_coded(report, text: dict, labels: Labels) -> str:
    """The cells that may answer only the visible inputs (:func:`coursekit.record.may_be_hard_coded`), with the
    evidence; nothing when there are none."""
    found = report.hard_coded
    if not found:
        return ""
    rows = [[_e(student), _e(labels.cell(flag.grade_id)), _e(", ".join(flag.passed)), _e(", ".join(flag.failed))]
            for student, flag in found]
    return (f"<h3>{_e(text['hard_coded'].format(n=len({student for student, _ in found})))}</h3>"
            f"<p class='warn'>{_e(text['hard_coded_note'])}</p>" + table(text["hard_coded_table"], rows))


def _not_graded(report, text: dict, labels: Labels) -> str:
    zero = [[_e(labels.student(r.student)), f"<div class='message'>{_e(r.reason)}</div>"]
            for r in report.rows if r.status == NOT_GRADED]
    flagged = [[_e(labels.student(s)), _e(labels.cell(g)), _e(text["flag_status"].get(status, status)),
                _e(reason or text["flag"].get(status, ""))]
               for s, g, status, reason in report.flagged]
    missing = [labels.student(r.student) for r in report.rows if r.status == NO_SUBMISSION]
    other = [f"{labels.student(r.student)} ({r.reason})" for r in report.rows if r.status == OTHER_EDITION]
    pending = [labels.student(r.student) for r in report.rows if r.status == PENDING]
    nothing = f"<p>{_e(text['nothing'])}</p>"
    parts = [f"<h3>{_e(text['zero'])}</h3>", table(text["zero_table"], zero) if zero else nothing,
             f"<h3>{_e(text['flagged'])}</h3>", table(text["flagged_table"], flagged) if flagged else nothing,
             f"<h3>{_e(text['missing'].format(n=len(missing)))}</h3>"
             f"<p>{_e(', '.join(missing)) or _e(text['nothing'])}</p>"]
    if other:
        parts.append(f"<h3>{_e(text['other'].format(n=len(other)))}</h3><p>{_e(', '.join(other))}</p>")
    if pending:
        parts.append(f"<h3>{_e(text['pending'].format(n=len(pending)))}</h3><p>{_e(', '.join(pending))}</p>")
    return "".join(parts)


def _practice(report, lang: str, labels: Labels) -> str:
    """Each practice exercise (0 points): of the students whose notebook carries it, how many tried and passed it, and
    who tried without passing; nothing when the assignment has none."""
    rows = [[_e(labels.cell(p.grade_id)), len(p.seen), len(p.tried), len(p.passed),
             _names([s for s in p.tried if s not in p.passed], TEXT[lang], labels)] for p in report.practice]
    header = [CATALOGUE.say(lang, "report.practice_exercise"), CATALOGUE.say(lang, "report.practice_seen"),
              CATALOGUE.say(lang, "report.practice_tried"), CATALOGUE.say(lang, "report.practice_passed"),
              CATALOGUE.say(lang, "report.practice_failing")]
    note = CATALOGUE.say(lang, "report.practice_note")
    return f"<p>{_e(note)}</p>" + table(header, rows, (1, 2, 3))


def _students(report, text: dict, labels: Labels) -> str:
    auto = [c for c in report.grades.cells if c.autograded and c.max_score]  # practice exercises: their own section
    student, status, manual_head, total_head, first = text["rows"]
    header = [student, status] + [labels.cell(c.name) for c in auto] + [manual_head, total_head, first]
    rows = []
    for r in report.rows:
        scores = [f"{r.cells[c.name].score:g}" if c.name in r.cells else "" for c in auto]
        manual = sum(g.score for name, g in r.cells.items() if name not in {c.name for c in auto})
        total = f"{r.total:g}" if r.cells else ""
        mistake = labels.mistake(r.first_mistake) if r.first_mistake else ""
        rows.append([_e(labels.student(r.student)), _e(text["status"][r.status])] + scores
                    + [f"{manual:g}" if r.cells else "", total, _e(mistake)])
    numeric = tuple(range(2, 4 + len(auto)))
    return table(header, rows, numeric)


def _written(report, text: dict, labels: Labels) -> str:
    """Per written question: marked / not answered / to mark, and the manual scores (coursekit.report.written)."""
    rows = [[_e(labels.cell(s.question)), f"{s.max_score:g}", s.submissions, s.marked, s.unanswered, s.to_mark,
             "" if s.mean is None else f"{s.mean:.2f}", "" if s.median is None else f"{s.median:g}",
             _e("  ".join(text["score_times"].format(score=f"{score:g}", n=n) for score, n in s.scores.items()))]
            for s in written_stats(report.grades)]
    if not rows:
        return f"<p>{_e(text['no_written'])}</p>"
    return table(text["written"], rows, numeric=range(1, 8))


def render(report, lang: str = DEFAULT, extra=(), labels: Labels | None = None) -> str:
    """The whole page for ``report`` (a :class:`coursekit.report.ClassReport`), in ``lang``; ``extra``: sections
    other modules wrote (``(heading, HTML)``, e.g. :func:`coursekit.report.similarity_page.section`), placed before
    the long table of one line per student; ``labels``: names for its ids (:mod:`.labels`; none: the ids)."""
    text, labels = TEXT[lang], labels or Labels(lang)
    title = text["title"].format(assignment=labels.title or report.grades.assignment)
    contents = (_summary(report, text) + _warnings(report, text, labels), _mistakes(report, text, labels),
                _distributions(report, text, labels), _written(report, text, labels),
                _checks(report, text, labels) + _hard_coded(report, text, labels),
                _not_graded(report, text, labels), _students(report, text, labels))
    sections = list(zip(text["sections"], contents))
    if report.practice:  # after the checks' pass rates
        sections.insert(5, (CATALOGUE.say(lang, "report.practice_heading"), _practice(report, lang, labels)))
    sections[-1:-1] = list(extra)
    body = "".join(f"<h2>{_e(name)}</h2>{content}" for name, content in sections)
    return (f"<!DOCTYPE html><html lang='{text['html_lang']}'><head><meta charset='utf-8'>"
            f"<link rel='icon' href='data:,'><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{_e(title)}</h1>{body}</body></html>")

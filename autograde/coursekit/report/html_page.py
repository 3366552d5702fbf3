"""``index.html`` of the class report: one self-contained page (inline CSS and SVG, no script).

Sections, in the order an instructor preparing Monday's lesson reads them: the class at a
glance, the most common mistakes with what to reteach, score distributions, the written questions'
manual marking (marked, to mark, mean and spread), the pass rate of every check (and the cells that may be
hard-coded to the visible ones), students not graded or without a submission, one line per student. Every word of the page is in the course's language (``lang``:
``c.CourseKit.language``; each by its id, ``report.page.*`` in the catalogue); what the students' records say (a diagnosis, a check's
description, a reason) is quoted as the student read it, in their edition's language.
"""
import html

from .. import record
from ..language import DEFAULT, WORDS, marked
from . import figures
from .labels import Labels
from .tables import CHANGED, GRADED, NO_SUBMISSION, NOT_GRADED, OTHER_EDITION, PENDING, TAMPERED
from .written import written_stats

__all__ = ["CSS", "table", "render", "words"]

# The page's fixed lists of words, by message id (``report.page.*`` in the catalogue), in the order shown.
STATUS = {GRADED: marked("report.page.status.graded"), NOT_GRADED: marked("report.page.status.not_graded"),
          NO_SUBMISSION: marked("report.page.status.no_submission"),
          OTHER_EDITION: marked("report.page.status.other_edition"), PENDING: marked("report.page.status.pending")}
SECTIONS = (marked("report.page.sections.at_a_glance"), marked("report.page.sections.mistakes"),
            marked("report.page.sections.distributions"), marked("report.page.sections.written"),
            marked("report.page.sections.checks"), marked("report.page.sections.not_graded"),
            marked("report.page.sections.students"))
SUMMARY = (marked("report.page.summary.students"), marked("report.page.summary.graded"),
           marked("report.page.summary.checked"), marked("report.page.summary.with_mistake"),
           marked("report.page.summary.not_graded"), marked("report.page.summary.no_submission"),
           marked("report.page.summary.other_edition"), marked("report.page.summary.pending"),
           marked("report.page.summary.mean_total"))
MISTAKES = (marked("report.page.mistakes.mistake"), marked("report.page.mistakes.stage"),
            marked("report.page.mistakes.students"), marked("report.page.mistakes.share"),
            marked("report.page.mistakes.diagnosis"), marked("report.page.mistakes.what_to_reteach"),
            marked("report.page.mistakes.who"))
CHECKS = (marked("report.page.checks.test"), marked("report.page.checks.kind"), marked("report.page.checks.what"),
          marked("report.page.checks.pass_rate"), marked("report.page.checks.passed_ran"),
          marked("report.page.checks.failing"))
ZERO_TABLE = (marked("report.page.zero_table.student"), marked("report.page.zero_table.reason"))
FLAGGED_TABLE = (marked("report.page.flagged_table.student"), marked("report.page.flagged_table.cell"),
                 marked("report.page.flagged_table.status"), marked("report.page.flagged_table.reason"))
FLAG_STATUS = {CHANGED: marked("report.page.flag_status.changed"), TAMPERED: marked("report.page.flag_status.tampered"),
               "unreadable": marked("report.page.flag_status.unreadable"),
               record.DELEGATED: marked("report.page.flag_status.delegated"),
               record.TIMEOUT: marked("report.page.flag_status.timeout"),
               record.LIMIT: marked("report.page.flag_status.limit"), record.ERROR: marked("report.page.flag_status.error")}
FLAG = {CHANGED: marked("report.page.flag.changed"), TAMPERED: marked("report.page.flag.tampered")}
ROWS = (marked("report.page.rows.student"), marked("report.page.rows.status"), marked("report.page.rows.manual"),
        marked("report.page.rows.total"), marked("report.page.rows.first_mistake"))
HARD_CODED_TABLE = (marked("report.page.hard_coded_table.student"), marked("report.page.hard_coded_table.cell"),
                    marked("report.page.hard_coded_table.passed"), marked("report.page.hard_coded_table.failed"))
WRITTEN = (marked("report.page.written.question"), marked("report.page.written.points"),
           marked("report.page.written.submitted"), marked("report.page.written.marked"),
           marked("report.page.written.unanswered"), marked("report.page.written.to_mark"),
           marked("report.page.written.mean"), marked("report.page.written.median"),
           marked("report.page.written.scores"))

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


def words(lang: str, ids) -> list:
    """Each of ``ids`` (a table's columns, by message id) said in ``lang``."""
    return [WORDS.say(lang, msgid) for msgid in ids]


def _names(students: list, lang: str, labels: Labels, shown: int = 12) -> str:
    """``students`` by name (:meth:`.Labels.student`), folded away past ``shown`` of them."""
    said = ", ".join(labels.student(s) for s in students)
    if len(students) <= shown:
        return _e(said)
    summary = _e(WORDS.say(lang, "report.page.students_n", n=len(students)))
    return f"<details><summary>{summary}</summary>{_e(said)}</details>"


def _summary(report, lang: str) -> str:
    rows, graded = report.rows, [r for r in report.rows if r.status == GRADED]
    counts = {status: sum(r.status == status for r in rows) for status in STATUS}
    mean = sum(r.total for r in graded) / len(graded) if graded else 0.0
    with_mistake = sum(bool(r.mistakes) for r in rows)
    values = (len(rows), counts[GRADED], report.diagnosed, with_mistake, counts[NOT_GRADED], counts[NO_SUBMISSION],
              counts[OTHER_EDITION], counts[PENDING], f"{mean:.2f} / {report.grades.max_total:g}")
    return "<table class='summary'>" + "".join(f"<tr><th>{_e(k)}</th><td class='num'>{_e(v)}</td></tr>"
                                               for k, v in zip(words(lang, SUMMARY), values)) + "</table>"


def _warnings(report, lang: str, labels: Labels) -> str:
    notes = []
    graded = sum(r.status == GRADED for r in report.rows)
    if graded and report.has_grader and not report.diagnosed:
        notes.append(WORDS.say(lang, "report.page.no_results", mime=record.MIME))
    if report.mismatches:
        none = WORDS.say(lang, "report.page.none")
        listed = "; ".join(WORDS.say(lang, "report.page.mismatch", s=labels.student(s), g=labels.cell(g),
                                     p=format(p, "g"), a=none if a is None else format(a, "g"))
                           for s, g, p, a in report.mismatches[:20])
        notes.append(WORDS.say(lang, "report.page.mismatches", n=len(report.mismatches), listed=listed))
    return "".join(f"<p class='warn'>{_e(n)}</p>" for n in notes)


def _mistakes(report, lang: str, labels: Labels) -> str:
    """Each mistake by its name; the diagnosis a student read only when it is in the course's language too."""
    if not report.mistakes:  # the same count as the summary's "checked": never a contradiction beside it
        said = (WORDS.say(lang, "report.page.no_mistakes", n=report.diagnosed) if report.diagnosed
                else WORDS.say(lang, "report.page.no_diagnosis"))
        return f"<p>{_e(said)}</p>"
    keep = [0, 1, 2, 3, 4, 5, 6] if labels.same_language else [0, 1, 2, 3, 5, 6]
    rows = [[_e(labels.mistake(m.bug)), _e(m.stage), len(m.students), f"{100 * report.share(m):.1f}%",
             f"<div class='message'>{_e(m.message)}</div>", _e(m.reteach), _names(m.students, lang, labels)]
            for m in report.mistakes]
    fig = figures.svg(figures.common_mistakes(report.mistakes, report.diagnosed, labels.lang,
                                              [labels.mistake(m.bug) for m in report.mistakes]))
    return fig + table([words(lang, MISTAKES)[i] for i in keep], [[row[i] for i in keep] for row in rows], (2, 3))


def _distributions(report, lang: str, labels: Labels) -> str:
    graded = [r for r in report.rows if r.status in (GRADED, NOT_GRADED)]
    panels = [(labels.cell(c.name), [r.cells[c.name].score for r in graded if c.name in r.cells], c.max_score)
              for c in report.grades.cells if c.autograded and c.max_score]  # a practice exercise's 0 of 0: no figure
    panels.append((WORDS.say(lang, "report.page.total"), [r.total for r in graded], report.grades.max_total))
    return figures.svg(figures.score_distributions(panels, labels.lang))


def _checks(report, lang: str, labels: Labels) -> str:
    if not report.checks:
        return "<p>" + _e(WORDS.say(lang, "report.page.no_checks")) + "</p>"
    described = [labels.check(c.id, c.description) for c in report.checks]
    kinds = {True: "<span class='visible-check'>" + _e(WORDS.say(lang, "report.page.visible")) + "</span>",
             False: "<span class='hidden-check'>" + _e(WORDS.say(lang, "report.page.hidden")) + "</span>"}
    rows = [[c.test, kinds[bool(c.visible)],
             _e(what), f"{100 * c.pass_rate:.1f}%", f"{c.passed}/{c.ran}", _names(c.failing, lang, labels)]
            for c, what in zip(report.checks, described)]
    fig = figures.svg(figures.check_pass_rates(report.checks, labels.lang,
                                               [f"{c.test} · {what}" for c, what in zip(report.checks, described)]))
    note = _e(WORDS.say(lang, "report.page.checks_note"))
    return f"<p>{note}</p>" + fig + table(words(lang, CHECKS), rows, (0, 3, 4))


def _hard_coded(report, lang: str, labels: Labels) -> str:
    """The cells that may answer only the visible inputs (:func:`coursekit.record.may_be_hard_coded`), with the
    evidence; nothing when there are none."""
    found = report.hard_coded
    if not found:
        return ""
    rows = [[_e(student), _e(labels.cell(flag.grade_id)), _e(", ".join(flag.passed)), _e(", ".join(flag.failed))]
            for student, flag in found]
    heading = WORDS.say(lang, "report.page.hard_coded", n=len({student for student, _ in found}))
    note = _e(WORDS.say(lang, "report.page.hard_coded_note"))
    return (f"<h3>{_e(heading)}</h3><p class='warn'>{note}</p>"
            + table(words(lang, HARD_CODED_TABLE), rows))


def _not_graded(report, lang: str, labels: Labels) -> str:
    zero = [[_e(labels.student(r.student)), f"<div class='message'>{_e(r.reason)}</div>"]
            for r in report.rows if r.status == NOT_GRADED]
    flagged = [[_e(labels.student(s)), _e(labels.cell(g)),
                _e(WORDS.say(lang, FLAG_STATUS[status]) if status in FLAG_STATUS else status),
                _e(reason or (WORDS.say(lang, FLAG[status]) if status in FLAG else ""))]
               for s, g, status, reason in report.flagged]
    missing = [labels.student(r.student) for r in report.rows if r.status == NO_SUBMISSION]
    other = [f"{labels.student(r.student)} ({r.reason})" for r in report.rows if r.status == OTHER_EDITION]
    pending = [labels.student(r.student) for r in report.rows if r.status == PENDING]
    nothing = _e(WORDS.say(lang, "report.page.nothing"))
    parts = ["<h3>" + _e(WORDS.say(lang, "report.page.zero")) + "</h3>",
             table(words(lang, ZERO_TABLE), zero) if zero else f"<p>{nothing}</p>",
             "<h3>" + _e(WORDS.say(lang, "report.page.flagged")) + "</h3>",
             table(words(lang, FLAGGED_TABLE), flagged) if flagged else f"<p>{nothing}</p>",
             "<h3>" + _e(WORDS.say(lang, "report.page.missing", n=len(missing))) + "</h3>"
             f"<p>{_e(', '.join(missing)) or nothing}</p>"]
    if other:
        parts.append("<h3>" + _e(WORDS.say(lang, "report.page.other", n=len(other))) + "</h3>"
                     f"<p>{_e(', '.join(other))}</p>")
    if pending:
        parts.append("<h3>" + _e(WORDS.say(lang, "report.page.pending", n=len(pending))) + "</h3>"
                     f"<p>{_e(', '.join(pending))}</p>")
    return "".join(parts)


def _practice(report, lang: str, labels: Labels) -> str:
    """Each practice exercise (0 points): of the students whose notebook carries it, how many tried and passed it, and
    who tried without passing; nothing when the assignment has none."""
    rows = [[_e(labels.cell(p.grade_id)), len(p.seen), len(p.tried), len(p.passed),
             _names([s for s in p.tried if s not in p.passed], lang, labels)] for p in report.practice]
    header = [WORDS.say(lang, "report.practice_exercise"), WORDS.say(lang, "report.practice_seen"),
              WORDS.say(lang, "report.practice_tried"), WORDS.say(lang, "report.practice_passed"),
              WORDS.say(lang, "report.practice_failing")]
    note = WORDS.say(lang, "report.practice_note")
    return f"<p>{_e(note)}</p>" + table(header, rows, (1, 2, 3))


def _students(report, lang: str, labels: Labels) -> str:
    auto = [c for c in report.grades.cells if c.autograded and c.max_score]  # practice exercises: their own section
    student, status, manual_head, total_head, first = words(lang, ROWS)
    header = [student, status] + [labels.cell(c.name) for c in auto] + [manual_head, total_head, first]
    rows = []
    for r in report.rows:
        scores = [f"{r.cells[c.name].score:g}" if c.name in r.cells else "" for c in auto]
        manual = sum(g.score for name, g in r.cells.items() if name not in {c.name for c in auto})
        total = f"{r.total:g}" if r.cells else ""
        mistake = labels.mistake(r.first_mistake) if r.first_mistake else ""
        rows.append([_e(labels.student(r.student)), _e(WORDS.say(lang, STATUS[r.status]))] + scores
                    + [f"{manual:g}" if r.cells else "", total, _e(mistake)])
    numeric = tuple(range(2, 4 + len(auto)))
    return table(header, rows, numeric)


def _written(report, lang: str, labels: Labels) -> str:
    """Per written question: marked / not answered / to mark, and the manual scores (coursekit.report.written)."""
    rows = [[_e(labels.cell(s.question)), f"{s.max_score:g}", s.submissions, s.marked, s.unanswered, s.to_mark,
             "" if s.mean is None else f"{s.mean:.2f}", "" if s.median is None else f"{s.median:g}",
             _e("  ".join(WORDS.say(lang, "report.page.score_times", score=format(score, "g"), n=n)
                        for score, n in s.scores.items()))]
            for s in written_stats(report.grades)]
    if not rows:
        return "<p>" + _e(WORDS.say(lang, "report.page.no_written")) + "</p>"
    return table(words(lang, WRITTEN), rows, numeric=range(1, 8))


def render(report, lang: str = DEFAULT, extra=(), labels: Labels | None = None) -> str:
    """The whole page for ``report`` (a :class:`coursekit.report.ClassReport`), in ``lang``; ``extra``: sections
    other modules wrote (``(heading, HTML)``, e.g. :func:`coursekit.report.similarity_page.section`), placed before
    the long table of one line per student; ``labels``: names for its ids (:mod:`.labels`; none: the ids)."""
    labels = labels or Labels(lang)
    title = WORDS.say(lang, "report.page.title", assignment=labels.title or report.grades.assignment)
    contents = (_summary(report, lang) + _warnings(report, lang, labels), _mistakes(report, lang, labels),
                _distributions(report, lang, labels), _written(report, lang, labels),
                _checks(report, lang, labels) + _hard_coded(report, lang, labels),
                _not_graded(report, lang, labels), _students(report, lang, labels))
    sections = list(zip(words(lang, SECTIONS), contents))
    if report.practice:  # after the checks' pass rates
        sections.insert(5, (WORDS.say(lang, "report.practice_heading"), _practice(report, lang, labels)))
    sections[-1:-1] = list(extra)
    body = "".join(f"<h2>{_e(name)}</h2>{content}" for name, content in sections)
    tag = WORDS.say(lang, "locale.html_lang")
    return (f"<!DOCTYPE html><html lang='{tag}'><head><meta charset='utf-8'>"
            f"<link rel='icon' href='data:,'><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{_e(title)}</h1>{body}</body></html>")

"""The class report's similarity section, and a page per flagged pair with the two students' work side by side.

The section (in ``index.html``) first says plainly that similarity is a reason to look, not proof; then what
was compared and how, and the flagged pairs, highest score first, each row linking to its pair's page. A
pair's page (``similarity/pair-<hash>.html`` beside ``index.html``) names both students and when each
submitted, and shows every cell where they share something, side by side, what they share in ``<mark>``.
Every page is self-contained (inline CSS, no script) and in the course's language (:data:`TEXT`); what the
students wrote is quoted as they wrote it. Written where the report is, as the report writes its files.
"""
import hashlib
import html
import pathlib

from ..language import DEFAULT
from .fingerprints import highlighted
from .html_page import CSS, TEXT as PAGE, table
from .labels import Labels
from .similarity import CODE_UNIT, LISTED

__all__ = ["TEXT", "FOLDER", "SHOWN", "page_name", "submitted_at", "section", "write_pages"]

FOLDER = "similarity"   # beside index.html
SHOWN = 100             # flagged pairs with a row and a page; the CSV lists them all

# Every word of the section and the pages, by the course's language: the same keys, the same placeholders.
TEXT = {
    "zh": {
        "heading": "相似的提交",
        "caveat": "相似只是值得去看一看的理由，不是抄袭的证据：最直接的写法谁写都差不多，两名学生也可能一起讨论过、"
                  "读过同一份资料。先打开并排对照读一读，再下结论。",
        "method": "比较的是每名学生自己写的部分：代码是各个答案单元格，去掉发下来的桩和给定的代码、不起作用的语句（_ = 0、pass、"
                  "单独一个常量……）（变量名、注释和空白都不算）；书面题逐题比较字符片段（去掉题目自己的文字）。发下来的注释写明的代码、"
                  "参考答案里的语句，不论班级大小都是公共写法；全班超过 {limit} 人共有的片段也是，都不算数。分数是两人自己的"
                  "内容里彼此共有、又少有别人共有的那一部分（0 到 1），从 {threshold} 起标记（c.CourseKit.similarity_threshold）。",
        "summary": "比较了 {students} 名学生：{flagged} 对达到 {threshold}。分数达到 {listed} 的每一对都在 similarity.csv 里。",
        "none": "没有哪两名学生达到 {threshold}。", "best": "没达到的最高分：{score}（{first} 与 {second}）。",
        "more": "页面只列分数最高的 {shown} 对，另外 {more} 对见 similarity.csv。",
        "unreadable": "没有比较这些笔记本（读不了）：", "problem": "没有比较：{problem}",
        "columns": ("排名", "学生", "提交时间", "学生", "提交时间", "分数", "相似之处", "并排对照"),
        "code": "代码", "open": "并排对照", "unknown": "—",
        "title": "相似的提交：{first} 与 {second}", "back": "← 回到班级报告",
        "who": ("学生", "提交时间"), "score": "分数 {score}", "missing": "（没有这个单元格）",
        "legend": "标出的是两人共有、而全班少有人共有的片段；发下来的代码、注释写明的代码、参考答案的语句、题目的文字和全班常见的写法都不标。",
    },
    "en": {
        "heading": "Similar submissions",
        "caveat": "Similarity is a reason to look, not proof of copying: the most direct way to write something looks "
                  "the same in anyone's hands, and two students may have worked together or read the same source. "
                  "Open the side-by-side view and read it before drawing any conclusion.",
        "method": "Compared is what each student wrote: the code of every answer cell without the release's stubs and "
                  "given code and without statements that do nothing (_ = 0, pass, a bare constant …; names, comments "
                  "and spacing do not count), and each written question's answer as fragments of characters, without "
                  "the question's own text. What the release's comments spell out and the statements of the reference "
                  "solution are common ground in a class of any size, as are fragments more than {limit} students "
                  "share: none of it counts. The score is the part of the two students' own work "
                  "that they share and few others do (0 to 1); pairs from {threshold} on are flagged "
                  "(c.CourseKit.similarity_threshold).",
        "summary": "{students} students compared: {flagged} pairs reach {threshold}. Every pair scoring {listed} or "
                   "more is in similarity.csv.",
        "none": "No two students reach {threshold}.", "best": "The highest score below it: {score} ({first} and "
                                                                "{second}).",
        "more": "This page lists the {shown} highest pairs; {more} more are in similarity.csv.",
        "unreadable": "Notebooks not compared (unreadable): ", "problem": "Nothing compared: {problem}",
        "columns": ("rank", "student", "submitted", "student", "submitted", "score", "where alike", "side by side"),
        "code": "code", "open": "side by side", "unknown": "—",
        "title": "Similar submissions: {first} and {second}", "back": "← back to the class report",
        "who": ("student", "submitted"), "score": "score {score}", "missing": "(no such cell)",
        "legend": "Marked: what the two share and few classmates do; the release's code, what its comments spell out, "
                  "the reference solution's statements, the questions' text and the class's common ways of writing "
                  "are not marked.",
    },
}

PAGE_CSS = CSS + """
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; margin-bottom: 1.5em; }
.side pre { white-space: pre-wrap; word-break: break-word; background: #f8f8f8; border: 1px solid #ddd;
            padding: .6em; margin: .3em 0; font-size: .85em; }
.side pre.answer { font-family: inherit; font-size: .95em; }
mark { background: #ffd54f; padding: 0 1px; }
"""


def _e(value) -> str:
    return html.escape(str(value))


def page_name(pair) -> str:
    """The file of ``pair``'s page in :data:`FOLDER`: named by a hash, as student ids may hold any character."""
    key = "\0".join((pair.first, pair.second)).encode("utf-8")
    return f"pair-{hashlib.sha256(key).hexdigest()[:12]}.html"


def submitted_at(student: str, timestamps: dict, similarity) -> str:
    """When ``student`` submitted: the gradebook's time, else their ``timestamp.txt``; "" when neither says."""
    when = timestamps.get(student)
    if when is not None:
        return f"{when:%Y-%m-%d %H:%M:%S} UTC"
    work = similarity.work.get(student)
    return work.timestamp if work is not None else ""


def _unit(match, text: dict, labels: Labels) -> str:
    """``代码`` / ``思考题 1``: what a match is about, a written question by the name the rest of the report gives it."""
    return text["code"] if match.unit == CODE_UNIT else labels.cell(match.unit)


def _where(pair, text: dict, labels: Labels) -> str:
    """What the pair shares, by unit: ``代码 0.62; 思考题 1 0.55``."""
    return "; ".join(f"{_unit(m, text, labels)} {m.score:.2f}" for m in pair.matches)


def _rows(similarity, timestamps: dict, text: dict, labels: Labels) -> list:
    rows = []
    for rank, pair in enumerate(similarity.flagged[:SHOWN], 1):
        link = f"<a href='{FOLDER}/{page_name(pair)}'>{_e(text['open'])}</a>"
        rows.append([rank, _e(labels.student(pair.first)),
                     _e(submitted_at(pair.first, timestamps, similarity) or text["unknown"]),
                     _e(labels.student(pair.second)),
                     _e(submitted_at(pair.second, timestamps, similarity) or text["unknown"]),
                     f"{pair.score:.2f}", _e(_where(pair, text, labels)), link])
    return rows


def _notes(similarity, text: dict, labels: Labels) -> str:
    """Below the table: the highest pair not flagged, pairs only in the CSV, notebooks not compared."""
    notes, below = [], [pair for pair in similarity.pairs if not pair.flagged]
    if below:
        notes.append(text["best"].format(score=f"{below[0].score:.2f}", first=labels.student(below[0].first),
                                         second=labels.student(below[0].second)))
    if len(similarity.flagged) > SHOWN:
        notes.append(text["more"].format(shown=SHOWN, more=len(similarity.flagged) - SHOWN))
    if similarity.unreadable:
        notes.append(text["unreadable"] + "; ".join(similarity.unreadable))
    return "".join(f"<p>{_e(note)}</p>" for note in notes)


def section(similarity, timestamps: dict, lang: str = DEFAULT, labels: Labels | None = None) -> tuple:
    """``(heading, HTML)`` of the similarity section of ``index.html`` (``timestamps``: the gradebook's; ``labels``: the
    report's names for its ids)."""
    text, labels = TEXT[lang], labels or Labels(lang)
    parts = [f"<p class='warn'>{_e(text['caveat'])}</p>"]
    if similarity.problem:
        return text["heading"], parts[0] + f"<p>{_e(text['problem'].format(problem=similarity.problem))}</p>"
    threshold, listed = f"{similarity.threshold:g}", f"{LISTED * similarity.threshold:g}"
    said = (text["method"].format(limit=similarity.limit, threshold=threshold),
            text["summary"].format(students=similarity.students, flagged=len(similarity.flagged), threshold=threshold,
                                   listed=listed))
    parts += [f"<p>{_e(line)}</p>" for line in said]
    rows = _rows(similarity, timestamps, text, labels)
    none = f"<p>{_e(text['none'].format(threshold=threshold))}</p>"
    parts.append(table(text["columns"], rows, (0, 5)) if rows else none)
    return text["heading"], "".join(parts) + _notes(similarity, text, labels)


def _side_by_side(key: tuple, unit: str, pair, similarity, text: dict, labels: Labels) -> str:
    """One cell (``(notebook, grade_id)``) of both students, side by side, what they share marked."""
    cells = [similarity.work[student].cells.get(key) for student in (pair.first, pair.second)]
    if all(cells):
        shown = highlighted(cells[0].source, cells[1].source, cells[0].kind, similarity.ignored[unit],
                            similarity.language, similarity.released[key], similarity.ground)
    else:
        shown = [_e(cell.source) if cell else _e(text["missing"]) for cell in cells]
    heading = f"<h3>{_e(labels.cell(key[1]))} <small>{_e(key[0])}.ipynb</small></h3>"
    kind = "code" if unit == CODE_UNIT else "answer"
    return heading + "<div class='side'>" + "".join(f"<pre class='{kind}'>{part}</pre>" for part in shown) + "</div>"


def _pair_page(pair, similarity, timestamps: dict, lang: str, labels: Labels) -> str:
    text = TEXT[lang]
    title = text["title"].format(first=labels.student(pair.first), second=labels.student(pair.second))
    who = table(text["who"], [[_e(labels.student(s)), _e(submitted_at(s, timestamps, similarity) or text["unknown"])]
                              for s in (pair.first, pair.second)])
    parts = [f"<p><a href='../index.html'>{_e(text['back'])}</a></p><h1>{_e(title)}</h1>",
             f"<p class='warn'>{_e(text['caveat'])}</p>", who, f"<p>{_e(text['legend'])}</p>"]
    for match in pair.matches:
        parts.append(f"<h2>{_e(_unit(match, text, labels))} · "
                     f"{_e(text['score'].format(score=f'{match.score:.2f}'))}</h2>")
        parts += [_side_by_side(key, match.unit, pair, similarity, text, labels) for key in match.cells]
    return (f"<!DOCTYPE html><html lang='{PAGE[lang]['html_lang']}'><head><meta charset='utf-8'>"
            f"<link rel='icon' href='data:,'><title>{_e(title)}</title><style>{PAGE_CSS}</style></head>"
            f"<body>{''.join(parts)}</body></html>")


def write_pages(similarity, timestamps: dict, out_dir, lang: str = DEFAULT, labels: Labels | None = None) -> list:
    """A page per flagged pair (the :data:`SHOWN` highest) in ``out_dir/similarity/``, the pages of an earlier
    report removed; their paths."""
    labels = labels or Labels(lang)
    folder = pathlib.Path(out_dir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("pair-*.html"):
        old.unlink()
    paths = []
    for pair in similarity.flagged[:SHOWN]:
        path = folder / page_name(pair)
        path.write_text(_pair_page(pair, similarity, timestamps, lang, labels), encoding="utf-8")
        paths.append(path)
    return paths

"""The class report's similarity section, and a page per flagged pair with the two students' work side by side.

The section (in ``index.html``) first says plainly that similarity is a reason to look, not proof; then what
was compared and how, and the flagged pairs, highest score first, each row linking to its pair's page. A
pair's page (``similarity/pair-<hash>.html`` beside ``index.html``) names both students and when each
submitted, and shows every cell where they share something, side by side, what they share in ``<mark>``.
Every page is self-contained (inline CSS, no script) and in the course's language (``report.similar.*`` in the catalogue); what the
students wrote is quoted as they wrote it. Written where the report is, as the report writes its files.
"""
import hashlib
import html
import pathlib

from ..language import DEFAULT, WORDS, marked
from .fingerprints import highlighted
from .html_page import CSS, table, words
from .labels import Labels
from .similarity import CODE_UNIT, LISTED

__all__ = ["FOLDER", "SHOWN", "page_name", "submitted_at", "section", "write_pages"]

FOLDER = "similarity"   # beside index.html
SHOWN = 100             # flagged pairs with a row and a page; the CSV lists them all

# The tables' columns, by message id (``report.similar.*`` in the catalogue: every word of the section and pages)
COLUMNS = (marked("report.similar.columns.rank"), marked("report.similar.columns.student"),
           marked("report.similar.columns.submitted"), marked("report.similar.columns.student"),
           marked("report.similar.columns.submitted"), marked("report.similar.columns.score"),
           marked("report.similar.columns.where_alike"), marked("report.similar.columns.side_by_side"))
WHO = (marked("report.similar.who.student"), marked("report.similar.who.submitted"))

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


def _unit(match, lang: str, labels: Labels) -> str:
    """``代码`` / ``思考题 1``: what a match is about, a written question by the name the rest of the report gives it."""
    return WORDS.say(lang, "report.similar.code") if match.unit == CODE_UNIT else labels.cell(match.unit)


def _where(pair, lang: str, labels: Labels) -> str:
    """What the pair shares, by unit: ``代码 0.62; 思考题 1 0.55``."""
    return "; ".join(f"{_unit(m, lang, labels)} {m.score:.2f}" for m in pair.matches)


def _rows(similarity, timestamps: dict, lang: str, labels: Labels) -> list:
    rows, unknown = [], WORDS.say(lang, "report.similar.unknown")
    for rank, pair in enumerate(similarity.flagged[:SHOWN], 1):
        link = f"<a href='{FOLDER}/{page_name(pair)}'>" + _e(WORDS.say(lang, "report.similar.open")) + "</a>"
        rows.append([rank, _e(labels.student(pair.first)),
                     _e(submitted_at(pair.first, timestamps, similarity) or unknown),
                     _e(labels.student(pair.second)),
                     _e(submitted_at(pair.second, timestamps, similarity) or unknown),
                     f"{pair.score:.2f}", _e(_where(pair, lang, labels)), link])
    return rows


def _notes(similarity, lang: str, labels: Labels) -> str:
    """Below the table: the highest pair not flagged, pairs only in the CSV, notebooks not compared."""
    notes, below = [], [pair for pair in similarity.pairs if not pair.flagged]
    if below:
        notes.append(WORDS.say(lang, "report.similar.best", score=format(below[0].score, ".2f"),
                               first=labels.student(below[0].first), second=labels.student(below[0].second)))
    if len(similarity.flagged) > SHOWN:
        notes.append(WORDS.say(lang, "report.similar.more", shown=SHOWN, more=len(similarity.flagged) - SHOWN))
    if similarity.unreadable:
        notes.append(WORDS.say(lang, "report.similar.unreadable", notebooks="; ".join(similarity.unreadable)))
    return "".join(f"<p>{_e(note)}</p>" for note in notes)


def section(similarity, timestamps: dict, lang: str = DEFAULT, labels: Labels | None = None) -> tuple:
    """``(heading, HTML)`` of the similarity section of ``index.html`` (``timestamps``: the gradebook's; ``labels``: the
    report's names for its ids)."""
    labels, heading = labels or Labels(lang), WORDS.say(lang, "report.similar.heading")
    parts = ["<p class='warn'>" + _e(WORDS.say(lang, "report.similar.caveat")) + "</p>"]
    if similarity.problem:
        problem = WORDS.say(lang, "report.similar.problem", problem=similarity.problem)
        return heading, parts[0] + f"<p>{_e(problem)}</p>"
    threshold, listed = f"{similarity.threshold:g}", f"{LISTED * similarity.threshold:g}"
    said = (WORDS.say(lang, "report.similar.method", limit=similarity.limit, threshold=threshold),
            WORDS.say(lang, "report.similar.summary", students=similarity.students, flagged=len(similarity.flagged),
                      threshold=threshold, listed=listed))
    parts += [f"<p>{_e(line)}</p>" for line in said]
    rows = _rows(similarity, timestamps, lang, labels)
    none = "<p>" + _e(WORDS.say(lang, "report.similar.none", threshold=threshold)) + "</p>"
    parts.append(table(words(lang, COLUMNS), rows, (0, 5)) if rows else none)
    return heading, "".join(parts) + _notes(similarity, lang, labels)


def _side_by_side(key: tuple, unit: str, pair, similarity, lang: str, labels: Labels) -> str:
    """One cell (``(notebook, grade_id)``) of both students, side by side, what they share marked."""
    cells = [similarity.work[student].cells.get(key) for student in (pair.first, pair.second)]
    if all(cells):
        shown = highlighted(cells[0].source, cells[1].source, cells[0].kind, similarity.ignored[unit],
                            similarity.language, similarity.released[key], similarity.ground)
    else:
        shown = [_e(cell.source) if cell else _e(WORDS.say(lang, "report.similar.missing")) for cell in cells]
    heading = f"<h3>{_e(labels.cell(key[1]))} <small>{_e(key[0])}.ipynb</small></h3>"
    kind = "code" if unit == CODE_UNIT else "answer"
    return heading + "<div class='side'>" + "".join(f"<pre class='{kind}'>{part}</pre>" for part in shown) + "</div>"


def _pair_page(pair, similarity, timestamps: dict, lang: str, labels: Labels) -> str:
    say = WORDS.say
    title = say(lang, "report.similar.title", first=labels.student(pair.first), second=labels.student(pair.second))
    unknown = say(lang, "report.similar.unknown")
    who = table(words(lang, WHO), [[_e(labels.student(s)), _e(submitted_at(s, timestamps, similarity) or unknown)]
                                   for s in (pair.first, pair.second)])
    parts = ["<p><a href='../index.html'>" + _e(say(lang, "report.similar.back")) + f"</a></p><h1>{_e(title)}</h1>",
             "<p class='warn'>" + _e(say(lang, "report.similar.caveat")) + "</p>", who,
             "<p>" + _e(say(lang, "report.similar.legend")) + "</p>"]
    for match in pair.matches:
        parts.append(f"<h2>{_e(_unit(match, lang, labels))} · "
                     + _e(say(lang, "report.similar.score", score=format(match.score, ".2f"))) + "</h2>")
        parts += [_side_by_side(key, match.unit, pair, similarity, lang, labels) for key in match.cells]
    tag = say(lang, "locale.html_lang")
    return (f"<!DOCTYPE html><html lang='{tag}'><head><meta charset='utf-8'>"
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

"""What each graded cell is called where students and instructors see it: the heading above it.

nbgrader names a graded cell by its ``grade_id`` (``q_think1_scale``, or an id nbgrader made up) or
by its kind (``Test cell``, ``Written response``). A notebook usually names them already, once, in
its own headings: ``### 思考题 1`` above a written answer, ``### 任务 2：实现 `student_attention_scores```
above a solution and its test cell. :func:`cell_names` reads those headings from the notebook being
shown — the autograded copy in feedback, the student's copy in validate — so a renamed heading renames
the cell everywhere, with no list to keep in step. Two cells under one heading (a solution and its
test, as in nbgrader's own docs course) are told apart by their kind, and numbered if that is not
enough. An assignment's plug-in may name cells its own way (:func:`names_in`, e.g. Chapter 4's
``TEST 1 · …``). The instructor's pages name them in the course's language whichever edition a
student wrote (:func:`names_in_language`: the headings of that language's edition). A whole notebook is called by
its title, its first top-level heading (:func:`title_of`), and an assignment by its notebook's title in a language
(:func:`assignment_title`, the edition named when another language's was written), never by its id.
"""
import pathlib
import re

from .assignments import assignment_of, edition_in
from .language import WORDS, marked

__all__ = ["cell_names", "heading_above", "names_in", "names_in_language", "without_points", "title_of",
           "assignment_title", "EDITIONS"]

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_TITLE = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$")  # a top-level heading: "# 第 4 章 · …"
_MARKUP = re.compile(r"`|\*\*")  # code and bold marks: the name is plain text
# A heading's own points, "（1 分）" or "(2 points)" at its end (:func:`without_points`).
_POINTS = re.compile(r"\s*[（(]\s*\d+(?:\.\d+)?\s*(?:分|points?)\s*[)）]\s*$")
KINDS = {"test": marked("cell_names.test"), "answer": marked("cell_names.answer"), "task": marked("cell_names.task")}


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _plain(heading: str) -> str:
    return _MARKUP.sub("", heading).strip()


def without_points(name: str) -> str:
    """``name`` without the points its heading states at its end (``思考题 1（1 分）`` → ``思考题 1``), for a plug-in
    whose pages show each cell's points themselves."""
    return _POINTS.sub("", name).strip()


def heading_above(cells, index: int) -> str:
    """The last heading of the nearest markdown cell above ``cells[index]`` that has one ('' if none)."""
    for cell in reversed(cells[:index]):
        if cell.get("cell_type") != "markdown":
            continue
        headings = [m.group(1) for m in map(_HEADING.match, _source(cell).splitlines()) if m]
        if headings:
            return _plain(headings[-1])
    return ""


def _kind(meta: dict) -> str:
    if meta.get("task"):
        return "task"
    return "answer" if meta.get("solution") else "test"


def cell_names(nb, lang: str = "zh") -> dict:
    """``{grade_id: name}`` of every graded cell of ``nb`` (a notebook or its JSON), in notebook order.

    The name is the heading above the cell (a task's own heading, if it has one), or the cell's grade id if none;
    two cells that would share a name get their kind after it (``… · 测试``), then a number if they still do.
    """
    cells, found = nb.get("cells", []), []
    for index, cell in enumerate(cells):
        meta = cell.get("metadata", {}).get("nbgrader", {}) or {}
        if meta.get("grade_id") and (meta.get("grade") or meta.get("task")):
            own = heading_above([cell], 1) if meta.get("task") else ""  # a task states itself (never an answer: the student's)
            found.append((meta["grade_id"], own or heading_above(cells, index) or meta["grade_id"], _kind(meta)))
    names = [name for _, name, _ in found]
    named = [(g, f"{name} · {WORDS.say(lang, KINDS[kind])}" if names.count(name) > 1 else name)
             for g, name, kind in found]
    seen, result = {}, {}
    for grade_id, name in named:
        seen[name] = seen.get(name, 0) + 1
        repeats = sum(n == name for _, n in named)
        result[grade_id] = f"{name} ({seen[name]})" if repeats > 1 else name
    return result


def names_in(nb, assignment_id: str = "", config=None, lang: str = "zh") -> dict:
    """:func:`cell_names`, then the names the assignment's plug-in gives (its ``cell_names(nb)``), if any."""
    own = assignment_of(assignment_id, config).get("cell_names")(nb) if assignment_id else {}
    return {**cell_names(nb, lang), **own}


def names_in_language(course, assignment_id: str, lang: str, config=None) -> dict:
    """``{grade_id: name}`` of ``assignment_id``'s graded cells as its ``lang`` edition names them (``实验题 1``,
    "Lab question 1"): from the source notebooks of that edition when the course has them, else of the assignment
    itself (:func:`coursekit.assignments.edition_in`); ``{}`` when neither is there."""
    import nbformat

    for edition in dict.fromkeys(filter(None, (edition_in(assignment_id, lang, config), assignment_id))):
        notebooks = sorted((pathlib.Path(course) / "source" / edition).glob("*.ipynb"))
        names = {}
        for path in reversed(notebooks):  # a grade id two notebooks share: the first notebook's name
            names.update(names_in(nbformat.read(path, as_version=4), edition, config, lang))
        if notebooks:
            return names
    return {}


def title_of(nb) -> str:
    """The title of ``nb`` (a notebook or its JSON): its first top-level heading as plain text ("" when none)."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in _source(cell).splitlines():
                found = _TITLE.match(line)
                if found:
                    return _plain(found.group(1))
    return ""


# How an instructor's page names an edition written in a language other than the one it is shown in.
EDITIONS = {"zh": marked("cell_names.edition_zh"), "en": marked("cell_names.edition_en")}


def assignment_title(course, assignment_id: str, lang: str, config=None) -> str:
    """What an instructor's page in ``lang`` calls ``assignment_id``: the title of its ``lang`` edition's first
    notebook (``第 4 章 · 多头自注意力（Lab04 · step3）``), with the edition said when ``assignment_id`` is one written
    in another language (``…（英文版）``); the id when the course has no such notebook or it no title."""
    import nbformat

    title = ""
    for edition in dict.fromkeys(filter(None, (edition_in(assignment_id, lang, config), assignment_id))):
        notebooks = sorted((pathlib.Path(course) / "source" / edition).glob("*.ipynb"))
        if notebooks:
            title = title_of(nbformat.read(notebooks[0], as_version=4))
            break
    if not title:
        return assignment_id
    written_in = assignment_of(assignment_id, config).language
    if written_in != lang and written_in in EDITIONS:
        return WORDS.say(lang, "cell_names.edition_title", title=title, edition=WORDS.say(lang, EDITIONS[written_in]))
    return title

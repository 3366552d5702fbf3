"""What the marker reads: the manually graded cells of the master, and every student's answer to them.

Any nbgrader assignment's manually graded cells, of three kinds (:data:`KINDS`):

* ``markdown`` — a written answer (``grade`` + ``solution`` markdown cell): its text;
* ``code`` — manually graded code (``grade`` + ``solution`` code cell): its source;
* ``task`` — nbgrader's task cell (``task``): the task is the cell itself, locked; the student's work
  is what they wrote below it, up to the next nbgrader cell (markdown as written, code as code blocks).

The master (``<course>/source/<assignment>/<notebook>.ipynb``) gives each question in notebook order,
its reference answer (the cell, or its ``BEGIN/END SOLUTION`` region, which the release replaces by
the stub; a task has none) and its prompt: the cells above it as students read them, back to the
previous nbgrader cell or the question's heading (a heading cell counts from its last heading on, so
a section's introduction is not the question; a code cell between prompt and answer is shown as code).
What the release put in a question's place (:attr:`Question.stub`) is how an untouched answer is known.

A student's answer is read from ``<course>/autograded/<student>/<assignment>/<notebook>.ipynb`` (what the
formgrader shows); a student without it (nbgrader removed the autograded copy of a notebook it scored
0) is read from ``submitted/``. Notebooks are read once and kept while their file is unchanged (size,
mtime): a class of 300 autograded notebooks of ≈0.5 MB costs about a second to parse.
"""
import hashlib
import json
import pathlib
import re
import threading
from dataclasses import dataclass

from ..record import records_in

__all__ = ["KINDS", "Question", "master_questions", "reference_of", "released_text", "answer_texts", "code_block",
           "text_fingerprint", "AnswerReader"]

KINDS = ("markdown", "code", "task")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Question:
    grade_id: str
    notebook: str
    max_score: float
    reference: str        # the reference answer (Markdown; code for a code question)
    prompt: str           # the question as students read it (Markdown)
    kind: str = "markdown"  # one of KINDS
    stub: str = ""        # what the release has in the answer's place (an answer equal to it is unanswered)

    @property
    def title(self) -> str:
        """The prompt's first heading ("" when it has none)."""
        found = _HEADING.search(self.prompt)
        return found.group(1) if found else ""

    @property
    def body(self) -> str:
        """The prompt without its first heading: the page names the question above it once, not twice."""
        return _HEADING.sub("", self.prompt, count=1).strip()


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _marks_a_boundary(cell) -> bool:
    """Is ``cell`` one of nbgrader's (graded, solution, task or read-only)? Such a cell ends a prompt or a task's work."""
    meta = _nbgrader(cell)
    return any(meta.get(flag) for flag in ("grade", "solution", "task", "locked"))


def _kind(cell) -> str | None:
    """The question kind of a manually graded cell; None for any other cell."""
    meta = _nbgrader(cell)
    if meta.get("task"):
        return "task"
    if meta.get("grade") and meta.get("solution") and cell.get("cell_type") in ("markdown", "code"):
        return cell["cell_type"]
    return None


def code_block(code: str) -> str:
    """``code`` as a fenced Markdown block, its fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}python\n{code.rstrip()}\n{fence}"


def _as_markdown(cell) -> str:
    return code_block(_source(cell)) if cell.get("cell_type") == "code" else _source(cell).strip()


def reference_of(source: str) -> str:
    """The solution region of a master answer cell, or the whole cell when it has none."""
    lines, inside, region = source.splitlines(), False, []
    for line in lines:
        if "BEGIN SOLUTION" in line:
            inside = True
        elif "END SOLUTION" in line:
            inside = False
        elif inside:
            region.append(line)
    return "\n".join(region).strip() if region else source.strip()


def released_text(source: str, stub: str) -> str:
    """What nbgrader's ClearSolutions makes of a master answer cell: its solution region (or all of it) as ``stub``."""
    if "BEGIN SOLUTION" not in source:
        return stub
    out, inside = [], False
    for line in source.splitlines():
        if "BEGIN SOLUTION" in line:
            inside = True
            indent = line[:len(line) - len(line.lstrip())]
            out += [indent + stub_line for stub_line in stub.splitlines()]
        elif "END SOLUTION" in line:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def _from_last_heading(text: str) -> str:
    starts = [m.start() for m in _HEADING.finditer(text)]
    return text[starts[-1]:].strip() if starts else text.strip()


def _without_rules(text: str) -> str:
    """``text`` without the horizontal rules and blank lines it opens with (nbgrader's ps1 starts each part so)."""
    return re.sub(r"\A(?:\s*(?:-{3,}|\*{3,}|_{3,})\s*\n)+", "", text).strip()


def _prompt(cells: list, index: int) -> str:
    """The cells above ``cells[index]`` that pose its question (module docstring), as Markdown."""
    parts = []
    for cell in reversed(cells[:index]):
        if _marks_a_boundary(cell):
            break
        if cell.get("cell_type") == "markdown" and _HEADING.search(_source(cell)):
            parts.insert(0, _from_last_heading(_source(cell)))
            break
        parts.insert(0, _as_markdown(cell))
    return "\n\n".join(p for p in parts if p)


def _task_work(cells: list, index: int) -> str:
    """What follows the task cell ``cells[index]``, up to the next nbgrader cell: the student's work on it."""
    work = []
    for cell in cells[index + 1:]:
        if _marks_a_boundary(cell):
            break
        work.append(_as_markdown(cell))
    return "\n\n".join(part for part in work if part)


def answer_texts(cells: list) -> dict:
    """{grade_id: answer text} of every manually graded cell of a notebook (a task: the work below it)."""
    texts = {}
    for i, cell in enumerate(cells):
        kind = _kind(cell)
        if kind is not None and _nbgrader(cell).get("grade_id"):
            texts[_nbgrader(cell)["grade_id"]] = _task_work(cells, i) if kind == "task" else _source(cell)
    return texts


def text_fingerprint(text: str | None) -> str:
    """16 hex digits naming an answer's text (``"-"``: no notebook found): a judgement carries the fingerprint of the
    text its marker read, and is refused when the answer is another text now (:func:`.judging.check_texts`)."""
    return "-" if text is None else hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _cells(path: pathlib.Path) -> list:
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))["cells"]


def master_questions(master: pathlib.Path, release: pathlib.Path | None = None, stubs: dict | None = None) -> list:
    """The manually graded cells of one master notebook, in order.

    ``release``: the released notebook, whose cells tell what an untouched answer is; without it, nbgrader's
    rule is applied to the master with ``stubs`` ({"markdown": text stub, "code": code stub}).
    """
    cells, notebook, stubs = _cells(master), pathlib.Path(master).stem, stubs or {}
    released = answer_texts(_cells(release)) if release is not None and pathlib.Path(release).is_file() else None
    questions = []
    for i, cell in enumerate(cells):
        kind, meta = _kind(cell), _nbgrader(cell)
        if kind is None or not meta.get("grade_id"):
            continue
        grade_id, source = meta["grade_id"], _source(cell)
        if released is not None:
            stub = released.get(grade_id, "")
        else:
            stub = "" if kind == "task" else released_text(source, stubs.get(kind, ""))
        if kind == "task":
            questions.append(Question(grade_id, notebook, float(meta.get("points", 0)), "", _without_rules(source), kind,
                                      stub))
        else:
            questions.append(Question(grade_id, notebook, float(meta.get("points", 0)), reference_of(source),
                                      _prompt(cells, i), kind, stub))
    return questions


class AnswerReader:
    """Answers (and the grader's records) of one course's notebooks, each file parsed once while it stays the same
    (thread-safe)."""

    def __init__(self, course):
        self.course = pathlib.Path(course)
        self._cache = {}      # {path: ((size, mtime_ns), {grade_id: text}, {grade_id: CellRecord})}
        self._lock = threading.Lock()

    def path_of(self, student: str, assignment: str, notebook: str) -> pathlib.Path | None:
        for stage in ("autograded", "submitted"):
            path = self.course / stage / student / assignment / f"{notebook}.ipynb"
            if path.is_file():
                return path
        return None

    def answers(self, student: str, assignment: str, notebook: str) -> dict | None:
        """{grade_id: text} of the student's answers (:func:`answer_texts`); None when no notebook is found (or unreadable)."""
        return self._parsed(student, assignment, notebook)[0]

    def records(self, student: str, assignment: str, notebook: str) -> dict:
        """{grade_id: CellRecord} the grader wrote in the student's notebook (:func:`coursekit.record.records_in`)."""
        return self._parsed(student, assignment, notebook)[1]

    def _parsed(self, student: str, assignment: str, notebook: str) -> tuple:
        path = self.path_of(student, assignment, notebook)
        if path is None:
            return None, {}
        try:
            stat = path.stat()
        except OSError:
            return None, {}
        version = (stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._cache.get(path)
        if cached and cached[0] == version:
            return cached[1:]
        parsed = self._read(path)
        with self._lock:
            self._cache[path] = (version, *parsed)
        return parsed

    @staticmethod
    def _read(path: pathlib.Path) -> tuple:
        try:
            nb = json.loads(path.read_bytes())
            return answer_texts(nb.get("cells", [])), records_in(nb, str(path))
        except (OSError, ValueError, AttributeError, TypeError):
            return None, {}

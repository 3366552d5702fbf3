"""What the marker reads: the written questions of the master, and every student's answer to them.

* The master (``<course>/source/<assignment>/<notebook>.ipynb``) gives each written answer cell
  (markdown, nbgrader ``grade`` + ``solution``) in notebook order, its reference answer (the cell,
  or its ``BEGIN/END SOLUTION`` region, which the release replaces by the stub) and the question
  above it.
* A student's answer is that cell's text in ``<course>/autograded/<student>/<assignment>/<notebook>.ipynb``
  (what the formgrader shows); a student without it (nbgrader removed the autograded copy of a
  notebook it scored 0) is read from ``submitted/``.

Notebooks are read once and kept while their file is unchanged (size, mtime): a class of 300
autograded notebooks of ≈0.5 MB costs about a second to parse, and the page opens in well under one.
"""
import json
import pathlib
import threading
from dataclasses import dataclass

__all__ = ["Question", "master_questions", "reference_of", "AnswerReader"]


@dataclass(frozen=True)
class Question:
    grade_id: str
    notebook: str
    max_score: float
    reference: str        # the reference answer (Markdown)
    prompt: str           # the markdown cell above the answer: the question as students read it


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


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


def master_questions(master: pathlib.Path) -> list:
    """The written (markdown, manually graded) answer cells of one master notebook, in order."""
    cells = json.loads(pathlib.Path(master).read_text(encoding="utf-8"))["cells"]
    questions, notebook = [], pathlib.Path(master).stem
    for i, cell in enumerate(cells):
        meta = _nbgrader(cell)
        if cell.get("cell_type") == "markdown" and meta.get("grade") and meta.get("solution"):
            above = _source(cells[i - 1]) if i and cells[i - 1].get("cell_type") == "markdown" else ""
            questions.append(Question(meta["grade_id"], notebook, float(meta.get("points", 0)),
                                      reference_of(_source(cell)), above.strip()))
    return questions


class AnswerReader:
    """Answers of one course's notebooks, each file parsed once while it stays the same (thread-safe)."""

    def __init__(self, course):
        self.course = pathlib.Path(course)
        self._cache = {}      # {path: ((size, mtime_ns), {grade_id: text})}
        self._lock = threading.Lock()

    def path_of(self, student: str, assignment: str, notebook: str) -> pathlib.Path | None:
        for stage in ("autograded", "submitted"):
            path = self.course / stage / student / assignment / f"{notebook}.ipynb"
            if path.is_file():
                return path
        return None

    def answers(self, student: str, assignment: str, notebook: str) -> dict | None:
        """{grade_id: text} of the student's written answers; None when no notebook is found (or unreadable)."""
        path = self.path_of(student, assignment, notebook)
        if path is None:
            return None
        try:
            stat = path.stat()
        except OSError:
            return None
        version = (stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._cache.get(path)
        if cached and cached[0] == version:
            return cached[1]
        texts = self._read(path)
        with self._lock:
            self._cache[path] = (version, texts)
        return texts

    @staticmethod
    def _read(path: pathlib.Path) -> dict | None:
        try:
            cells = json.loads(path.read_bytes()).get("cells", [])
        except (OSError, ValueError, AttributeError):
            return None
        return {_nbgrader(c)["grade_id"]: _source(c) for c in cells
                if c.get("cell_type") == "markdown" and _nbgrader(c).get("solution") and _nbgrader(c).get("grade_id")}

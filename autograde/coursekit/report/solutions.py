"""What each student wrote, for the similarity section: their solution cells, and what the release gave them.

The release (``release/<assignment>/*.ipynb``, as ``generate_assignment`` wrote it; where a notebook is not
there, its source through nbgrader's own ``ClearSolutions`` with the assignment's stubs,
:class:`coursekit.stubs.AssignmentStubs`) names the solution cells of each notebook (nbgrader's
``solution: true``: code, and markdown answers) and holds what every student was given: each code cell's
source and each markdown cell's text, the stubs included. The source (the master) holds the solutions
themselves, common ground however many students write them. A student's solution cells are read from
``autograded/<student>/<assignment>/`` (what was graded), else from ``submitted/``, as data a student
may have made hostile (:mod:`coursekit.student_files`).
"""
import pathlib
from dataclasses import dataclass, field

import nbformat

from ..stubs import AssignmentStubs
from ..student_files import UnreadableFile, read_capped, read_notebook

__all__ = ["CODE", "TEXT", "Cell", "Release", "Work", "read_release", "read_work"]

CODE, TEXT = "code", "markdown"  # a solution cell's kind: nbgrader's cell types


@dataclass(frozen=True)
class Cell:
    notebook: str
    grade_id: str
    kind: str        # CODE or TEXT
    source: str


@dataclass(frozen=True)
class Release:
    cells: tuple                       # the solution cells as released (Cell), notebook by notebook, in order
    given: dict                        # {CODE: sources of every code cell, TEXT: of every markdown cell}
    language: str = "python"           # the notebooks' programming language (pygments' name for it)
    solutions: dict = field(default_factory=dict)  # {CODE: the master's solution code cells, TEXT: its answers}

    @property
    def notebooks(self) -> list:
        return list(dict.fromkeys(cell.notebook for cell in self.cells))


@dataclass
class Work:
    """One student's solution cells ({(notebook, grade_id): Cell}) and the notebooks that could not be read."""
    student: str
    cells: dict = field(default_factory=dict)
    unreadable: list = field(default_factory=list)   # UnreadableFile messages
    timestamp: str = ""                              # submitted/…/timestamp.txt, printable characters only


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(map(str, source)) if isinstance(source, list) else str(source)


def _solution_id(cell) -> str:
    """The grade id of a solution cell, "" for any other cell (a student's copy may hold anything in its metadata)."""
    metadata = cell.get("metadata")
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return str(meta.get("grade_id") or "") if isinstance(meta, dict) and meta.get("solution") else ""


def _released(course: pathlib.Path, assignment: str, source: pathlib.Path, config) -> dict:
    """The release of one notebook: the file generate_assignment wrote, else the source with its solutions cleared."""
    released = course / "release" / assignment / source.name
    if released.is_file():
        return nbformat.read(released, as_version=4)
    nb = nbformat.read(source, as_version=4)
    return AssignmentStubs(config=config).preprocess(nb, {"nbgrader": {"assignment": assignment}})[0]


def read_release(course, assignment: str, config=None) -> Release:
    """What the release of ``assignment`` holds: its solution cells and everything it gave; a FileNotFoundError
    naming the folder when the course has no source of it."""
    course = pathlib.Path(course)
    sources = sorted((course / "source" / assignment).glob("*.ipynb"))
    if not sources:
        raise FileNotFoundError(f"{course / 'source' / assignment}: no notebook, so no release to compare against")
    cells, given, solutions, language = [], {CODE: [], TEXT: []}, {CODE: [], TEXT: []}, "python"
    for path in sources:
        nb = _released(course, assignment, path, config)
        language = nb.metadata.get("kernelspec", {}).get("language", language)
        for cell in nb.cells:
            if cell.cell_type in given:
                given[cell.cell_type].append(_source(cell))
            if _solution_id(cell) and cell.cell_type in given:
                cells.append(Cell(path.stem, _solution_id(cell), cell.cell_type, _source(cell)))
        for cell in nbformat.read(path, as_version=4).cells:
            if _solution_id(cell) and cell.cell_type in solutions:
                solutions[cell.cell_type].append(_source(cell))
    return Release(tuple(cells), {kind: tuple(sources) for kind, sources in given.items()}, language,
                   {kind: tuple(sources) for kind, sources in solutions.items()})


def _notebook_of(course: pathlib.Path, student: str, assignment: str, notebook: str) -> pathlib.Path | None:
    for stage in ("autograded", "submitted"):
        path = course / stage / student / assignment / f"{notebook}.ipynb"
        if path.exists() or path.is_symlink():
            return path
    return None


def _timestamp(course: pathlib.Path, student: str, assignment: str) -> str:
    """When ``nbgrader collect`` says the student submitted (``timestamp.txt``); "" when it cannot be read."""
    path = course / "submitted" / student / assignment / "timestamp.txt"
    try:
        text = read_capped(path, 100).decode("utf-8", "replace")
    except (UnreadableFile, OSError):
        return ""
    return "".join(char for char in text.strip() if char.isprintable())[:100]


def read_work(course, student: str, assignment: str, release: Release) -> Work:
    """The student's own version of each of ``release``'s solution cells (the first cell with its grade id)."""
    course = pathlib.Path(course)
    work = Work(student, timestamp=_timestamp(course, student, assignment))
    wanted = {(c.notebook, c.grade_id): c.kind for c in release.cells}
    for notebook in release.notebooks:
        path = _notebook_of(course, student, assignment, notebook)
        if path is None:
            continue
        try:
            cells = read_notebook(path)["cells"]
        except UnreadableFile as error:
            work.unreadable.append(str(error))
            continue
        for cell in (c for c in cells if isinstance(c, dict)):
            key = (notebook, _solution_id(cell))
            if wanted.get(key) == cell.get("cell_type") and key not in work.cells:
                work.cells[key] = Cell(notebook, key[1], wanted[key], _source(cell))
    return work

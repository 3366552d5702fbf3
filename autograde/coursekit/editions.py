"""The chapter's editions as nbgrader assignments: one assignment per edition, and which is which.

nbgrader scores an assignment as the sum of its notebooks and expects every student to hand in every
notebook of it. A student works in one edition of the chapter, so each edition is an assignment of
its own, generated from the one master (``make release``): ``ch04_attention`` (Chinese, the master's
language) and ``ch04_attention_en`` (English, ``source/ch04_attention_en/`` written from the master's
translations; never edited by hand). Both have the same cells, grade ids, points and grader.

This module is the one rule that names them: :func:`edition_assignment` (an edition's assignment),
:func:`edition_of` (an assignment's edition), :func:`chapter_assignments` (every edition's, the
default of ``make grade`` and ``make report``), :func:`source_notebook` (where an assignment's
source lies: ``source/<assignment>/<assignment>.ipynb``, as nbgrader lays it out), and
:func:`cell_names_in` (what the chapter calls each graded cell in a given language, whichever
edition's students wrote it: the instructor's pages speak the course's language).
"""
import pathlib
from dataclasses import dataclass

from attnkit.language import DEFAULT, LANGUAGES

from .paths import ASSIGNMENT

__all__ = ["Edition", "edition_assignment", "edition_of", "chapter_assignments", "source_notebook", "cell_names_in"]


@dataclass(frozen=True)
class Edition:
    """An assignment seen as an edition: the master assignment it comes from and its language."""
    master: str
    language: str


def edition_assignment(lang: str, master: str = ASSIGNMENT) -> str:
    """The assignment of the ``lang`` edition of ``master``: the master itself in its own language, else
    ``<master>_<lang>`` (``ch04_attention_en``)."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(map(repr, LANGUAGES))}: got {lang!r}")
    return master if lang == DEFAULT else f"{master}_{lang}"


def edition_of(assignment: str) -> Edition:
    """The edition ``assignment`` is: ``ch04_attention_en`` → (ch04_attention, en); any other name is a master,
    in the course's own language."""
    master, _, suffix = assignment.rpartition("_")
    if master and suffix in LANGUAGES and suffix != DEFAULT:
        return Edition(master, suffix)
    return Edition(assignment, DEFAULT)


def chapter_assignments(master: str = ASSIGNMENT) -> list:
    """Every edition's assignment of ``master``, the master's own first."""
    return [edition_assignment(lang, master) for lang in LANGUAGES]


def source_notebook(course, assignment: str) -> pathlib.Path:
    """The source notebook of ``assignment`` in ``course``: the master's, or the one ``make release`` writes for an
    edition from it (never edited by hand)."""
    return pathlib.Path(course) / "source" / assignment / f"{assignment}.ipynb"


def cell_names_in(course, assignment: str, lang: str) -> dict:
    """``{grade_id: name}`` of ``assignment``'s graded cells as the ``lang`` edition's headings name them
    (``实验题 1``, "Lab question 1"): the ``lang`` edition's source when the course has it, else the assignment's
    own; ``{}`` when neither is there."""
    import nbformat

    from .plugins.cell_names import cell_names

    master = edition_of(assignment).master
    for path in (source_notebook(course, edition_assignment(lang, master)), source_notebook(course, assignment)):
        if path.is_file():
            return cell_names(nbformat.read(path, as_version=4))
    return {}

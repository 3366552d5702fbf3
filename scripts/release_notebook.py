"""Regenerate the student notebooks, both editions, from the nbgrader master (``make release``).

Normalises the master in place, runs ``nbgrader generate_assignment`` in the course
directory, then copies the released notebook to ``notebooks/ch04_attention.ipynb`` with outputs cleared and metadata
normalised. nbgrader's checksums live in each cell's ``nbgrader`` metadata and cover
only source, type, ids and points, so they survive normalisation and JupyterLab's
Validate button keeps working on the copy.

The English edition is an nbgrader assignment of its own, ``ch04_attention_en`` (the course config names it, an
edition of ``ch04_attention``: :func:`coursekit.assignments.edition_in`):
its source, ``autograde/source/ch04_attention_en/ch04_attention_en.ipynb``, is the master in English
(:func:`attnkit.edition.translate`: the English of the chapter's catalogue, ``autograde/locale/en/LC_MESSAGES/
ch04_attention.po`` (``make translations``), the same code, points,
grade ids, solutions and tests), written here and never edited by hand; so is its rubric,
``autograde/rubrics/ch04_attention_en.toml``, from the master rubric and the marking guide's catalogue,
``autograde/locale/en/LC_MESSAGES/ch04_attention_rubric.po`` (:mod:`coursekit.marking.rubric_edition`).
It is released the same way,
with English release stubs (the chapter's plug-in's, :func:`attnkit.edition.stubs`), into
``notebooks/en/ch04_attention.ipynb``; nbgrader computes its checksums. Its metadata says its language
(``metadata.edition.language = "en"``); the Chinese edition has no such key (Chinese is the default).

The notebook metadata carries the full ``language_info`` that this environment's ipykernel
reports: when the kernel connects, JupyterLab writes the kernel's ``language_info`` into the
notebook and marks it changed ("●" on the tab, before any edit) unless it is already equal.
The Python version in it is this interpreter's; ``--check`` ignores that one field.

    python scripts/release_notebook.py            # write the English source and rubric, notebooks/ch04_attention.ipynb, notebooks/en/…
    python scripts/release_notebook.py --check    # exit 1 if a committed edition (source or release) is stale
    python scripts/release_notebook.py --translated CELL_ID ...   # their English now translates their Chinese
    python scripts/release_notebook.py --translated CELL_ID --language xx   # another language's translation
"""
import argparse
import copy
import pathlib
import subprocess
import sys
import tempfile

import nbformat
from ipykernel.ipkernel import IPythonKernel

from attnkit import edition
from attnkit.language import DEFAULT, LANGUAGES, NOTEBOOK_KEY
from coursekit.assignments import edition_in
from coursekit.gradebook import alembic_env
from coursekit.marking.rubric import rubric_file
from coursekit.marking.rubric_edition import edition_file, write_edition
from coursekit.paths import ASSIGNMENT, COURSE, MASTER, REPO, STUDENT_NOTEBOOK, copy_course, source_notebook
from coursekit.settings import course_config

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # scripts/translations.py, beside this one
from translations import chapter_translation, mark_reviewed, rubric_words  # noqa: E402

KEPT_CELL_METADATA = ("nbgrader", "tags", "deletable", "editable")
MASTER_CELL_METADATA = KEPT_CELL_METADATA  # the translations live in the chapter's catalogues (autograde/locale)
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def edition_assignment(lang: str) -> str:
    """The assignment of the ``lang`` edition, as the course config names it (``ch04_attention_en``)."""
    found = edition_in(ASSIGNMENT, lang, course_config(COURSE))
    if not found:
        raise SystemExit(f"{COURSE / 'nbgrader_config.py'} names no {lang!r} edition of {ASSIGNMENT} in "
                         "c.CourseKit.assignments (\"edition_of\" and \"language\")")
    return found


def student_notebook(lang: str = DEFAULT) -> pathlib.Path:
    """Where the ``lang`` edition is released: ``notebooks/ch04_attention.ipynb``, ``notebooks/en/…``."""
    return STUDENT_NOTEBOOK if lang == DEFAULT else STUDENT_NOTEBOOK.parent / lang / STUDENT_NOTEBOOK.name


def language_info() -> dict:
    """What the python3 kernel (ipykernel, this interpreter) reports when JupyterLab connects."""
    return copy.deepcopy(IPythonKernel.language_info)


def normalise(nb, kept=KEPT_CELL_METADATA):
    """Return a copy without outputs, execution counts or editor/run-time metadata (its edition's language stays)."""
    nb = copy.deepcopy(nb)
    edition_info = {NOTEBOOK_KEY: nb.metadata[NOTEBOOK_KEY]} if NOTEBOOK_KEY in nb.metadata else {}
    nb.metadata = nbformat.from_dict({"kernelspec": KERNELSPEC, "language_info": language_info(), **edition_info})
    for cell in nb.cells:
        cell.metadata = nbformat.from_dict({k: v for k, v in cell.metadata.items() if k in kept})
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.validate(nb)
    return nb


def dumps(nb) -> str:
    """The committed text form: nbformat's own layout, one trailing newline."""
    return nbformat.writes(nb).rstrip("\n") + "\n"


def without_python_version(text: str) -> str:
    """``text`` with ``language_info.version`` blanked: a release made on another Python is not stale."""
    nb = nbformat.reads(text, as_version=4)
    nb.metadata.get("language_info", {})["version"] = ""
    return dumps(nb)


def generate(course_dir: pathlib.Path, assignment: str = ASSIGNMENT) -> pathlib.Path:
    """Run ``nbgrader generate_assignment`` in ``course_dir``; return the released notebook."""
    subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force", "--log-level=WARN"],
        cwd=course_dir, env=alembic_env(), check=True, capture_output=True, text=True,
    )
    return course_dir / "release" / assignment / f"{assignment}.ipynb"


def release_text(course_dir: pathlib.Path, lang: str = DEFAULT) -> str:
    """Generate the ``lang`` edition's student notebook from ``course_dir`` and return its normalised text."""
    return dumps(normalise(nbformat.read(generate(course_dir, edition_assignment(lang)), as_version=4)))


def edition_source_text(master, lang: str) -> str:
    """The source notebook of the ``lang`` edition's assignment: the master (a notebook) in ``lang`` through the
    chapter's catalogue of that language, solutions and tests included."""
    return dumps(normalise(nbformat.from_dict(edition.translate(master, lang, chapter_translation(lang)))))


def write_edition_source(course_dir: pathlib.Path, lang: str) -> pathlib.Path:
    """Write the ``lang`` edition's source into ``course_dir`` from the master there; return its path."""
    path = source_notebook(course_dir, edition_assignment(lang))
    path.parent.mkdir(parents=True, exist_ok=True)
    master = nbformat.read(course_dir / MASTER.relative_to(COURSE), as_version=4)
    path.write_text(edition_source_text(master, lang), encoding="utf-8")
    return path


def fresh_text(lang: str = DEFAULT) -> str:
    """Release the committed master's ``lang`` edition in a throw-away copy of the course (touches nothing here):
    another edition's source is written from that master first, so a stale committed source does not hide."""
    with tempfile.TemporaryDirectory() as tmp:
        course = copy_course(pathlib.Path(tmp) / "course")
        if lang != DEFAULT:
            write_edition_source(course, lang)
        return release_text(course, lang)


def refresh_master(nb):
    """The master normalised, with the cells attnkit writes (the glossary) as attnkit writes them now."""
    nb = normalise(nb, MASTER_CELL_METADATA)
    for cell in nb.cells:
        if cell.get("id") in edition.GENERATED:
            cell.source = edition.GENERATED[cell.id](DEFAULT)
    return nb


def normalise_in_place(path: pathlib.Path) -> None:
    """Rewrite the master at ``path`` normalised (e.g. after editing it in JupyterLab)."""
    text = path.read_text(encoding="utf-8")
    clean = dumps(refresh_master(nbformat.reads(text, as_version=4)))
    if clean != text:
        path.write_text(clean, encoding="utf-8")
        print(f"normalised {path.relative_to(REPO)}")


def mark_translated(cell_ids: list, lang: str = "en") -> None:
    """Record that these cells' translation (in ``lang``'s chapter catalogue) now translates their current Chinese:
    no longer fuzzy."""
    mark_reviewed(lang, cell_ids)


def is_current(path: pathlib.Path, fresh: str) -> bool:
    """Is the committed ``path`` what ``make release`` writes now (``fresh``), the Python version aside?"""
    return path.is_file() and without_python_version(path.read_text(encoding="utf-8")) == without_python_version(fresh)


def edition_rubric(lang: str) -> pathlib.Path:
    """Where the ``lang`` edition's rubric is written: ``autograde/rubrics/ch04_attention_en.toml``."""
    return rubric_file(COURSE, edition_assignment(lang))


def stale_rubrics() -> list:
    """Each other edition's committed rubric that is not what the master rubric gives now."""
    return [edition_rubric(lang) for lang in LANGUAGES[1:]
            if not edition_rubric(lang).is_file() or edition_rubric(lang).read_text(encoding="utf-8")
            != edition_file(COURSE, ASSIGNMENT, edition_assignment(lang), lang, rubric_words(lang))]


def stale_files() -> list:
    """The committed files ``make release`` writes that differ from what it would write now: each edition's
    student notebook, and each other edition's source and rubric."""
    master = nbformat.read(MASTER, as_version=4)
    stale = [student_notebook(lang) for lang in LANGUAGES if not is_current(student_notebook(lang), fresh_text(lang))]
    stale += [source_notebook(COURSE, edition_assignment(lang)) for lang in LANGUAGES[1:]
              if not is_current(source_notebook(COURSE, edition_assignment(lang)), edition_source_text(master, lang))]
    return stale + stale_rubrics()


def report_translation() -> None:
    """Say what the English edition still lacks (a stale or missing translation); the tests fail on it too."""
    master = nbformat.read(MASTER, as_version=4)
    for lang in LANGUAGES[1:]:
        for problem in edition.problems(master, lang, chapter_translation(lang)):
            print(f"warning: {lang}: {problem}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether the committed copies are fresh")
    parser.add_argument("--translated", nargs="+", metavar="CELL_ID",
                        help="mark these cells' translation as translating their current Chinese")
    parser.add_argument("--language", default="en", help="whose translation --translated marks (default: en)")
    args = parser.parse_args(argv)
    if args.translated:
        mark_translated(args.translated, args.language)
        return 0
    if args.check:
        stale = stale_files()
        written = [path for lang in LANGUAGES[1:] for path in (source_notebook(COURSE, edition_assignment(lang)),
                                                                edition_rubric(lang))]
        for path in written + [student_notebook(lang) for lang in LANGUAGES]:
            print(f"{path.relative_to(REPO)} is {'STALE: run `make release`' if path in stale else 'fresh'}")
        return int(bool(stale))
    normalise_in_place(MASTER)
    report_translation()
    for lang in LANGUAGES[1:]:
        print(f"wrote {write_edition_source(COURSE, lang).relative_to(REPO)}")
        rubric = write_edition(COURSE, ASSIGNMENT, edition_assignment(lang), lang, rubric_words(lang))
        print(f"wrote {rubric.relative_to(REPO)}")
    for lang in LANGUAGES:
        student_notebook(lang).parent.mkdir(parents=True, exist_ok=True)
        student_notebook(lang).write_text(release_text(COURSE, lang), encoding="utf-8")
        print(f"wrote {student_notebook(lang).relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate the student notebooks, both editions, from the nbgrader master (``make release``).

Normalises the master in place, runs ``nbgrader generate_assignment`` in the course
directory, then copies the released notebook to ``notebooks/ch04_attention.ipynb`` with outputs cleared and metadata
normalised. nbgrader's checksums live in each cell's ``nbgrader`` metadata and cover
only source, type, ids and points, so they survive normalisation and JupyterLab's
Validate button keeps working on the copy.

The English edition, ``notebooks/en/ch04_attention.ipynb``, is released the same way from the master in
English (:func:`attnkit.edition.translate`: the English each cell keeps in its metadata, the same code,
points, grade ids and hidden tests) in a throw-away copy of the course, with English release stubs
(:data:`attnkit.edition.STUBS`); nbgrader computes its checksums. Its metadata says its language
(``metadata.edition.language = "en"``); the Chinese edition has no such key (Chinese is the default).

The notebook metadata carries the full ``language_info`` that this environment's ipykernel
reports: when the kernel connects, JupyterLab writes the kernel's ``language_info`` into the
notebook and marks it changed ("●" on the tab, before any edit) unless it is already equal.
The Python version in it is this interpreter's; ``--check`` ignores that one field.

    python scripts/release_notebook.py            # write notebooks/ch04_attention.ipynb and notebooks/en/…
    python scripts/release_notebook.py --check    # exit 1 if a committed edition is stale
    python scripts/release_notebook.py --translated CELL_ID ...   # their English now translates their Chinese
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
from coursekit.gradebook import alembic_env
from coursekit.paths import ASSIGNMENT, CONFIG_FILE, COURSE, MASTER, REPO, STUDENT_NOTEBOOK, copy_course

KEPT_CELL_METADATA = ("nbgrader", "tags", "deletable", "editable")
MASTER_CELL_METADATA = KEPT_CELL_METADATA + (edition.KEY,)  # the master keeps each cell's English too
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


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


def generate(course_dir: pathlib.Path) -> pathlib.Path:
    """Run ``nbgrader generate_assignment`` in ``course_dir``; return the released notebook."""
    subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force", "--log-level=WARN"],
        cwd=course_dir, env=alembic_env(), check=True, capture_output=True, text=True,
    )
    return course_dir / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def release_text(course_dir: pathlib.Path) -> str:
    """Generate the student notebook from ``course_dir`` and return its normalised text."""
    return dumps(normalise(nbformat.read(generate(course_dir), as_version=4)))


def use_edition(course_dir: pathlib.Path, lang: str) -> None:
    """Make a throw-away course release the ``lang`` edition: its master in ``lang``, its release stubs last in
    its config (after the course's own, which are the Chinese ones)."""
    master = course_dir / MASTER.relative_to(COURSE)
    nbformat.write(edition.translate(nbformat.read(master, as_version=4), lang), master)
    stubs = edition.STUBS[lang]
    with open(course_dir / CONFIG_FILE, "a", encoding="utf-8") as config:
        config.write(f"\n# make release: the {lang} edition's stubs\n"
                     f"c.ClearSolutions.code_stub = {{'python': {stubs['code']!r}}}\n"
                     f"c.ClearSolutions.text_stub = {stubs['text']!r}\n")


def fresh_text(lang: str = DEFAULT) -> str:
    """Release the committed master's ``lang`` edition in a throw-away copy of the course (touches nothing here)."""
    with tempfile.TemporaryDirectory() as tmp:
        course = copy_course(pathlib.Path(tmp) / "course")
        if lang != DEFAULT:
            use_edition(course, lang)
        return release_text(course)


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


def mark_translated(cell_ids: list) -> None:
    """Record that these cells' English now translates their current Chinese (:func:`attnkit.edition.restamp`)."""
    nb = nbformat.read(MASTER, as_version=4)
    for cell_id in cell_ids:
        edition.restamp(nb, cell_id)
    MASTER.write_text(dumps(nb), encoding="utf-8")


def stale_editions() -> list:
    """The committed editions that differ from a fresh release (the Python version aside)."""
    return [lang for lang in LANGUAGES if without_python_version(fresh_text(lang))
            != without_python_version(student_notebook(lang).read_text(encoding="utf-8"))]


def report_translation() -> None:
    """Say what the English edition still lacks (a stale or missing translation); the tests fail on it too."""
    for problem in edition.problems(nbformat.read(MASTER, as_version=4), "en"):
        print(f"warning: {problem}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether the committed copies are fresh")
    parser.add_argument("--translated", nargs="+", metavar="CELL_ID",
                        help="mark these cells' English as translating their current Chinese")
    args = parser.parse_args(argv)
    if args.translated:
        mark_translated(args.translated)
        return 0
    if args.check:
        stale = stale_editions()
        for lang in LANGUAGES:
            state = "STALE: run `make release`" if lang in stale else "fresh"
            print(f"{student_notebook(lang).relative_to(REPO)} is {state}")
        return int(bool(stale))
    normalise_in_place(MASTER)
    report_translation()
    STUDENT_NOTEBOOK.write_text(release_text(COURSE), encoding="utf-8")
    for lang in LANGUAGES[1:]:
        student_notebook(lang).parent.mkdir(parents=True, exist_ok=True)
        student_notebook(lang).write_text(fresh_text(lang), encoding="utf-8")
    for lang in LANGUAGES:
        print(f"wrote {student_notebook(lang).relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate the student notebook from the nbgrader master (``make release``).

Normalises the master in place, runs ``nbgrader generate_assignment`` in the course
directory, then copies the released notebook to ``notebooks/ch04_attention.ipynb`` with outputs cleared and metadata
normalised. nbgrader's checksums live in each cell's ``nbgrader`` metadata and cover
only source, type, ids and points, so they survive normalisation and JupyterLab's
Validate button keeps working on the copy.

The notebook metadata carries the full ``language_info`` that this environment's ipykernel
reports: when the kernel connects, JupyterLab writes the kernel's ``language_info`` into the
notebook and marks it changed ("●" on the tab, before any edit) unless it is already equal.
The Python version in it is this interpreter's; ``--check`` ignores that one field.

    python scripts/release_notebook.py            # write notebooks/ch04_attention.ipynb
    python scripts/release_notebook.py --check    # exit 1 if the committed copy is stale
"""
import argparse
import copy
import pathlib
import subprocess
import sys
import tempfile

import nbformat
from ipykernel.ipkernel import IPythonKernel

from coursekit.gradebook import alembic_env
from coursekit.paths import ASSIGNMENT, COURSE, MASTER, REPO, STUDENT_NOTEBOOK, copy_course

KEPT_CELL_METADATA = ("nbgrader", "tags", "deletable", "editable")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def language_info() -> dict:
    """What the python3 kernel (ipykernel, this interpreter) reports when JupyterLab connects."""
    return copy.deepcopy(IPythonKernel.language_info)


def normalise(nb):
    """Return a copy without outputs, execution counts or editor/run-time metadata."""
    nb = copy.deepcopy(nb)
    nb.metadata = nbformat.from_dict({"kernelspec": KERNELSPEC, "language_info": language_info()})
    for cell in nb.cells:
        cell.metadata = nbformat.from_dict({k: v for k, v in cell.metadata.items() if k in KEPT_CELL_METADATA})
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


def fresh_text() -> str:
    """Release the committed master in a throw-away copy of the course (touches nothing here)."""
    with tempfile.TemporaryDirectory() as tmp:
        return release_text(copy_course(pathlib.Path(tmp) / "course"))


def normalise_in_place(path: pathlib.Path) -> None:
    """Rewrite ``path`` normalised (e.g. the master after editing it in JupyterLab)."""
    text = path.read_text(encoding="utf-8")
    clean = dumps(normalise(nbformat.reads(text, as_version=4)))
    if clean != text:
        path.write_text(clean, encoding="utf-8")
        print(f"normalised {path.relative_to(REPO)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether the committed copy is fresh")
    args = parser.parse_args(argv)
    if args.check:
        committed = STUDENT_NOTEBOOK.read_text(encoding="utf-8")
        stale = without_python_version(fresh_text()) != without_python_version(committed)
        print(f"{STUDENT_NOTEBOOK.relative_to(REPO)} is {'STALE: run `make release`' if stale else 'fresh'}")
        return int(stale)
    normalise_in_place(MASTER)
    STUDENT_NOTEBOOK.write_text(release_text(COURSE), encoding="utf-8")
    print(f"wrote {STUDENT_NOTEBOOK.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Helpers for running the nbgrader course (autograde/) in tests: the real CLI, cells, the gradebook.

Every course run happens in a throw-away copy of the course (``course_copy``) with its own
exchange and home folders (``isolated_env``); :mod:`support.classes` grades the shared classes with these.
"""
import html
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from attnkit.edition import stubs
from attnkit.language import SPOKEN
from attnkit.exercises import EXERCISES
from attnkit.gradecell import TEST_CELLS
from coursekit.gradebook import alembic_env
from coursekit.paths import ASSIGNMENT, copy_course

POINTS = {test.grade_id: test.points for test in TEST_CELLS}  # the master's metadata is checked against it
# every test cell the grader grades: TEST 1-4, then the practice exercises' (0 points)
GRADER_CELLS = (*POINTS, *(exercise.grade_id for exercise in EXERCISES))
MANUAL = ["q_lab1_no_scale", "q_lab2_neg_inf", "q_lab3_matmul_speed", "q_lab4_num_params",
          "q_think1_scale", "q_think2_mask_order", "q_think3_max_trick", "q_think4_split"]
# the release's code stub, in any edition (attnkit.edition.stubs: "# 在这里写你的实现" / "# Write your … here", then pass)
STUBS = [stubs(lang) for lang in SPOKEN]
assert all(stub["code"].endswith("\npass") for stub in STUBS)
STUB = re.compile("(?:" + "|".join(re.escape(stub["code"].split("\n")[0]) for stub in STUBS) + r")\n( *)pass$",
                  re.M)


# ---------- the real nbgrader CLI, isolated ----------

def isolated_env(home, **extra):
    """Environment whose HOME and Jupyter/IPython/matplotlib state live under ``home`` (a temp dir)."""
    home = pathlib.Path(home)
    env = dict(os.environ, HOME=str(home), IPYTHONDIR=str(home / ".ipython"),
               MPLCONFIGDIR=str(home / ".matplotlib"), **extra)
    for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                     ("JUPYTER_RUNTIME_DIR", "runtime")):
        env[var] = str(home / ".jupyter" / sub)
    return env


def run_nbgrader(*args, cwd, env=None, timeout=900):
    """``nbgrader *args`` in ``cwd`` (default environment: this process's); the completed process."""
    return subprocess.run([sys.executable, "-m", "nbgrader", *args],
                          cwd=cwd, env=alembic_env(env), capture_output=True, text=True, timeout=timeout)


def course_copy(tmp_path):
    """A throw-away course: the current master and config, nothing generated yet."""
    return copy_course(pathlib.Path(tmp_path) / "course")


def released(course, assignment=ASSIGNMENT):
    """The student notebook that ``generate_assignment`` wrote into ``course`` (of ``assignment``: an edition's)."""
    return nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", as_version=4)


# ---------- cells ----------

# The chapter's figures as a notebook shows them: a PNG of its own, or the described figure of attnkit.describe
# (figure_html: the PNG with its text alternative as alt, its numbers folded below).
_DESCRIBED = re.compile(r'<figure class="attn-described"[^>]*><img src="data:image/png;base64,([^"]+)" alt="([^"]*)"')


def pictures(outputs) -> list:
    """The PNGs (base64) ``outputs`` show, either way; a described figure without its alt text counts as none."""
    found = []
    for output in outputs:
        data = output.get("data", {})
        if "image/png" in data:
            found.append(data["image/png"])
        found += [png for png, alt in _DESCRIBED.findall(data.get("text/html", "")) if alt.strip()]
    return found


def cells_by_id(nb):
    return {c.metadata.get("nbgrader", {}).get("grade_id", c.get("id")): c for c in nb.cells}


def output_text(cell, stream="stdout"):
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == stream)


def cell_score(cell):
    """The cell's partial credit exactly as nbgrader reads it: float(text/plain) of the last expression."""
    results = [o for o in cell.outputs if o.output_type == "execute_result"]
    assert len(results) == 1, cell.outputs
    return float(results[0].data["text/plain"])  # "np.float64(...)" or "True" would raise here


def index_of(nb, grade_id):
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def fill_solution(nb, grade_id, body):
    """Replace the stub of solution cell ``grade_id`` by ``body`` (indented like the stub); metadata kept."""
    cell = nb.cells[index_of(nb, grade_id)]
    match = STUB.search(cell.source)
    assert match, f"no release stub in {grade_id}"
    indent = match.group(1)  # the first line's indent is already in the source, before the match
    typed = textwrap.indent(body.strip("\n"), indent)[len(indent):]
    cell.source = cell.source[:match.start()] + typed + cell.source[match.end():]
    return nb


# ---------- results ----------

def gradebook_scores(course, student, url=None, assignment=ASSIGNMENT):
    """``{grade_id: score}`` of the autograded test cells in the course's gradebook (``url``: another one), plus the
    "total"; {} when the student has no submission there (of ``assignment``: an edition's)."""
    with Gradebook(url or f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        try:
            notebook = gradebook.find_submission_notebook(assignment, assignment, student)
        except MissingEntry:
            return {}
        scores = {g.name: g.score for g in notebook.grades if g.name in POINTS}
        return {**scores, "total": notebook.score}


def gradebook_comments(course, student, url=None):
    """``{grade_id: auto_comment}`` of a student's answer cells; {} when the student has no submission."""
    with Gradebook(url or f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        try:
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
        except MissingEntry:
            return {}
        return {c.name: c.auto_comment for c in notebook.comments}


def visible_text(html_page):
    """What a reader of the feedback page sees: tags (syntax highlighting) removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_page))

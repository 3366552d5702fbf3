"""The chapter's two editions, for the tests that hold both to the same facts.

:data:`EDITIONS` is what a test parametrizes over; :func:`master` is the master in that language
(:func:`attnkit.edition.translate`), :func:`release` the committed student notebook of that edition
(``make release``: ``notebooks/`` and ``notebooks/en/``, kept fresh by
tests/integration/test_release_notebook.py). :data:`ASSIGNMENTS` names each edition's nbgrader assignment as the
course config declares them (``ch04_attention``, ``ch04_attention_en``). :data:`CJK` finds Chinese (and other CJK)
characters.
"""
import functools
import importlib.util
import re

import nbformat

from attnkit import edition
from attnkit.language import LANGUAGES
from coursekit.assignments import editions_of
from coursekit.paths import ASSIGNMENT, COURSE, MASTER, REPO
from coursekit.settings import course_config

EDITIONS = LANGUAGES  # ("zh", "en")
ASSIGNMENTS = editions_of(ASSIGNMENT, course_config(COURSE))  # {"zh": "ch04_attention", "en": "ch04_attention_en"}
CJK = edition.CJK
# How a finding names a row of §4.10's table (attnkit.troubleshooting.pointer) or the rows of one function (stage_pointer).
POINTER = {"zh": re.compile(r"排查表“([^”]+)”"), "en": re.compile(r"the troubleshooting table's row \"([^\"]+)\"")}
STAGE_POINTER = {"zh": re.compile(r"「先检查」一栏写着 (\w+) 的几行"),
                 "en": re.compile(r"whose \"Check first\" column names (\w+)")}


@functools.cache
def release_script():
    """scripts/release_notebook.py as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("release_notebook", REPO / "scripts" / "release_notebook.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def student_path(lang: str):
    return release_script().student_notebook(lang)


@functools.cache
def _master_text() -> str:
    return MASTER.read_text(encoding="utf-8")


@functools.cache
def translation(lang: str) -> edition.Translation:
    """``lang``'s translation of the chapter, from its catalogue (scripts/translations.py: autograde/locale)."""
    return release_script().chapter_translation(lang)


def master(lang: str) -> nbformat.NotebookNode:
    """The master (solutions, hidden tests) in ``lang``: a fresh copy each call."""
    return edition.translate(nbformat.reads(_master_text(), as_version=4), lang, translation(lang))


def release(lang: str) -> nbformat.NotebookNode:
    return nbformat.read(student_path(lang), as_version=4)


def cell_source(nb, cell_id: str) -> str:
    return next(c.source for c in nb.cells if c.get("id") == cell_id)

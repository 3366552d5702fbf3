"""Which language attnkit prints and draws in: the chapter's edition chooses, once; and attnkit's words.

The chapter has an edition per language of the course (:data:`LANGUAGES`), built from one master (``make
release``): Chinese (``notebooks/ch04_attention.ipynb``, the default) and English (``notebooks/en/``). The English
edition's set-up cell calls ``attnkit.use_language("en")``; from then on verify, the diagnosis, the test cells'
notes, the figures and the explorer speak English in that kernel.

Every function that renders text takes ``lang`` explicitly as well (``None``: the notebook's choice,
:func:`current`). Code that renders for someone else, such as a grader process writing a record in a student's
language, passes ``lang`` and never calls :func:`use_language`, so two languages in one process never meet. Only a
notebook's own kernel holds a choice.

The languages, the rule that reads a notebook's (:func:`of_notebook`: ``metadata.edition.language``, Chinese when
absent or unknown) and the catalogues' loader are the course toolkit's, written once (:mod:`coursekit.language`);
:data:`WORDS` is attnkit's catalogue (``attnkit/locale/<language>/LC_MESSAGES/attnkit.po``): every word attnkit
prints or draws, by id. Standard library only: the grader and the instructor's tools import it without numpy.
"""
import contextlib
import pathlib

from coursekit.language import (DEFAULT, LANGUAGES, NOTEBOOK_KEY, PSEUDO, SPOKEN, Catalogue, checked, marked, of_notebook,
                                pick, pseudo)

__all__ = ["LANGUAGES", "DEFAULT", "PSEUDO", "SPOKEN", "NOTEBOOK_KEY", "WORDS", "use_language", "using", "current", "resolve",
           "checked", "of_notebook", "pick", "marked", "pseudo"]

WORDS = Catalogue("attnkit", pathlib.Path(__file__).with_name("locale"))

# The notebook's choice. A module global, not a ContextVar: IPython runs each cell in a copy of
# the context, so a ContextVar set in the set-up cell would be gone in the next cell.
_chosen = DEFAULT


def use_language(lang: str) -> None:
    """Make ``lang`` ("zh" or "en") what this kernel's attnkit prints and draws in (the edition's set-up cell)."""
    global _chosen
    _chosen = checked(lang)


@contextlib.contextmanager
def using(lang: str):
    """``use_language(lang)`` for a ``with`` block, the previous choice back afterwards (running an edition's
    cells in a process that also renders the other language: tests, the static book)."""
    previous = _chosen
    use_language(lang)
    try:
        yield
    finally:
        use_language(previous)


def current() -> str:
    """The language :func:`use_language` chose in this process ("zh" unless told)."""
    return _chosen


def resolve(lang: str | None = None) -> str:
    """``lang`` checked, or the notebook's choice when ``lang`` is None."""
    return _chosen if lang is None else checked(lang)

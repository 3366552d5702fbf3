"""Which language attnkit prints and draws in: the chapter's edition chooses, once.

The chapter has two editions built from one master (``make release``): Chinese
(``notebooks/ch04_attention.ipynb``, the default) and English (``notebooks/en/``). The English
edition's set-up cell calls ``attnkit.use_language("en")``; from then on verify, the diagnosis,
the test cells' notes, the figures and the explorer speak English in that kernel.

Every function that renders text takes ``lang`` explicitly as well (``None``: the notebook's
choice, :func:`current`). Code that renders for someone else, such as a grader process writing a
record in a student's language, passes ``lang`` and never calls :func:`use_language`, so two
languages in one process never meet. Only a notebook's own kernel holds a choice.

An edition says its language in the notebook's metadata, ``metadata["edition"]["language"]``
(:data:`NOTEBOOK_KEY`; absent means Chinese): :func:`of_notebook` reads it.
Standard library only: the grader and the instructor's tools import it without numpy.
"""

import contextlib

__all__ = ["LANGUAGES", "DEFAULT", "NOTEBOOK_KEY", "use_language", "using", "current", "resolve", "of_notebook",
           "pick"]

LANGUAGES = ("zh", "en")  # Simplified Chinese (the course's own), English
DEFAULT = "zh"
NOTEBOOK_KEY = "edition"  # nb.metadata["edition"] = {"language": "en"}

# The notebook's choice. A module global, not a ContextVar: IPython runs each cell in a copy of
# the context, so a ContextVar set in the set-up cell would be gone in the next cell.
_chosen = DEFAULT


def _checked(lang) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(map(repr, LANGUAGES))}: got {lang!r}")
    return lang


def use_language(lang: str) -> None:
    """Make ``lang`` ("zh" or "en") what this kernel's attnkit prints and draws in (the edition's set-up cell)."""
    global _chosen
    _chosen = _checked(lang)


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
    return _chosen if lang is None else _checked(lang)


def of_notebook(nb) -> str:
    """The language of a notebook (a dict or NotebookNode): its ``metadata.edition.language``, else Chinese."""
    edition = (nb.get("metadata") or {}).get(NOTEBOOK_KEY) or {}
    return _checked(edition.get("language", DEFAULT))


def pick(texts: dict, lang: str | None = None) -> str:
    """``texts[lang]`` from a ``{"zh": …, "en": …}`` pair, with ``lang`` resolved as above."""
    return texts[resolve(lang)]

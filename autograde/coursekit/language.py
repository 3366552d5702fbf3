"""Which language the toolkit speaks: a student reads their notebook's, an instructor the course's.

Everything the toolkit says comes from tables keyed by language (each module keeps its own, the same
keys and placeholders in each). Two choices pick the table:

* a student reads the language of the notebook they work in — the feedback page, Validate, the notes of
  the output cap, the grader's verdicts. A notebook says it in its metadata, ``metadata.edition.language``
  (:data:`NOTEBOOK_KEY`; how an assignment written in several languages marks each of them, such as
  Chapter 4's English edition). :func:`of_notebook` reads it; a notebook that says nothing, or something
  the toolkit does not speak, is in :data:`DEFAULT`.
* an instructor reads the course's language, ``c.CourseKit.language`` (:data:`DEFAULT` unless the config
  says otherwise): ``make grade``, ``make report``, the marking page (:func:`coursekit.settings.course_settings`).

An assignment with no notebook at hand (a submission that could not be read) is in the language its
config declares (:attr:`coursekit.assignments.Assignment.language`). Standard library only.
"""
__all__ = ["LANGUAGES", "DEFAULT", "NOTEBOOK_KEY", "checked", "of_notebook"]

LANGUAGES = ("zh", "en")  # Simplified Chinese (the course's own), English
DEFAULT = "zh"
NOTEBOOK_KEY = "edition"  # nb.metadata["edition"] = {"language": "en"}


def checked(lang, where: str = "a language") -> str:
    """``lang`` when the toolkit speaks it; else a ValueError that names ``where`` it was asked for."""
    if lang not in LANGUAGES:
        raise ValueError(f"{where} must be one of {', '.join(map(repr, LANGUAGES))}, got {lang!r}")
    return lang


def of_notebook(nb) -> str:
    """The language of a notebook (a dict or NotebookNode, often the student's own copy, so anything may be in its
    metadata): its ``metadata.edition.language`` when the toolkit speaks it, else :data:`DEFAULT`."""
    try:
        lang = ((nb.get("metadata") or {}).get(NOTEBOOK_KEY) or {}).get("language")
    except AttributeError:  # metadata of the wrong type
        return DEFAULT
    return lang if lang in LANGUAGES else DEFAULT

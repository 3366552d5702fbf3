"""Another edition's rubric, written from the master rubric: one source, so a point added once reaches both.

The master rubric (``rubrics/<assignment>.toml``, read as it is by :mod:`.rubric`) keeps each point's
words in another language next to its own, under that language's key (``en.text``, ``en.terms``,
``en.patterns``); the point's ``share`` and its place are written once. :func:`edition_text` gives the
``lang`` edition's rubric as TOML: every point of the master, in the master's order, with the master's
share and that language's words. ``make release`` writes it to ``rubrics/<edition's assignment>.toml``
(:func:`write_edition`), and a test checks that the committed file is what the master gives now.
"""
import json
import pathlib
import tomllib

from .rubric import RubricError, load_rubrics, rubric_file

__all__ = ["WORDS", "edition_points", "edition_text", "edition_file", "write_edition"]

WORDS = ("text", "terms", "patterns")  # what a language has of its own; the share is the point's
# The rule the master's header states in both languages (coursekit.marking.rubric.contradiction_cap), in English.
CONTRADICTIONS = ("Contradictions: an answer that says the opposite of a point (negated, turned round, a wrong "
                  "conclusion) loses that point and gets at most 1/4 of the question.")


def _point_in(path, question: str, index: int, entry: dict, lang: str) -> dict:
    words = entry.get(lang) if isinstance(entry, dict) else None
    if not isinstance(words, dict) or not isinstance(words.get("text"), str):
        raise RubricError(f"{path}: [[{question}.points]] #{index + 1} needs {lang}.text = \"…\" "
                          f"(the point in the {lang!r} edition)")
    return {"text": words["text"], "share": entry.get("share"),
            **{key: words[key] for key in WORDS[1:] if key in words}}


def edition_points(master_path, lang: str) -> dict:
    """``{question: [point, …]}`` of the ``lang`` edition, each point a dict of the rubric file's keys."""
    path = pathlib.Path(master_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise RubricError(f"{path} is not valid TOML: {error}") from None
    return {question: [_point_in(path, question, i, entry, lang) for i, entry in enumerate(table.get("points", []))]
            for question, table in data.items()}


def _string(text: str) -> str:
    """A TOML string: literal ('…', what a regular expression reads best in) when it can be, else basic."""
    if "'" not in text and "\n" not in text and text.isprintable():
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)  # JSON's escapes are TOML's basic string escapes


def _value(key: str, value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_string(v) if key == "patterns" else json.dumps(v, ensure_ascii=False)
                               for v in value) + "]"
    return repr(value) if key == "share" else json.dumps(value, ensure_ascii=False)


def edition_text(master_path, lang: str, header: str = "") -> str:
    """The ``lang`` edition's rubric file, from the master at ``master_path`` (``header``: comment lines on top)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    for question, points in edition_points(master_path, lang).items():
        for point in points:
            lines += ["", f"[[{question}.points]]"]
            lines += [f"{key} = {_value(key, point[key])}" for key in ("text", "share", *WORDS[1:]) if key in point]
    return "\n".join(lines).lstrip("\n") + "\n"


def edition_file(course, assignment: str, edition: str, lang: str) -> str:
    """What ``rubrics/<edition>.toml`` holds: :func:`edition_text` of ``rubrics/<assignment>.toml``, with a header."""
    master = rubric_file(course, assignment)
    header = (f"The marking guide of {edition}, the {lang!r} edition of {assignment}: written by `make release` from\n"
              f"{master.name} (its {lang}.* keys). Edit that file, never this one.\n"
              f"{CONTRADICTIONS}")
    return edition_text(master, lang, header)


def write_edition(course, assignment: str, edition: str, lang: str) -> pathlib.Path:
    """Write ``rubrics/<edition>.toml`` (:func:`edition_file`), check that it reads as a rubric; return its path."""
    path = rubric_file(course, edition)
    path.write_text(edition_file(course, assignment, edition, lang), encoding="utf-8")
    load_rubrics(course, edition)  # a mistake in the translation names the file and the entry now, not at marking
    return path

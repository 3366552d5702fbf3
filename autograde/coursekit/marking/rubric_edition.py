"""Another edition's rubric, written from the master rubric: one source, so a point added once reaches both.

The master rubric (``rubrics/<assignment>.toml``, read as it is by :mod:`.rubric`) holds each point once: its
Chinese words (``text``, ``terms``, ``patterns``), its ``share`` and its place. Another language's words for it are
of two kinds. What a person reads, the point's text (the TA ticks it, the student's feedback says it), is in the
chapter's gettext catalogue of the marking guide, ``autograde/locale/<language>/LC_MESSAGES/<assignment>_rubric.po``
(``make translations`` writes its template from the master, each point an entry: context its question's grade id,
id its Chinese text), handed here as :class:`PointWords`. What matches an answer in that language, its ``terms``
and ``patterns``, stays beside the point in the master (``en.terms``, ``en.patterns``): rules, not words anyone reads.

:func:`edition_text` gives the ``lang`` edition's rubric as TOML: every point of the master, in the master's order,
with the master's share and that language's words. ``make release`` writes it to ``rubrics/<edition's
assignment>.toml`` (:func:`write_edition`), and a test checks that the committed file is what the master gives now.
"""
import json
import pathlib
import tomllib
from dataclasses import dataclass

from ..language import WORDS, marked
from .rubric import RubricError, load_rubrics, rubric_file

__all__ = ["MATCHING", "PointWords", "edition_points", "edition_text", "edition_file", "write_edition"]

MATCHING = ("terms", "patterns")  # what a language has of its own in the master rubric: how an answer is matched


@dataclass(frozen=True)
class PointWords:
    """A language's texts of the master rubric's points, from the marking guide's catalogue: ``texts`` is
    ``{question: {Chinese text: text}}``; ``source``, the ``.po`` file they came from (named when one is missing)."""
    source: str
    texts: dict


def _point_in(path, question: str, index: int, entry: dict, lang: str, words: PointWords) -> dict:
    text = words.texts.get(question, {}).get(entry.get("text")) if isinstance(entry, dict) else None
    if not isinstance(text, str) or not text:
        raise RubricError(marked("rubric.untranslated"), path=str(path), question=question, index=index + 1,
                          lang=lang, source=words.source)
    matching = entry.get(lang) if isinstance(entry.get(lang), dict) else {}
    return {"text": text, "share": entry.get("share"), **{key: matching[key] for key in MATCHING if key in matching}}


def edition_points(master_path, lang: str, words: PointWords) -> dict:
    """``{question: [point, …]}`` of the ``lang`` edition, each point a dict of the rubric file's keys."""
    path = pathlib.Path(master_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise RubricError(marked("rubric.not_toml"), path=str(path), error=str(error)) from None
    return {question: [_point_in(path, question, i, entry, lang, words)
                       for i, entry in enumerate(table.get("points", []))]
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


def edition_text(master_path, lang: str, words: PointWords, header: str = "") -> str:
    """The ``lang`` edition's rubric file, from the master at ``master_path`` and ``words`` (``header``: comment
    lines on top)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    for question, points in edition_points(master_path, lang, words).items():
        for point in points:
            lines += ["", f"[[{question}.points]]"]
            lines += [f"{key} = {_value(key, point[key])}" for key in ("text", "share", *MATCHING) if key in point]
    return "\n".join(lines).lstrip("\n") + "\n"


def edition_file(course, assignment: str, edition: str, lang: str, words: PointWords) -> str:
    """What ``rubrics/<edition>.toml`` holds: :func:`edition_text` of ``rubrics/<assignment>.toml``, with a header
    (in ``lang``, from coursekit's catalogue) naming where it comes from and the rule for contradictions."""
    master = rubric_file(course, assignment)
    header = WORDS.say(lang, "rubric.edition_header", edition=edition, assignment=assignment, master=master.name,
                       lang=lang, catalogue=words.source, contradictions=WORDS.say(lang, "rubric.contradictions"))
    return edition_text(master, lang, words, header)


def write_edition(course, assignment: str, edition: str, lang: str, words: PointWords) -> pathlib.Path:
    """Write ``rubrics/<edition>.toml`` (:func:`edition_file`), check that it reads as a rubric; return its path."""
    path = rubric_file(course, edition)
    path.write_text(edition_file(course, assignment, edition, lang, words), encoding="utf-8")
    load_rubrics(course, edition)  # a mistake in the translation names the file and the entry now, not at marking
    return path

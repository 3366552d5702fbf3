"""One master, two editions: the chapter in another language, from the translation the master keeps.

The master (``autograde/source/ch04_attention/ch04_attention.ipynb``) is written in Chinese. Each
of its cells keeps its English in its own metadata, next to the Chinese it translates
(``cell.metadata["translation"]["en"]``, :data:`KEY`):

* a markdown cell: ``{"source": [lines], "from": <hash>}``, the whole English text and
  :func:`fingerprint` of the Chinese it was written from, so a later edit of the Chinese shows as
  a stale translation (:func:`problems`) instead of two editions quietly saying different things;
* a code cell: ``{"replace": [[chinese, english], ...]}``, its comments and strings only. The code
  itself is written once: an edited line of code reaches both editions, and an edited comment no
  longer matches its pair and is reported.

:func:`translate` returns the master in a language: every cell translated, the set-up cell calling
``attnkit.use_language`` (:data:`LANGUAGE_CALL`), the glossary cell drawn from
:mod:`attnkit.glossary`, and the notebook's metadata saying its language
(``metadata["edition"]["language"]``, :func:`attnkit.language.of_notebook`). Cell ids, nbgrader
metadata (points, grade ids), solutions and hidden tests are the master's. ``make release`` gives
it to ``nbgrader generate_assignment`` with :data:`STUBS` and writes ``notebooks/en/``.

No Chinese is left in an English edition except where it names the original lab: its title,
:data:`ORIGINAL_LAB` (:func:`foreign_text` finds anything else). Standard library only.
"""
import copy
import hashlib
import re

from . import glossary
from .language import DEFAULT, LANGUAGES, NOTEBOOK_KEY, checked

__all__ = ["KEY", "ORIGINAL_LAB", "STUBS", "LANGUAGE_CALL", "GENERATED", "SETUP_CELL", "fingerprint",
           "source_of", "translate", "problems", "foreign_text", "restamp"]

KEY = "translation"
SETUP_CELL = "setup_imports"  # the nbgrader grade id of the cell that imports attnkit
LANGUAGE_CALL = 'attnkit.use_language("{lang}")  # this edition\'s language: what attnkit prints and draws'
# The original C lab's own title, the one Chinese an English edition keeps (where it names the lab).
ORIGINAL_LAB = "step3 多头自注意力"
# What nbgrader leaves where a solution was (its ClearSolutions code_stub / text_stub), by language.
STUBS = {
    "zh": {"code": "# 在这里写你的实现\npass", "text": "在这里写你的回答。"},
    "en": {"code": "# Write your implementation here\npass", "text": "Write your answer here."},
}
# Cells whose text attnkit writes in every language (the master holds the Chinese; make release refreshes it).
GENERATED = {"glossary": glossary.markdown}
CJK = re.compile(r"[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def fingerprint(text: str) -> str:
    """A short hash of a cell's Chinese: what its English was written from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def source_of(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _entry(cell, lang: str) -> dict:
    return ((cell.get("metadata") or {}).get(KEY) or {}).get(lang) or {}


def _cell_in(cell, lang: str) -> dict:
    """One cell of the master in ``lang``, without the translations (they stay in the master)."""
    english, cell = _entry(cell, lang), copy.deepcopy(cell)
    cell.get("metadata", {}).pop(KEY, None)
    if lang == DEFAULT:
        return cell
    if cell.get("id") in GENERATED:
        cell["source"] = GENERATED[cell["id"]](lang)
    elif cell["cell_type"] == "markdown" and "source" in english:
        cell["source"] = "".join(english["source"])
    elif cell["cell_type"] == "code":
        cell["source"] = _replaced(source_of(cell), english.get("replace", []))
    if _grade_id(cell) == SETUP_CELL:
        _select_language(cell, lang)
    return cell


def _replaced(source: str, pairs) -> str:
    for chinese, english in pairs:
        source = source.replace(chinese, english)
    return source


def _select_language(cell, lang: str) -> None:
    """The set-up cell of a non-default edition chooses its language right after ``import attnkit``."""
    lines = source_of(cell).split("\n")
    if "import attnkit" not in lines:
        raise ValueError(f"the set-up cell ({SETUP_CELL}) must have a line `import attnkit` to choose the language after")
    at = lines.index("import attnkit") + 1
    cell["source"] = "\n".join(lines[:at] + [LANGUAGE_CALL.format(lang=lang)] + lines[at:])


def translate(master: dict, lang: str) -> dict:
    """The master (a notebook as a dict or NotebookNode) in ``lang``: a new notebook, the master untouched."""
    if lang not in LANGUAGES:
        checked(lang)  # names the languages
        raise ValueError(f"the chapter has no {lang!r} edition: its languages are {', '.join(map(repr, LANGUAGES))}")
    nb = copy.copy(master)
    nb["cells"] = [_cell_in(cell, lang) for cell in master["cells"]]
    nb["metadata"] = copy.deepcopy(master.get("metadata", {}))
    if lang != DEFAULT:
        nb["metadata"][NOTEBOOK_KEY] = {"language": lang}
    return nb


def _grade_id(cell) -> str:
    return ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id", "")


def foreign_text(text: str) -> list:
    """The Chinese characters of an English text, apart from the original lab's title."""
    return CJK.findall(text.replace(ORIGINAL_LAB, ""))


def problems(master: dict, lang: str) -> list:
    """What keeps the ``lang`` edition from being complete and current, one line per cell ([] when it is)."""
    found = []
    for cell in master["cells"]:
        where, entry, chinese = f"cell {cell.get('id')!r}", _entry(cell, lang), source_of(cell)
        if cell.get("id") in GENERATED:
            if chinese != GENERATED[cell["id"]](DEFAULT):
                found.append(f"{where}: not what attnkit writes there; run `make release`")
            continue
        if cell["cell_type"] == "markdown" and CJK.search(chinese):
            found += _markdown_problems(where, entry, chinese)
        elif cell["cell_type"] == "code":
            found += _code_problems(where, entry, chinese)
    return found


def _markdown_problems(where: str, entry: dict, chinese: str) -> list:
    if "source" not in entry:
        return [f"{where}: no English (metadata.{KEY}.en.source)"]
    if entry.get("from") != fingerprint(chinese):
        return [f"{where}: the Chinese changed since its English was written; update the English, "
                f"then `python scripts/release_notebook.py --translated {where.split()[1].strip(chr(39))}`"]
    leftover = foreign_text("".join(entry["source"]))
    return [f"{where}: Chinese in the English: {''.join(leftover)!r}"] if leftover else []


def _code_problems(where: str, entry: dict, chinese: str) -> list:
    pairs = entry.get("replace", [])
    found = [f"{where}: {zh!r} is no longer in the code: update its English pair" for zh, _ in pairs if zh not in chinese]
    leftover = foreign_text(_replaced(chinese, pairs))
    if leftover:
        found.append(f"{where}: Chinese left in the English code: {''.join(dict.fromkeys(leftover))!r} "
                     f"(add a pair to metadata.{KEY}.en.replace)")
    return found


def restamp(master: dict, cell_id: str, lang: str = "en") -> None:
    """Record that ``cell_id``'s English now translates its current Chinese (after updating the English)."""
    cell = next((c for c in master["cells"] if c.get("id") == cell_id), None)
    if cell is None or "source" not in _entry(cell, lang):
        raise ValueError(f"no markdown cell {cell_id!r} with an English source in the master")
    cell["metadata"][KEY][lang]["from"] = fingerprint(source_of(cell))

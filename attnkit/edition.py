"""One master, an edition per language: the chapter in another language, from that language's translation.

The master (``autograde/source/ch04_attention/ch04_attention.ipynb``) is written in Chinese. Each other language's
translation of it is a gettext catalogue of the chapter, ``autograde/locale/<language>/LC_MESSAGES/ch04_attention.po``
(never released: the reference answers' English is in it), written from the template ``make translations`` draws
from the master (``autograde/locale/ch04_attention.pot``), and read by ``make release`` into a :class:`Translation`:

* a markdown cell: one entry (its context the cell's id, its msgid the cell's Chinese, its msgstr the whole
  translated text). When the Chinese is edited, ``make translations`` keeps the translation and marks it fuzzy: a
  stale translation (:func:`problems`) instead of two editions
  quietly saying different things, with the :func:`fingerprint` of the Chinese it translates as its translator's
  comment; ``python scripts/release_notebook.py --translated <cell id>`` marks it reviewed. (The English's first
  catalogue was written from the master's old ``metadata.translation``, whose fingerprints decided which entries
  began fuzzy);
* a code cell: one entry per comment or string it translates (its msgid a Chinese fragment of the code), applied in
  the catalogue's order. The code itself is written once: an edited line of code reaches every edition, and an
  edited comment no longer matches its entry and is reported.

:func:`translate` returns the master in a language: every cell translated, the set-up cell calling
``attnkit.use_language`` (:data:`LANGUAGE_CALL`), the glossary cell drawn from :mod:`attnkit.glossary`, and the
notebook's metadata saying its language (``metadata["edition"]["language"]``, :func:`attnkit.language.of_notebook`).
Cell ids, nbgrader metadata (points, grade ids), solutions and hidden tests are the master's. ``make release``
gives it to ``nbgrader generate_assignment`` with :func:`stubs` and writes ``notebooks/<language>/``. The
pseudo-locale's edition (:data:`attnkit.language.PSEUDO`) is the English's, bracketed and accented
(:meth:`Translation.pseudo`: its prose still markdown, :func:`pseudo_prose`; its code still code, :func:`pseudo_code`).

No Chinese is left in an English edition except where it names the original lab: its title,
:data:`ORIGINAL_LAB` (:func:`foreign_text` finds anything else). Standard library only.
"""
import copy
import dataclasses
import hashlib
import re

from . import glossary
from .language import DEFAULT, LANGUAGES, NOTEBOOK_KEY, PSEUDO, WORDS, checked, pseudo

__all__ = ["KEY", "ORIGINAL_LAB", "LANGUAGE_CALL", "GENERATED", "SETUP_CELL", "Translation", "fingerprint", "stubs",
           "source_of", "translate", "problems", "foreign_text", "pseudo_code", "pseudo_prose"]

KEY = "translation"  # where the master kept each cell's English before the catalogues (no release may carry it)
SETUP_CELL = "setup_imports"  # the nbgrader grade id of the cell that imports attnkit
LANGUAGE_CALL = 'attnkit.use_language("{lang}")  # this edition\'s language: what attnkit prints and draws'
# The original C lab's own title, the one Chinese an English edition keeps (where it names the lab).
ORIGINAL_LAB = "step3 多头自注意力"
# Cells whose text attnkit writes in every language (the master holds the Chinese; make release refreshes it).
GENERATED = {"glossary": glossary.markdown}
CJK = re.compile(r"[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_STRING = re.compile(r"""(?P<q>["'])(?P<text>(?:\\.|(?!(?P=q)).)*)(?P=q)""")


def stubs(lang: str) -> dict:
    """What nbgrader leaves where a solution was (its ClearSolutions ``code_stub`` / ``text_stub``), in ``lang``."""
    comment = WORDS.say(lang, "edition.code_stub")
    return {"code": f"# {comment}\npass", "text": WORDS.say(lang, "edition.text_stub")}


@dataclasses.dataclass
class Translation:
    """One language's translation of the master, as its catalogue holds it, by cell id: ``prose`` ``{id: (the
    Chinese it was written from, the translation, stale?)}``, ``code`` ``{id: [(Chinese fragment, translation)]}``."""
    prose: dict = dataclasses.field(default_factory=dict)
    code: dict = dataclasses.field(default_factory=dict)

    def pseudo(self) -> "Translation":
        """The pseudo-locale's translation made from this one (the English's): every text bracketed and accented,
        code still code."""
        return Translation({cell: (chinese, pseudo_prose(text), stale)
                            for cell, (chinese, text, stale) in self.prose.items()},
                           {cell: [(chinese, pseudo_code(text)) for chinese, text in pairs]
                            for cell, pairs in self.code.items()})


# what stays as it is in a line of prose made pseudo: code spans, formulas, a link's target, HTML tags, an image's mark
_KEPT_INLINE = re.compile(r"(`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|<[^<>]*>|!\[)")
_BLOCK_MARKS = re.compile(r"^(\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s?)*)(.*)$")  # a heading's, a list item's, a quote's
_FENCE = re.compile(r"^\s*(```|~~~|\$\$\s*$)")  # a code block's or a display formula's first or last line
_LETTER = re.compile(r"[A-Za-z]")


def _pseudo_inline(text: str) -> str:
    parts = _KEPT_INLINE.split(text)
    return "".join(part if odd or not _LETTER.search(part) else pseudo(part)
                   for odd, part in zip([0, 1] * len(parts), parts))


def pseudo_prose(text: str) -> str:
    """A translated markdown cell as the pseudo-locale says it, still markdown: each line's words bracketed and
    accented after its block marks (a heading's ``#``, a list item's, a quote's), a table's cells one by one; code
    spans, formulas, code blocks and links' targets as they are (a cell bracketed whole would be no heading)."""
    lines, kept = [], False
    for line in text.split("\n"):
        if _FENCE.match(line):
            kept = not kept
        if kept or _FENCE.match(line) or not _LETTER.search(line):
            lines.append(line)
        elif line.lstrip().startswith("|"):
            lines.append("|".join(_pseudo_inline(cell) for cell in line.split("|")))
        else:
            marks, rest = _BLOCK_MARKS.match(line).groups()
            lines.append(marks + _pseudo_inline(rest))
    return "\n".join(lines)


def pseudo_code(fragment: str) -> str:
    """A translated fragment of code (a comment, a line with strings, or a piece of a string) as the pseudo-locale
    says it, still code: the comment's words and the strings' words bracketed and accented, the rest as it is."""
    head, sep, comment = fragment.partition("#")
    if sep and not _STRING.search(head):
        return f"{head}# {pseudo(comment.strip())}" if comment.strip() else fragment
    if not _STRING.search(fragment):  # a piece of a string (an f-string's words between its values): all words
        return pseudo(fragment)
    # an empty string stays empty: a docstring's """ is read as one and two more quotes
    return _STRING.sub(lambda m: m["q"] + pseudo(m["text"]) + m["q"] if m["text"] else m[0], fragment)


def fingerprint(text: str) -> str:
    """A short hash of a cell's Chinese: what its English was written from (the master's old metadata)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def source_of(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _cell_in(cell, lang: str, translation: Translation) -> dict:
    """One cell of the master in ``lang``."""
    cell = copy.deepcopy(cell)
    cell.get("metadata", {}).pop(KEY, None)
    if lang == DEFAULT:
        return cell
    cell_id = cell.get("id")
    if cell_id in GENERATED:
        cell["source"] = GENERATED[cell_id](lang)
    elif cell["cell_type"] == "markdown" and cell_id in translation.prose:
        cell["source"] = translation.prose[cell_id][1]
    elif cell["cell_type"] == "code":
        cell["source"] = _replaced(source_of(cell), translation.code.get(cell_id, []))
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


def translate(master: dict, lang: str, translation: Translation | None = None) -> dict:
    """The master (a notebook as a dict or NotebookNode) in ``lang`` through ``translation`` (its catalogue's): a
    new notebook, the master untouched."""
    if lang not in LANGUAGES and lang != PSEUDO:
        checked(lang)  # names the languages
        raise ValueError(f"the chapter has no {lang!r} edition: its languages are {', '.join(map(repr, LANGUAGES))}")
    nb = copy.copy(master)
    nb["cells"] = [_cell_in(cell, lang, translation or Translation()) for cell in master["cells"]]
    nb["metadata"] = copy.deepcopy(master.get("metadata", {}))
    if lang != DEFAULT:
        nb["metadata"][NOTEBOOK_KEY] = {"language": lang}
    return nb


def _grade_id(cell) -> str:
    return ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id", "")


def foreign_text(text: str) -> list:
    """The Chinese characters of an English text, apart from the original lab's title."""
    return CJK.findall(text.replace(ORIGINAL_LAB, ""))


def problems(master: dict, lang: str, translation: Translation) -> list:
    """What keeps the ``lang`` edition from being complete and current, one line per cell ([] when it is)."""
    found = []
    for cell in master["cells"]:
        where, chinese, cell_id = f"cell {cell.get('id')!r}", source_of(cell), cell.get("id")
        if cell_id in GENERATED:
            if chinese != GENERATED[cell_id](DEFAULT):
                found.append(f"{where}: not what attnkit writes there; run `make release`")
            continue
        if cell["cell_type"] == "markdown" and CJK.search(chinese):
            found += _markdown_problems(where, translation.prose.get(cell_id), chinese)
        elif cell["cell_type"] == "code":
            found += _code_problems(where, translation.code.get(cell_id, []), chinese)
    return found


def _markdown_problems(where: str, entry, chinese: str) -> list:
    if entry is None or not entry[1]:
        return [f"{where}: no translation in its catalogue (make translations, then write its msgstr)"]
    written_from, text, stale = entry
    if stale or written_from != chinese:
        return [f"{where}: the Chinese changed since it was translated (a fuzzy entry); update the translation, "
                f"then `python scripts/release_notebook.py --translated {where.split()[1].strip(chr(39))}`"]
    leftover = foreign_text(text)
    return [f"{where}: Chinese in the translation: {''.join(leftover)!r}"] if leftover else []


def _code_problems(where: str, pairs, chinese: str) -> list:
    found = [f"{where}: {zh!r} is no longer in the code: update its entry" for zh, _ in pairs if zh not in chinese]
    leftover = foreign_text(_replaced(chinese, pairs))
    if leftover:
        found.append(f"{where}: Chinese left in the translated code: {''.join(dict.fromkeys(leftover))!r} "
                     "(make translations adds its line to the catalogue: translate it there)")
    return found

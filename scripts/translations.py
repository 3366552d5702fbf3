"""``make translations``: every word's catalogue written again from the code, then compiled (Babel).

For each gettext domain of the code (:data:`DOMAINS`: ``coursekit``, ``attnkit``, ``grader``):

1. **extract**: the message ids the code says (``say``, ``say_n``, ``template``, ``every``, ``every_n``, ``marked``,
   ``explained`` in Python; ``say``, ``sayN``, ``marked`` in the Lab extension's TypeScript and the marking page's
   JavaScript; ``{{id}}`` placeholders in the marking page's HTML template) into the template ``<locale>/<domain>.pot``, each id with its English text as a comment for translators;
2. **update** each language's ``<locale>/<language>/LC_MESSAGES/<domain>.po`` from it: a new id arrives with no
   text (to be written), an id the code no longer says leaves;
3. **compile** each ``.po`` into the ``.mo`` beside it, which the packages read at run time
   (:class:`coursekit.language.Catalogue`) and which are committed (a fresh clone, a wheel and the hub's user
   environment need no Babel to speak);
4. **the Lab extension's words**: coursekit's ``lab.*`` and ``locale.*`` messages of every spoken language into
   ``labextension/src/catalogue.ts``, which its build reads (``make labextension`` after a change).

And the chapter's own catalogue (:data:`CHAPTER`, ``ch04_attention``: its cells' words, prose and the comments and
strings of its code, in ``autograde/locale/``, never released): its template drawn from the master notebook, each
other language's ``.po`` updated from it; a cell whose Chinese changed keeps its translation, marked fuzzy, the
fingerprint of the Chinese it was written from beside it (``# stale: …``). ``make release`` builds each language's edition from it.
The marking guide's catalogue likewise (:data:`RUBRIC`, ``ch04_attention_rubric``): each point's text of the master
rubric, its question the context; ``make release`` writes each other edition's rubric from it.

It ends with one line per language and domain, and names each message still without text (exit status 1 then).

    python scripts/translations.py            # all of the above
    python scripts/translations.py --check    # nothing written: exit 1 when a file is not what the code gives
"""
import argparse
import dataclasses
import gettext
import io
import json
import pathlib
import re
import sys

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "autograde")]

from coursekit.language import LANGUAGES, PSEUDO_FROM  # noqa: E402

# Where each kind of source says its ids: Babel's keyword specs (1-based argument positions; (2, 2) is a plural
# whose singular and plural id are the same symbolic id).
PYTHON_KEYWORDS = {"say": (2,), "say_n": (2, 2), "template": (2,), "every": (1,), "every_n": (1, 1), "marked": (1,),
                   "explained": (1,)}  # attnkit.bugs.explained: a mistake's message
SCRIPT_KEYWORDS = {"say": (1,), "sayN": (1, 1), "marked": (1,)}
_PLACEHOLDER = re.compile(rb"\{\{([a-z_]+(?:\.[a-z_]+)+)\}\}")  # as coursekit.marking.handlers fills them


def extract_html(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for an HTML template: each ``{{id}}`` (an id with a dot) is a message."""
    for lineno, line in enumerate(fileobj, 1):
        for found in _PLACEHOLDER.finditer(line):
            yield lineno, None, found.group(1).decode(), []


METHODS = {".py": ("python", PYTHON_KEYWORDS), ".ts": ("javascript", SCRIPT_KEYWORDS),
           ".js": ("javascript", SCRIPT_KEYWORDS), ".html": (extract_html, {})}
HEADER = "The {domain} messages of the attention chapter's course (see autograde/README.md, \"Words\")."


@dataclasses.dataclass(frozen=True)
class Domain:
    """One gettext domain: its name, its ``locale`` folder (relative to the repository) and the sources it reads."""
    name: str
    locale: str
    sources: tuple  # globs relative to the repository

    @property
    def folder(self) -> pathlib.Path:
        return REPO / self.locale

    def template(self) -> pathlib.Path:
        return self.folder / f"{self.name}.pot"

    def po(self, lang: str, suffix: str = ".po") -> pathlib.Path:
        return self.folder / lang / "LC_MESSAGES" / f"{self.name}{suffix}"

    def files(self) -> list:
        return sorted({path for pattern in self.sources for path in REPO.glob(pattern)
                       if path.suffix in METHODS and "node_modules" not in path.parts})


DOMAINS = (
    Domain("coursekit", "autograde/coursekit/locale",
           ("autograde/coursekit/**/*.py", "autograde/hub/**/*.py", "autograde/coursekit/labextension/src/*.ts",
            "autograde/coursekit/marking/static/*.js", "autograde/coursekit/marking/static/*.html")),
    Domain("attnkit", "attnkit/locale", ("attnkit/**/*.py", "attnkit/assets/*.js", "scripts/build_book.py")),
    Domain("grader", "autograde/grader/locale", ("autograde/grader/**/*.py",)),
)


def extracted(domain: Domain) -> dict:
    """``{id: (plural?, [file, …])}`` of every id the domain's sources say."""
    found = {}
    for path in domain.files():
        method, keywords = METHODS[path.suffix]
        for _, message, _, _ in extract_from_file(method, str(path), keywords=keywords):
            plural = isinstance(message, tuple)
            msgid = message[0] if plural else message
            was_plural, files = found.setdefault(msgid, (plural, []))
            if was_plural != plural:
                raise SystemExit(f"{path.relative_to(REPO)}: {msgid!r} is said both with and without a count")
            files.append(str(path.relative_to(REPO)))
    return found


def read(path: pathlib.Path, lang: str | None = None) -> Catalog | None:
    if not path.exists():
        return None
    with path.open("rb") as po:
        return read_po(po, locale=lang, domain=path.stem)


def written(catalog: Catalog, template: bool = False) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=0, sort_output=True, include_lineno=False, ignore_obsolete=True,
             omit_header=False, include_previous=not template)
    return out.getvalue()


def template_of(domain: Domain) -> Catalog:
    """The domain's ``.pot``: every extracted id, the English text as each entry's comment."""
    english = read(domain.po(PSEUDO_FROM), PSEUDO_FROM)
    pot = _headed(Catalog(domain=domain.name), domain)
    for msgid, (plural, files) in sorted(extracted(domain).items()):
        known = english.get(msgid) if english is not None else None
        text = known.string if known is not None else ""
        text = " | ".join(text) if isinstance(text, (tuple, list)) else text
        pot.add((msgid, msgid) if plural else msgid, locations=[(name, None) for name in sorted(set(files))],
                auto_comments=[f"en: {line}" for line in text.split("\n")] if text else [])
    return pot


def _headed(catalog: Catalog, domain: Domain) -> Catalog:
    """``catalog`` with the course's header (no placeholders such as "FULL NAME", not fuzzy)."""
    catalog.header_comment = f"# {HEADER.format(domain=domain.name)}"
    catalog.project, catalog.version, catalog.msgid_bugs_address = "attention-chapter", "1", ""
    catalog.last_translator = catalog.language_team = ""
    catalog.fuzzy = False
    return catalog


_STAMPS = (b'"POT-Creation-Date', b'"PO-Revision-Date', b'"Generated-By')


def _same(old: bytes, new: bytes, compiled: bool) -> bool:
    """The same file but for when and by which Babel it was written; a compiled one, the same messages."""
    if compiled:
        messages = lambda mo: {key: text for key, text in gettext.GNUTranslations(io.BytesIO(mo))._catalog.items()
                               if key != ""} if mo else None
        return messages(old) == messages(new)
    strip = lambda text: [line for line in text.splitlines() if not line.startswith(_STAMPS)]
    return strip(old) == strip(new)


def _write(path: pathlib.Path, content: bytes, check: bool, changed: list) -> None:
    old = path.read_bytes() if path.exists() else b""
    if _same(old, content, compiled=path.suffix == ".mo"):
        return
    changed.append(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    if not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def untranslated(catalog: Catalog) -> list:
    """The ids of ``catalog`` still without text (or marked fuzzy: to be reviewed)."""
    return [message.id[0] if message.pluralizable else message.id for message in catalog
            if message.id and (message.fuzzy or not all(message.string if isinstance(message.string, (tuple, list))
                                                        else [message.string]))]


def update(domain: Domain, check: bool) -> tuple:
    """The domain's files written again; (files that changed, {language: ids without text})."""
    changed, missing = [], {}
    pot = template_of(domain)
    _write(domain.template(), written(pot, template=True), check, changed)
    for lang in LANGUAGES:
        catalog = _headed(read(domain.po(lang), lang) or Catalog(locale=lang, domain=domain.name), domain)
        catalog.update(pot, no_fuzzy_matching=True, update_creation_date=False)
        text = written(catalog)
        _write(domain.po(lang), text, check, changed)
        catalog = read_po(io.BytesIO(text), locale=lang, domain=domain.name)  # as a translator's tools read it
        _write(domain.po(lang, ".mo"), compiled(catalog), check, changed)
        missing[lang] = untranslated(catalog)
    return changed, missing


# --- the students' Lab extension: its words, from the catalogue, into its source --------------------------------

LAB_CATALOGUE = REPO / "autograde" / "coursekit" / "labextension" / "src" / "catalogue.ts"
LAB_PREFIXES = ("lab.", "locale.")  # what the extension says, and the languages' settings it reads


def lab_catalogue() -> bytes:
    """``labextension/src/catalogue.ts``: each spoken language's ``lab.*`` and ``locale.*`` messages (the
    pseudo-locale's made from the English), from the compiled catalogues, for the extension's build."""
    from coursekit.language import SPOKEN, Catalogue
    words = Catalogue(DOMAINS[0].name, DOMAINS[0].folder)  # read afresh: the .mo just compiled
    messages = {lang: {msgid: text for prefix in LAB_PREFIXES for msgid, text in words.messages(lang, prefix).items()}
                for lang in SPOKEN}
    body = json.dumps(messages, ensure_ascii=False, indent=2, sort_keys=True)
    return (f"// Written by `make translations` (scripts/translations.py) from coursekit's catalogue: do not edit.\n"
            f"// Each language's messages (ids lab.* and locale.*; \"\": its plural rule), read by ./texts.ts.\n"
            f"export const CATALOGUE = {body} as const;\n").encode()


# --- the chapter's catalogue: its cells' words -------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Chapter:
    """The chapter's catalogue: its name, its ``locale`` folder and its master notebook (relative to the repository)."""
    name: str
    locale: str
    master: str

    @property
    def folder(self) -> pathlib.Path:
        return REPO / self.locale

    def template(self) -> pathlib.Path:
        return self.folder / f"{self.name}.pot"

    def po(self, lang: str) -> pathlib.Path:
        return self.folder / lang / "LC_MESSAGES" / f"{self.name}.po"


CHAPTER = Chapter("ch04_attention", "autograde/locale", "autograde/source/ch04_attention/ch04_attention.ipynb")
# the marking guide's catalogue: each point's text (context: its question's grade id), from the master rubric
RUBRIC = Chapter("ch04_attention_rubric", "autograde/locale", "autograde/rubrics/ch04_attention.toml")
PROSE, CODE = "a markdown cell, whole", "comments and strings of a code cell"
POINT = "a point of the marking guide: the TA ticks it, the student's feedback says it"
# a stale entry's translator comment: the fingerprint (attnkit.edition.fingerprint) of the Chinese it translates
STALE = "stale: translated from the Chinese of fingerprint "


def _master():
    import nbformat
    return nbformat.read(REPO / CHAPTER.master, as_version=4)


def _cells(master) -> list:
    """``(cell id, "prose" | "code", its Chinese)`` of every cell with words to translate, in the master's order."""
    from attnkit.edition import CJK, GENERATED, source_of
    found = []
    for cell in master.cells:
        text = source_of(cell)
        if cell.get("id") in GENERATED or not CJK.search(text):
            continue
        found.append((cell.id, "prose" if cell.cell_type == "markdown" else "code", text))
    return found


def _fragments(cell_id: str, chinese: str, catalogues: list) -> list:
    """The Chinese fragments of a code cell to translate: those the catalogues split it into (still in the code),
    then each line with Chinese they leave uncovered, whole."""
    from attnkit.edition import CJK
    found = []
    for catalogue in catalogues:
        found += [m.id for m in catalogue if m.context == cell_id and m.id in chinese and m.id not in found]
    rest = chinese
    for fragment in found:
        rest = rest.replace(fragment, "")
    found += [line.strip() for line in rest.split("\n") if CJK.search(line) and line.strip() not in found]
    return found


def chapter_template(master, catalogues=()) -> Catalog:
    """The chapter's template: a markdown cell with Chinese as one entry (context: its cell id), a code cell's
    Chinese comments and strings as one entry each."""
    pot = _headed(Catalog(domain=CHAPTER.name), Domain(CHAPTER.name, CHAPTER.locale, ()))
    for cell_id, kind, chinese in _cells(master):
        if kind == "prose":
            pot.add(chinese, context=cell_id, auto_comments=[PROSE])
        else:
            for fragment in _fragments(cell_id, chinese, catalogues):
                pot.add(fragment, context=cell_id, auto_comments=[CODE])
    return pot


def rubric_template() -> Catalog:
    """The marking guide's template: each point of the master rubric, its Chinese text the id, its question the
    context (its share and matching rules stay in the rubric: :mod:`coursekit.marking.rubric_edition`)."""
    import tomllib
    pot = _headed(Catalog(domain=RUBRIC.name), Domain(RUBRIC.name, RUBRIC.locale, ()))
    for question, table in tomllib.loads((REPO / RUBRIC.master).read_text(encoding="utf-8")).items():
        for point in table.get("points", []):
            pot.add(point["text"], context=question, auto_comments=[POINT])
    return pot


def _chapter_catalogue(lang: str, pot: Catalog, old: Catalog | None, book: Chapter) -> Catalog:
    """``lang``'s catalogue of ``book``, entry by entry the template's: a translation kept as it was; a prose cell
    whose Chinese changed keeps its old translation, fuzzy, with the Chinese it was written from (``previous_id``)."""
    new = _headed(Catalog(locale=lang, domain=book.name), Domain(book.name, book.locale, ()))
    by_context = {}
    for message in old or ():
        if message.id:
            by_context.setdefault(message.context, []).append(message)
    from attnkit.edition import fingerprint
    for entry in pot:
        if not entry.id:
            continue
        known = old.get(entry.id, context=entry.context) if old is not None else None
        flags, comments = set(), []
        if known is not None:
            string, flags, comments = known.string, set(known.flags), list(known.user_comments)
        elif PROSE in entry.auto_comments and by_context.get(entry.context):
            was = by_context[entry.context][0]
            string, flags, comments = was.string, {"fuzzy"}, [f"{STALE}{fingerprint(was.id)}"]
        else:
            string = ""
        new.add(entry.id, string, context=entry.context, auto_comments=entry.auto_comments, flags=flags,
                user_comments=comments)
    return new


def update_chapter(check: bool, rubric: bool = False) -> tuple:
    """The chapter's template (or the marking guide's: :data:`RUBRIC`) and each other language's catalogue written
    again; (files that changed, {language: entries without a translation or marked fuzzy})."""
    book, changed, missing = RUBRIC if rubric else CHAPTER, [], {}
    olds = {lang: read(book.po(lang), lang) for lang in LANGUAGES[1:]}
    pot = (rubric_template() if rubric
           else chapter_template(_master(), [old for old in olds.values() if old is not None]))
    _write(book.template(), _chapter_written(pot), check, changed)
    for lang, old in olds.items():
        catalog = _chapter_catalogue(lang, pot, old, book)
        _write(book.po(lang), _chapter_written(catalog), check, changed)
        missing[lang] = [f"{m.context}: {m.id[:30]!r}" for m in catalog if m.id and (m.fuzzy or not m.string)]
    return changed, missing


def _chapter_written(catalog: Catalog) -> bytes:
    out = io.BytesIO()  # in the master's order, no locations: an entry's context is its cell
    write_po(out, catalog, width=0, no_location=True, ignore_obsolete=True, include_previous=True)
    return out.getvalue()


def chapter_translation(lang: str):
    """``lang``'s translation of the chapter (:class:`attnkit.edition.Translation`), from its catalogue: for the
    pseudo-locale, the English's made pseudo."""
    from attnkit.edition import Translation
    from coursekit.language import PSEUDO
    if lang == PSEUDO:
        return chapter_translation(PSEUDO_FROM).pseudo()
    catalog, found = read(CHAPTER.po(lang), lang), Translation()
    for message in catalog or ():
        if not message.id or not message.string:
            continue
        if PROSE in message.auto_comments:
            found.prose[message.context] = (message.id, message.string, message.fuzzy)
        else:
            found.code.setdefault(message.context, []).append((message.id, message.string))
    return found


def rubric_words(lang: str):
    """``lang``'s words for the master rubric's points (:class:`coursekit.marking.rubric_edition.PointWords`), from
    the marking guide's catalogue: for the pseudo-locale, the English's made pseudo."""
    from coursekit.language import PSEUDO, pseudo
    from coursekit.marking.rubric_edition import PointWords
    source = PSEUDO_FROM if lang == PSEUDO else lang
    catalog, texts = read(RUBRIC.po(source), source), {}
    for message in catalog or ():
        if message.id and message.string and not message.fuzzy:
            texts.setdefault(message.context, {})[message.id] = pseudo(message.string) if lang == PSEUDO \
                else message.string
    return PointWords(str(RUBRIC.po(lang).relative_to(REPO)), texts)


def mark_reviewed(lang: str, cell_ids: list) -> None:
    """These cells' translations (in ``lang``'s chapter catalogue) now translate their current Chinese."""
    catalog = read(CHAPTER.po(lang), lang)
    known = {m.context: m for m in catalog if m.id and PROSE in m.auto_comments}
    unknown = [cell_id for cell_id in cell_ids if cell_id not in known or not known[cell_id].string]
    if unknown:
        raise SystemExit(f"{CHAPTER.po(lang)}: no translated markdown cell {', '.join(unknown)}")
    for cell_id in cell_ids:
        known[cell_id].flags.discard("fuzzy")
        known[cell_id].user_comments = [c for c in known[cell_id].user_comments if not c.startswith(STALE)]
    CHAPTER.po(lang).write_bytes(_chapter_written(catalog))


def _said_files(paths, check: bool, then: str = "") -> int:
    """One line per file written (or, with ``--check``, out of date); 1 when ``--check`` found any."""
    for path in paths:
        print(f"{'out of date' if check else 'wrote'}: {path}" + ("" if check else then))
    return int(bool(paths and check))


def _said_missing(name: str, missing: dict, done: str, left: str) -> int:
    """One line per language: ``done``, or how many of ``missing``'s entries are ``left`` and which; 1 when any."""
    for lang, ids in missing.items():
        print(f"{name} {lang}: {done if not ids else f'{len(ids)} {left}: ' + ', '.join(ids)}")
    return int(any(missing.values()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a catalogue is out of date")
    args = parser.parse_args(argv)
    status = 0
    for domain in DOMAINS:
        changed, missing = update(domain, args.check)
        status |= _said_files(changed, args.check)
        status |= _said_missing(domain.name, missing, "every message has its text", "without text")
    lab = []
    _write(LAB_CATALOGUE, lab_catalogue(), args.check, lab)
    status |= _said_files(lab, args.check, " (then: make labextension)")
    changed, missing = update_chapter(args.check)
    status |= _said_files(changed, args.check)
    status |= _said_missing(CHAPTER.name, missing, "every cell translated", "to translate or review")
    changed, missing = update_chapter(args.check, rubric=True)
    status |= _said_files(changed, args.check)
    status |= _said_missing(RUBRIC.name, missing, "every point translated", "to translate or review")
    return status

if __name__ == "__main__":
    sys.exit(main())

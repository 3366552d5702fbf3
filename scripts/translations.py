"""``make translations``: every word's catalogue written again from the code, then compiled (Babel).

For each gettext domain (:data:`DOMAINS`: ``coursekit``, ``attnkit``, ``grader``):

1. **extract**: the message ids the code says (``say``, ``say_n``, ``template``, ``every``, ``every_n``, ``marked``,
   ``explained`` in Python; ``say``, ``sayN``, ``marked`` in the Lab extension's TypeScript and the marking page's
   JavaScript) into the template ``<locale>/<domain>.pot``, each id with its English text as a comment for translators;
2. **update** each language's ``<locale>/<language>/LC_MESSAGES/<domain>.po`` from it: a new id arrives with no
   text (to be written), an id the code no longer says leaves;
3. **compile** each ``.po`` into the ``.mo`` beside it, which the packages read at run time
   (:class:`coursekit.language.Catalogue`) and which are committed (a fresh clone, a wheel and the hub's user
   environment need no Babel to speak).

It ends with one line per language and domain, and names each message still without text (exit status 1 then).

    python scripts/translations.py            # all of the above
    python scripts/translations.py --check    # nothing written: exit 1 when a file is not what the code gives
"""
import argparse
import dataclasses
import gettext
import io
import pathlib
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
METHODS = {".py": ("python", PYTHON_KEYWORDS), ".ts": ("javascript", SCRIPT_KEYWORDS),
           ".js": ("javascript", SCRIPT_KEYWORDS)}
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
            "autograde/coursekit/marking/static/*.js")),
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
    changed.append(path.relative_to(REPO))
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a catalogue is out of date")
    args = parser.parse_args(argv)
    status = 0
    for domain in DOMAINS:
        changed, missing = update(domain, args.check)
        for path in changed:
            print(f"{'out of date' if args.check else 'wrote'}: {path}")
        status |= bool(changed and args.check)
        for lang, ids in missing.items():
            print(f"{domain.name} {lang}: {'every message has its text' if not ids else f'{len(ids)} without text: ' + ', '.join(ids)}")
            status |= bool(ids)
    return status


if __name__ == "__main__":
    sys.exit(main())

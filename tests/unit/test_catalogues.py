"""Is every word a person reads in one catalogue per language, whole: every id the code says, in every language,
with the same placeholders, compiled as written?

The one check of the catalogues (coursekit.language; scripts/translations.py, ``make translations``), in place of a
check per module's table. The pseudo-locale is built from the English catalogue: its messages are checked here as
the others, bracketed and accented, their placeholders kept.
"""
import gettext
import importlib.util
import io

import pytest
from babel.messages.pofile import read_po

from coursekit.language import LANGUAGES, PSEUDO, SPOKEN, Catalogue, checked, of_notebook, pick, placeholders, pseudo
from coursekit.paths import REPO

_spec = importlib.util.spec_from_file_location("translations", REPO / "scripts" / "translations.py")
translations = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(translations)
DOMAINS = {domain.name: domain for domain in translations.DOMAINS}


def _catalogue(domain, lang):
    with domain.po(lang).open("rb") as po:
        return read_po(po, locale=lang, domain=domain.name)


def _messages(domain, lang) -> dict:
    """``{id: (form, …)}`` of a language's ``.po``."""
    return {(m.id[0] if m.pluralizable else m.id): tuple(m.string) if m.pluralizable else (m.string,)
            for m in _catalogue(domain, lang) if m.id}


def _fields(forms: tuple) -> set:
    return set().union(*(placeholders(form) for form in forms))


def test_are_the_catalogues_what_the_code_gives():
    """``make translations --check``: each .pot has every id the code says, each .po has them all (no more) with
    their text, each .mo is its .po compiled?"""
    out = io.StringIO()
    from contextlib import redirect_stdout
    with redirect_stdout(out):
        status = translations.main(["--check"])
    assert status == 0, out.getvalue()


@pytest.mark.parametrize("domain", DOMAINS)
def test_does_every_language_have_the_same_ids_and_placeholders(domain):
    """The same ids in every language's catalogue, each with the same placeholders (a plural's forms together)?"""
    domain = DOMAINS[domain]
    messages = {lang: _messages(domain, lang) for lang in LANGUAGES}
    first = LANGUAGES[0]
    for lang in LANGUAGES[1:]:
        assert messages[lang].keys() == messages[first].keys(), lang
        differ = {msgid: (_fields(messages[first][msgid]), _fields(forms))
                  for msgid, forms in messages[lang].items() if _fields(forms) != _fields(messages[first][msgid])}
        assert differ == {}, lang


@pytest.mark.parametrize("domain", DOMAINS)
def test_is_every_message_a_template_that_formats(domain):
    """Every text a valid str.format template (a literal brace doubled), in every language and the pseudo-locale?"""
    domain = DOMAINS[domain]
    for lang in LANGUAGES:
        for msgid, forms in _messages(domain, lang).items():
            for form in forms:
                values = {name.split(":")[0].split("!")[0].strip("{}"): 1 for name in placeholders(form)}
                form.format(**values)
                pseudo(form).format(**values)


def test_is_the_pseudo_locale_bracketed_and_accented_with_its_placeholders_kept():
    said = pseudo('Submit {n} <b>answers</b> at {at:%H} &amp; 100% {{literal}}')
    assert said == '⟦Ŝübmïţ {n} <b>åñŝŵëřŝ</b> åţ {at:%H} &amp; 100% {{ļïţëřåļ}}⟧'
    assert placeholders(said) == {"{n}", "{at:%H}"}


def test_does_a_catalogue_say_every_spoken_language(tmp_path):
    """A catalogue answers in each language, the pseudo-locale from the English; a plural by its count?"""
    catalogue = _tiny(tmp_path)
    assert catalogue.say("en", "t.hello", name="Ann") == "Hello, Ann"
    assert catalogue.say("zh", "t.hello", name="Ann") == "你好，Ann"
    assert catalogue.say(PSEUDO, "t.hello", name="Ann") == "⟦Ĥëļļö, Ann⟧"
    assert [catalogue.say_n("en", "t.answers", n) for n in (1, 2)] == ["1 answer", "2 answers"]
    assert catalogue.say_n("zh", "t.answers", 1) == catalogue.say_n("zh", "t.answers", 5).replace("5", "1")
    assert catalogue.every("t.hello", name="Ann") == {"zh": "你好，Ann", "en": "Hello, Ann"}
    assert catalogue.messages("en", "t.") == {"t.hello": "Hello, {name}", "t.answers": ["{n} answer", "{n} answers"],
                                              "": "nplurals=2; plural=(n != 1);"}


def test_does_a_missing_message_name_its_file(tmp_path):
    """A message the catalogue lacks is an error naming the .po to add it to, not its id shown to a person?"""
    catalogue = _tiny(tmp_path)
    with pytest.raises(LookupError, match=r"zh/LC_MESSAGES/tiny.po has no message 't.gone'"):
        catalogue.say("zh", "t.gone")


def test_would_the_check_see_a_placeholder_a_translation_lost():
    assert _fields(("你好",)) != _fields(("Hello, {name}",))
    assert _fields(("{n} 道题",)) == _fields(("one answer", "{n} answers"))


def test_the_language_rule():
    """One rule: the course's languages and the pseudo-locale are spoken; anything else is named, or (a student's
    notebook) read as the course's own?"""
    assert SPOKEN == (*LANGUAGES, PSEUDO) and checked(PSEUDO) == PSEUDO
    with pytest.raises(ValueError, match=r"c.CourseKit.language must be one of 'zh', 'en', got 'fr'"):
        checked("fr", "c.CourseKit.language")
    assert of_notebook({"metadata": {"edition": {"language": PSEUDO}}}) == PSEUDO
    assert of_notebook({"metadata": {"edition": {"language": "fr"}}}) == "zh"
    assert pick({"zh": "你好", "en": "Hi"}, PSEUDO) == "⟦Ĥï⟧" and pick({"zh": "你好", "en": "Hi"}, "fr") == "你好"


def _tiny(folder) -> Catalogue:
    """A catalogue of two messages in every language, compiled as make translations compiles."""
    from babel.messages.catalog import Catalog

    texts = {"zh": ("你好，{name}", ("{n} 道题",)), "en": ("Hello, {name}", ("{n} answer", "{n} answers"))}
    for lang, (hello, answers) in texts.items():
        catalog = Catalog(locale=lang, domain="tiny")
        catalog.add("t.hello", hello)
        catalog.add(("t.answers", "t.answers"), answers)
        path = folder / lang / "LC_MESSAGES" / "tiny.mo"
        path.parent.mkdir(parents=True)
        path.write_bytes(translations.compiled(catalog))
        gettext.GNUTranslations(io.BytesIO(path.read_bytes()))  # readable by the standard library
    return Catalogue("tiny", folder)


def test_does_every_domain_read_its_own_folder():
    """Each package's catalogue object reads the folder make translations writes?"""
    import attnkit.language
    import coursekit.language

    assert attnkit.language.WORDS.folder == DOMAINS["attnkit"].folder
    assert coursekit.language.WORDS.folder == DOMAINS["coursekit"].folder


_SAID = __import__("re").compile(r"""\b(?:say|sayN|say_n|marked|template|every|every_n)\((?:[\w.]+, )?["']([a-z_]+(?:\.[a-z0-9_]+)+)["']""")


@pytest.mark.parametrize("domain", DOMAINS)
def test_does_every_id_the_code_spells_reach_the_template(domain):
    """Every id a source spells in a say/sayN/marked call is in the domain's .pot: nothing Babel's extraction skipped
    (a call nested in another's arguments, a variable named like a keyword) is left for a person to meet as an id?"""
    domain = DOMAINS[domain]
    with domain.template().open("rb") as pot:
        known = {m.id[0] if m.pluralizable else m.id for m in read_po(pot) if m.id}
    spelled = {(path.name, msgid) for path in domain.files() for msgid in _SAID.findall(path.read_text(encoding="utf-8"))}
    assert sorted((name, msgid) for name, msgid in spelled if msgid not in known) == []


# Chinese that is data, not words a person reads from us: what the code matches in what people wrote (a points
# suffix in a heading, the negation cues of written answers) and the C lab's own name for its step.
CHINESE_DATA = {"autograde/coursekit/cell_names.py", "autograde/coursekit/marking/negation.py", "attnkit/edition.py"}


def _literals(path):
    """The string constants of a module that are not docstrings."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def test_is_no_word_left_outside_the_catalogues():
    """No Chinese literal in the code (the catalogues hold every language's words; data aside), and no table keyed by
    language ({"zh": …, "en": …}) left in a module?"""
    import ast
    import re

    cjk = re.compile(r"[\u4e00-\u9fff]")
    sources = [path for domain in DOMAINS.values() for path in domain.files() if path.suffix == ".py"]
    found = [f"{path.relative_to(REPO)}:{node.lineno}" for path in sources for node in _literals(path)
             if cjk.search(node.value) and str(path.relative_to(REPO)) not in CHINESE_DATA]
    tables = [f"{path.relative_to(REPO)}:{node.lineno}" for path in sources
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Dict)
              and {"zh", "en"} <= {key.value for key in node.keys if isinstance(key, ast.Constant)}
              and not all(isinstance(value, ast.Call) for value in node.values)]  # {lang: marked(id)}: ids, not words
    assert (found, tables) == ([], [])

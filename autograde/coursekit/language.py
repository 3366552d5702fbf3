"""Which language a person reads, and every word they read: one gettext catalogue per language and package.

**The rule.** A student reads the language of the notebook they work in (its edition): the feedback page,
Validate, the Lab's notifications, the output cap's notes, the grader's verdicts. A notebook says it in its
metadata, ``metadata.edition.language`` (:data:`NOTEBOOK_KEY`); :func:`of_notebook` reads it, and a notebook that
says nothing, or something no catalogue speaks, is in :data:`DEFAULT`. An instructor reads the course's language,
``c.CourseKit.language`` (:data:`DEFAULT` unless the config says otherwise: :func:`coursekit.settings.course_settings`):
``make grade``, ``make report``, the service's and the LMS's commands, the marking page. An assignment with no
notebook at hand (a submission that could not be read) is in the language its config declares
(:attr:`coursekit.assignments.Assignment.language`). :data:`LANGUAGES` is the one list of the course's languages
(each an edition of the chapter); adding a third is one word here and its ``.po`` files.

**The words.** Every package that speaks keeps its messages in gettext catalogues beside it,
``<package>/locale/<language>/LC_MESSAGES/<domain>.po`` (compiled to ``.mo`` by ``make translations``, which also
writes the template ``<package>/locale/<domain>.pot``): ``coursekit`` (this toolkit, the hub and the students' Lab
extension), ``attnkit`` (the chapter's package), ``grader`` (the chapter's hidden checks). A module names a message
by its id, ``WORDS.say(lang, "grading.summary", graded=3, …)`` (the bare template: ``WORDS.template``); the catalogue of that language holds its text, a
:meth:`str.format` template (``{graded}``; a literal brace doubled). Plurals go through gettext's ``ngettext``
(:meth:`Catalogue.say_n`). ``tests/unit/test_catalogues.py`` checks that every catalogue has every id the code uses,
with the same placeholders.

A language's settings that are no words live beside them, under ids starting ``locale.`` (:data:`SETTING`): the tag
of a page's ``<html lang>``, how many characters a figure's title line holds.

**The pseudo-locale** :data:`PSEUDO` (``qps``, from ISO 639's private-use range) is built from the English catalogue
at run time: every message bracketed and accented (``⟦Ŝübmït⟧``, :func:`pseudo`; the settings as English's), so a page
shown in it reveals any text that did not come from a catalogue. It is accepted wherever a language is, and is no
edition of the chapter.

Standard library only: the grader's process and the students' kernels load catalogues without Babel (which
``make translations`` uses to write them).
"""
import gettext
import pathlib
import re
import string

__all__ = ["LANGUAGES", "DEFAULT", "PSEUDO", "SPOKEN", "NOTEBOOK_KEY", "WORDS", "Catalogue", "Worded", "Refusal", "checked",
           "of_notebook", "pick", "pseudo", "marked", "placeholders"]

LANGUAGES = ("zh", "en")  # the course's languages, each an edition: Simplified Chinese (the course's own), English
DEFAULT = "zh"
PSEUDO = "qps"  # the pseudo-locale: the English catalogue, bracketed and accented
PSEUDO_FROM = "en"
SETTING = "locale."  # ids of a language's settings, not words (an HTML lang tag, a line's width): never pseudo
SPOKEN = (*LANGUAGES, PSEUDO)  # what a catalogue answers in
NOTEBOOK_KEY = "edition"  # nb.metadata["edition"] = {"language": "en"}


def checked(lang, where: str = "language") -> str:
    """``lang`` when the catalogues speak it; else a ValueError that names ``where`` it was asked for."""
    if lang not in SPOKEN:
        raise ValueError(f"{where} must be one of {', '.join(map(repr, LANGUAGES))}, got {lang!r}")
    return lang


def of_notebook(nb) -> str:
    """The language of a notebook (a dict or NotebookNode, often the student's own copy, so anything may be in its
    metadata): its ``metadata.edition.language`` when the catalogues speak it, else :data:`DEFAULT`."""
    try:
        lang = ((nb.get("metadata") or {}).get(NOTEBOOK_KEY) or {}).get("language")
    except AttributeError:  # metadata of the wrong type
        return DEFAULT
    return lang if lang in SPOKEN else DEFAULT


def pick(texts: dict, lang: str) -> str:
    """``texts[lang]`` from a text kept in every language (:meth:`Catalogue.every`, a grader's record); the
    pseudo-locale's made from the English; :data:`DEFAULT`'s for a language the text was not kept in."""
    if lang in texts:
        return texts[lang]
    if lang == PSEUDO and PSEUDO_FROM in texts:
        return pseudo(texts[PSEUDO_FROM])
    return texts[DEFAULT]


def marked(msgid: str) -> str:
    """``msgid`` itself: marks an id that the code says later through a variable, so that ``make translations``
    finds it (its extraction reads ``say``, ``say_n``, ``every`` and ``marked`` calls)."""
    return msgid


# --- the pseudo-locale ---------------------------------------------------------------------------------------------

_ACCENTED = str.maketrans("AaCcEeGgHhIiJjKkLlNnOoRrSsTtUuWwYyZz",
                          "ÅåÇçËëĜĝĤĥÏïĴĵĶķĻļÑñÖöŘřŜŝŢţÜüŴŵŸÿŽž")
# what the pseudo-locale leaves as it is: placeholders ({name}, {{), HTML tags and entities, %-directives
_KEPT = re.compile(r"\{\{|\}\}|\{[^{}]*\}|<[^<>]*>|&#?\w+;|%(?:\(\w+\))?[sdif]")
OPEN, CLOSE = "⟦", "⟧"


def pseudo(text: str) -> str:
    """``text`` as the pseudo-locale says it: bracketed, each Latin letter accented, placeholders and tags kept."""
    kept = iter(_KEPT.findall(text))
    return OPEN + "".join(part.translate(_ACCENTED) + next(kept, "")
                          for part in _KEPT.split(text)) + CLOSE


# --- catalogues ----------------------------------------------------------------------------------------------------

class Catalogue:
    """One package's messages (a gettext domain), in every language: ``Catalogue("coursekit", <package>/locale)``.

    Each language's compiled catalogue is read once, when first asked. An id a catalogue lacks raises a
    LookupError naming the file (``make translations`` and ``tests/unit/test_catalogues.py`` keep them whole).
    """

    def __init__(self, domain: str, folder):
        self.domain, self.folder = domain, pathlib.Path(folder)
        self._loaded = {}

    def path(self, lang: str, suffix: str = ".mo") -> pathlib.Path:
        """Where ``lang``'s catalogue of this domain is (``.po``: its source)."""
        return self.folder / lang / "LC_MESSAGES" / f"{self.domain}{suffix}"

    def _translations(self, lang: str) -> gettext.GNUTranslations:
        lang = PSEUDO_FROM if lang == PSEUDO else checked(lang)
        if lang not in self._loaded:
            with open(self.path(lang), "rb") as compiled:
                self._loaded[lang] = gettext.GNUTranslations(compiled)
        return self._loaded[lang]

    def template(self, lang: str, msgid: str, n: int | None = None) -> str:
        """The template of ``msgid`` in ``lang`` (its plural form for ``n``), unformatted."""
        translations = self._translations(lang)
        found = translations.gettext(msgid) if n is None else translations.ngettext(msgid, msgid, n)
        if found == msgid:  # a symbolic id is never its own translation: the catalogue lacks it
            raise LookupError(f"{self.path(lang, '.po')} has no message {msgid!r}: add it, then `make translations`")
        return pseudo(found) if lang == PSEUDO and not msgid.startswith(SETTING) else found

    def say(self, lang: str, msgid: str, /, **values) -> str:
        """``msgid`` in ``lang`` with its placeholders filled from ``values``."""
        return self.template(lang, msgid).format(**values)

    def say_n(self, lang: str, msgid: str, n: int, /, **values) -> str:
        """``msgid``'s plural form for ``n`` in ``lang`` (``n`` is also the placeholder ``{n}``)."""
        return self.template(lang, msgid, n).format(n=n, **values)

    def every(self, msgid: str, /, **values) -> dict:
        """``msgid`` said in each of the course's languages, ``{language: text}`` (kept in a record, read with
        :func:`pick`)."""
        return {lang: self.say(lang, msgid, **values) for lang in LANGUAGES}

    def every_n(self, msgid: str, n: int, /, **values) -> dict:
        """:meth:`say_n` in each of the course's languages."""
        return {lang: self.say_n(lang, msgid, n, **values) for lang in LANGUAGES}

    def messages(self, lang: str, prefix: str = "") -> dict:
        """Every message of ``lang`` whose id starts with ``prefix``: ``{id: text}``, or ``{id: [form, …]}`` for a
        plural (what the students' Lab extension is sent); with the catalogue's ``Plural-Forms`` under ``""``."""
        translations = self._translations(lang)
        found = {}
        for key, text in translations._catalog.items():  # gettext keeps plurals as (id, form)
            msgid, form = key if isinstance(key, tuple) else (key, None)
            if not msgid or not msgid.startswith(prefix):
                continue
            text = pseudo(text) if lang == PSEUDO and not msgid.startswith(SETTING) else text
            if form is None:
                found[msgid] = text
            else:
                forms = found.setdefault(msgid, [])
                forms[len(forms):form + 1] = [None] * (form + 1 - len(forms))
                forms[form] = text
        found[""] = translations.info().get("plural-forms", "nplurals=1; plural=0;")
        return found


WORDS = Catalogue("coursekit", pathlib.Path(__file__).with_name("locale"))  # the toolkit's, the hub's, the Lab's


class Worded:
    """An exception kept as a message id of :data:`WORDS` and its values (data, never text), said by :meth:`said` in
    the language of whoever reads it (a page's, the course's); ``str()`` says it in English, for logs and tracebacks.
    Raised as ``Kind(marked("…"), name=value)`` so that ``make translations`` finds the id. Mixed into an exception
    class: :class:`Refusal`, ``coursekit.service.inbox.InboxUnreadable``."""

    def __init__(self, msgid: str, /, **values):
        self.msgid, self.values = msgid, values
        super().__init__(msgid)

    def said(self, lang: str) -> str:
        return WORDS.say(lang, self.msgid, **self.values)

    def __str__(self) -> str:
        return self.said(PSEUDO_FROM)


class Refusal(Worded, ValueError):
    """Something a person asked for, refused (:class:`Worded`: said in the reader's language)."""


def placeholders(template: str) -> set:
    """The placeholders of a message template, as ``{name:spec!conversion}`` strings (the catalogues' check)."""
    return {"{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            for _, name, spec, conversion in string.Formatter().parse(template) if name is not None}

"""A student's Markdown answer as HTML the marking page can show safely, LaTeX as MathML.

Answers are untrusted: the page runs with the instructor's Jupyter credentials. Raw HTML in an answer is
escaped (shown as the text it is); a link is its text and its target, both as text (nothing a student wrote
is clickable); an image is its alt text (no request leaves the page for a student's URL). ``$…$`` and
``$$…$$`` become MathML (:func:`coursekit.sanitise.formula`), which Chromium and Firefox draw natively — no
MathJax on the page; a formula it cannot convert is shown as its LaTeX source. The result then passes the
course's one allow-list (:func:`coursekit.sanitise.clean`), as every page showing a student's text does.
"""
import functools
import html

import mistune

from ..language import DEFAULT, WORDS
from ..sanitise import clean, formula

__all__ = ["render_markdown"]


class _SafeRenderer(mistune.HTMLRenderer):
    def __init__(self, lang: str):
        super().__init__(escape=True)
        self.lang = lang

    def image(self, text, url, title=None):
        return "<span>" + WORDS.say(self.lang, "marking.image", text=text) + "</span>"

    def link(self, text, url, title=None):
        target = html.escape(url)
        return text if target == text else f"{text} ({target})"

    def inline_math(self, text):
        return formula(text, "inline")

    def block_math(self, text):
        return f'<div>{formula(text, "block")}</div>\n'


@functools.lru_cache(maxsize=None)
def _markdown(lang: str):
    """The Markdown renderer of ``lang`` (an image is named in the page's words)."""
    return mistune.create_markdown(renderer=_SafeRenderer(lang), plugins=["math", "strikethrough", "table"])


@functools.lru_cache(maxsize=20_000)
def render_markdown(text: str, lang: str = DEFAULT) -> str:
    """HTML of ``text`` (Markdown + LaTeX), safe to insert into the marking page (in ``lang``)."""
    return clean(_markdown(lang)(text or ""))

"""A student's Markdown answer as HTML the marking page can show safely, LaTeX as MathML.

Answers are untrusted: the page runs with the instructor's Jupyter credentials, so raw HTML in
an answer is escaped (never passed through), links keep only http(s)/mailto targets, and images
become their alt text (no request leaves the page for a student's URL). ``$…$`` and ``$$…$$``
become MathML (``latex2mathml``), which Chromium and Firefox draw natively — no MathJax on the
page; a formula it cannot convert is shown as its LaTeX source.
"""
import functools
import html
import re

import latex2mathml.converter
import mistune

__all__ = ["render_markdown"]


class _SafeRenderer(mistune.HTMLRenderer):
    def __init__(self):
        super().__init__(escape=True)

    def image(self, text, url, title=None):
        return f'<span class="image-alt">[图片：{text}]</span>'

    def link(self, text, url, title=None):
        if not url.lower().startswith(("http://", "https://", "mailto:")):
            return text
        return f'<a href="{html.escape(url)}" rel="noopener noreferrer" target="_blank">{text}</a>'

    def inline_math(self, text):
        return _math(text, "inline")

    def block_math(self, text):
        return f'<div class="math">{_math(text, "block")}</div>\n'


# latex2mathml turns \href and \style into attributes; a student's link or style has no place on the page.
_UNSAFE_ATTRIBUTE = re.compile(r'\s(?:href|style|on[a-z]+|[a-z]+:href)="[^"]*"', re.IGNORECASE)


def _math(latex: str, display: str) -> str:
    try:
        return _UNSAFE_ATTRIBUTE.sub("", latex2mathml.converter.convert(latex, display=display))
    except Exception:  # the converter's errors are of many kinds; the source is the honest fallback
        return f'<code class="latex">{html.escape(latex)}</code>'


_markdown = mistune.create_markdown(renderer=_SafeRenderer(), plugins=["math", "strikethrough", "table"])


@functools.lru_cache(maxsize=20_000)
def render_markdown(text: str) -> str:
    """HTML of ``text`` (Markdown + LaTeX), safe to insert into the marking page."""
    return _markdown(text or "")

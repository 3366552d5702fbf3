"""A student's text as HTML safe to show an instructor or a TA: one allow-list, applied after rendering.

Everything a student typed or their code printed is hostile, and the pages that show it run where the
instructor is logged in (the marking page and nbgrader's formgrader: the origin that holds the Jupyter API).
Each such page renders first (Markdown, LaTeX as MathML) and then passes the HTML through :func:`clean`,
so a renderer's gap (latex2mathml writing ``\\text{<img …>}`` into ``<mtext>`` as markup, raw HTML in a
Markdown cell, an HTML output of a student's code) cannot reach the page:

* only the elements of written text survive: paragraphs, headings, lists, tables, code, emphasis, images and
  MathML (:data:`TAGS`); no script, style, form, frame, object, SVG, link or meta element;
* no link: ``<a>`` is dropped, its text kept, so nothing a student wrote is clickable (no http(s), ``javascript:``
  or ``data:`` target) and no request leaves the page for a student's URL (an image's source must be a
  ``data:`` PNG, JPEG, GIF or WebP, as nbconvert embeds a cell's attachments);
* no ``class``, ``style`` or ``id`` from the student: an answer cannot dress itself as the page's own blocks
  (a "reference answer", a notice) nor cover the page; no event handler or other attribute outside
  :data:`ATTRIBUTES`.

The sanitiser is nh3 (the Python binding of ammonia: html5ever parses as a browser does, so a string cannot
mean one thing to the cleaner and another to Chromium; its MathML and SVG namespace checks stop the known
mutation tricks). Users: :mod:`coursekit.marking.render` (the marking page), :mod:`coursekit.plugins.safe_html`
(the formgrader and the feedback page, through nbconvert's filters), :mod:`coursekit.report.fingerprints` (the
similarity pages' side-by-side cells). The class report quotes students as escaped text (``html.escape``).
"""
import html
import re

import latex2mathml.converter
import nh3

__all__ = ["TAGS", "ATTRIBUTES", "IMAGE_SOURCE", "clean", "formula"]

_TEXT = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "dl", "dt", "dd",
         "pre", "code", "kbd", "samp", "var", "em", "strong", "b", "i", "u", "s", "del", "ins", "sub", "sup",
         "small", "mark", "span", "div", "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td", "img"}
# What latex2mathml writes (and MathML Core draws natively in Chromium and Firefox); no maction, no semantics.
_MATHML = {"math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac", "msqrt",
           "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom",
           "menclose", "mmultiscripts", "mprescripts", "none"}
TAGS = frozenset(_TEXT | _MATHML)

# Layout of tables and formulas only: no colour, no link (MathML's href), no class, style or id.
ATTRIBUTES = {
    "img": {"src", "alt"}, "ol": {"start"}, "td": {"colspan", "rowspan"}, "th": {"colspan", "rowspan"},
    "math": {"display"}, "mi": {"mathvariant"}, "mn": {"mathvariant"}, "mtext": {"mathvariant"},
    "mo": {"accent", "fence", "form", "largeop", "lspace", "maxsize", "minsize", "movablelimits", "rspace",
           "separator", "stretchy", "symmetric"},
    "mover": {"accent"}, "munder": {"accentunder"}, "munderover": {"accent", "accentunder"},
    "mfrac": {"linethickness"}, "mspace": {"width", "height", "depth"}, "mpadded": {"width", "height", "depth",
                                                                                    "lspace", "voffset"},
    "mstyle": {"displaystyle", "scriptlevel"}, "menclose": {"notation"},
    "mtable": {"columnalign", "columnlines", "columnspacing", "displaystyle", "rowalign", "rowlines",
               "rowspacing"},
    "mtr": {"columnalign", "rowalign"}, "mtd": {"columnalign", "columnspan", "rowalign", "rowspan"},
}
# An image a page may show: embedded raster data (a cell's attachment), never a URL and never SVG.
IMAGE_SOURCE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*\Z")


def _attribute(element: str, attribute: str, value: str):
    if element == "img" and attribute == "src":
        return value if IMAGE_SOURCE.match(value) else None
    return value


_CLEANER = nh3.Cleaner(tags=set(TAGS), attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
                       attribute_filter=_attribute, url_schemes={"data"}, link_rel=None, strip_comments=True)


def clean(markup: str) -> str:
    """``markup`` with every element and attribute outside the allow-list removed (text kept; a script's or a
    style's content dropped)."""
    return _CLEANER.clean(markup or "")


def formula(latex: str, display: str = "inline") -> str:
    """A formula as HTML: MathML (latex2mathml; ``display`` "inline" or "block"), or its source as code when it
    cannot be converted. What latex2mathml writes is not safe by itself (``\\text{<img …>}`` stays markup): the
    page passes it through :func:`clean` with the rest of its text."""
    try:
        return latex2mathml.converter.convert(latex, display=display)
    except Exception:  # the converter's errors are of many kinds; the source is the honest fallback
        return f"<code>{html.escape(latex)}</code>"

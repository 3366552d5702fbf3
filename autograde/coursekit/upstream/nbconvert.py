"""nbconvert's HTML export without its second pass over the page, and its Markdown with LaTeX as MathML.

``HTMLExporter.from_notebook_node`` renders the page, then parses all of it again with BeautifulSoup only
to give images without one an ``alt`` and Lab-template cells a ``tabindex``: about half the time of a
feedback page (≈ 0.5 MB). nbconvert has no setting to skip that pass (a proposal:
``docs/upstream/nbconvert-html-accessibility-pass.md``), so :func:`render_without_soup` does what the
method does before it, and the caller adds what its page needs (the course's: an ``alt``,
:mod:`coursekit.plugins.feedback_page`).

``HTMLExporter.markdown2html`` leaves a cell's formulas as ``$…$`` text for MathJax, which typesets them in the
browser after any server-side sanitiser has looked (and MathJax's ``\\href`` makes links). :func:`markdown_to_html`
renders a cell as that method does (nbconvert's renderer: its attachments, headings and code blocks) with the
formulas given to ``math`` instead, so they are HTML before the sanitiser reads the page
(:mod:`coursekit.plugins.safe_html`). nbconvert's renderer takes its math from three methods; no setting chooses
another renderer (the exporter builds ``IPythonRenderer`` itself; a proposal:
``docs/upstream/nbconvert-math-renderer-and-nbgrader-formgrader-sanitising.md``).
"""
from nbconvert.exporters import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

__all__ = ["markdown_to_html", "render_without_soup"]


def render_without_soup(exporter, nb, resources=None, **kw):
    """``(page, resources)``: what ``HTMLExporter.from_notebook_node`` makes of ``nb`` with ``exporter`` (an
    ``HTMLExporter``), before its BeautifulSoup pass."""
    langinfo = nb.metadata.get("language_info", {})
    lexer = langinfo.get("pygments_lexer", langinfo.get("name"))
    exporter.register_filter("highlight_code", exporter.filters.get(
        "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=exporter)))
    resources = exporter._init_resources(resources)
    data_types = WidgetsDataTypeFilter(notebook_metadata=exporter._nb_metadata, parent=exporter, resources=resources)
    exporter.register_filter("filter_data_type", data_types)
    return TemplateExporter.from_notebook_node(exporter, nb, resources, **kw)


class _MathRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer with each formula given to ``math(latex, display)`` (HTML), not left as text."""

    def __init__(self, math, **kwargs):
        super().__init__(**kwargs)
        self._math = math

    def inline_math(self, body: str) -> str:
        return self._math(body, "inline")

    def block_math(self, body: str) -> str:
        return self._math(body, "block")

    def latex_environment(self, name: str, body: str) -> str:
        return self._math(f"\\begin{{{name}}}{body}\\end{{{name}}}", "block")


def markdown_to_html(source: str, math, attachments=None, path: str = "") -> str:
    """A Markdown cell's HTML as ``HTMLExporter.markdown2html`` renders it with its defaults and no heading anchors,
    each formula as ``math(latex, "inline" | "block")`` returns it. Raw HTML in ``source`` is passed through, as
    nbconvert's renderer does: sanitise the result."""
    renderer = _MathRenderer(math, escape=False, attachments=attachments or {}, path=path, exclude_anchor_links=True)
    return MarkdownWithMath(renderer=renderer).render(source)

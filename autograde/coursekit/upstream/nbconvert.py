"""nbconvert's HTML export without its second pass over the page.

``HTMLExporter.from_notebook_node`` renders the page, then parses all of it again with BeautifulSoup only
to give images without one an ``alt`` and Lab-template cells a ``tabindex``: about half the time of a
feedback page (≈ 0.5 MB). nbconvert has no setting to skip that pass (a proposal:
``docs/upstream/nbconvert-html-accessibility-pass.md``), so :func:`render_without_soup` does what the
method does before it, and the caller adds what its page needs (the course's: an ``alt``,
:mod:`coursekit.plugins.feedback_page`).
"""
from nbconvert.exporters import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

__all__ = ["render_without_soup"]


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

"""nbconvert's HTML pages of a student's notebook, sanitised: the formgrader's and the feedback page.

nbgrader's formgrader renders a submission with a plain ``HTMLExporter`` whose ``sanitize_html`` is off, in the
origin that holds the instructor's Jupyter API; its template renders every Markdown cell with ``markdown2html`` and
never cleans it, whatever ``sanitize_html`` says. :func:`sanitised` sets, in a config, what makes such an exporter
show a student's notebook inert, through nbconvert's public settings only:

* ``markdown2html`` (the Jinja filter every template calls on a Markdown cell and a comment) is :func:`markdown2html`:
  nbconvert's renderer with formulas as MathML (:func:`coursekit.upstream.nbconvert.markdown_to_html`), then the
  course's allow-list (:func:`coursekit.sanitise.clean`);
* ``sanitize_html`` on, and ``clean_html`` (the filter it applies to HTML and Markdown outputs and raw cells) is
  :func:`clean_html`, the same allow-list;
* each output keeps only what these filters make inert (:class:`InertOutputs`): HTML and Markdown, PNG and JPEG,
  text. Not JavaScript or widgets, nor SVG or LaTeX (which the templates do not clean), nor an output's metadata
  that puts it in a frame or gives an image a URL;
* a student's HTML is marked for MathJax (which these pages load) to leave alone: MathJax typesets after the
  sanitiser has looked, and its ``\\href`` makes links.

``nbgrader_config.py`` calls :func:`sanitised` (the formgrader's exporter reads that config);
:class:`coursekit.plugins.feedback_page.CourseFeedbackExporter` applies it to its own config whatever the file says.
"""
import html

from jinja2 import pass_context
from nbconvert.filters.markdown_mistune import InvalidNotebook
from nbconvert.preprocessors import Preprocessor

from ..sanitise import clean, formula
from ..upstream.nbconvert import markdown_to_html

__all__ = ["SHOWN", "InertOutputs", "clean_html", "markdown2html", "sanitised"]

# MathJax 2 and 3 skip an element of this class and everything inside it.
_INERT = '<div class="tex2jax_ignore">{}</div>'
# What an output may show: HTML and Markdown through clean_html, images from their own bytes, text escaped.
SHOWN = ("text/html", "text/markdown", "image/png", "image/jpeg", "text/plain")
_IMAGE_METADATA = ("width", "height", "alt", "unconfined")  # written escaped by the templates; no "filenames" (a URL)


@pass_context
def markdown2html(context, source: str) -> str:
    """A Markdown cell (or a comment) as sanitised HTML, its formulas as MathML (the cell's attachments embedded)."""
    cell = context.get("cell", {})
    path = context.get("resources", {}).get("metadata", {}).get("path", "")
    try:
        rendered = markdown_to_html(source, formula, cell.get("attachments", {}), path)
    except InvalidNotebook:  # an attachment the cell names and does not carry: the student's text as text
        rendered = f"<pre>{html.escape(source)}</pre>"
    return _INERT.format(clean(rendered))


def clean_html(element) -> str:
    """nbconvert's ``clean_html`` filter with the course's allow-list (an HTML or Markdown output, a raw cell)."""
    text = element.decode() if isinstance(element, bytes) else str(element)
    return _INERT.format(clean(text))


class InertOutputs(Preprocessor):
    """Each output of a student's notebook with the data kinds of :data:`SHOWN` only, and no metadata but an image's
    size and description (nbconvert's ``isolated`` frame and an image's file name are left out)."""

    enabled = True

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if "data" in output:
                output["data"] = {kind: value for kind, value in output["data"].items() if kind in SHOWN}
            if "metadata" in output:
                images = {kind: output["metadata"][kind] for kind in ("image/png", "image/jpeg")
                          if isinstance(output["metadata"].get(kind), dict)}
                output["metadata"] = {kind: {k: v for k, v in meta.items() if k in _IMAGE_METADATA}
                                      for kind, meta in images.items()}
        return cell, resources


def sanitised(config):
    """``config`` (a traitlets ``Config``) set so that every ``HTMLExporter`` built from it shows a student's notebook
    inert (module docstring); filters and preprocessors it names otherwise are kept. Returns ``config``."""
    exporter, ours = config.HTMLExporter, f"{__name__}.InertOutputs"
    exporter.sanitize_html = True
    exporter.filters = {**dict(exporter.get("filters", {})), "markdown2html": f"{__name__}.markdown2html",
                        "clean_html": f"{__name__}.clean_html"}
    exporter.preprocessors = [p for p in exporter.get("preprocessors", []) if p != ours] + [ours]
    return config

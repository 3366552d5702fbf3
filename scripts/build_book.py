"""The chapter's static HTML pages (``make book``): ``book/_build/html/index.html`` and ``en/index.html``.

One page per edition of the chapter (``make release``: ``notebooks/ch04_attention.ipynb`` in Chinese,
``notebooks/en/ch04_attention.ipynb`` in English), each with a link to the other at its top
(attnkit's message ``book.switch``: the links, each named in its edition's own language) and its language on
``<html lang>`` (the edition's code, ISO 639-1). For each:

1. Run a copy of the edition's notebook top to bottom (nbclient, as a student's
   Run All, outside nbgrader) and keep the widgets' state (nbclient's ``store_widget_state``).
2. Each anywidget view becomes ``<div class="anywidget-view">``, rendered in the page by
   ``scripts/book/anywidgets.js`` from the embedded state and module: the explorer moves
   with no kernel. (nbconvert's own widget embedding loads the widget manager from a CDN
   and cannot render anywidgets offline.)
3. nbconvert's ``lab`` template gives JupyterLab's look (prose, code, outputs, figures);
   ``scripts/book/book.html.j2`` drops its CDN scripts (require.js, MathJax, mermaid: the
   chapter has no math or diagrams), so nothing is fetched and it opens from ``file://``.
4. Noto Sans SC (the figures' font, from the ``pylopdf-fonts-zh-cn`` wheel) cut down to the
   characters the page uses, embedded as WOFF2: the Chinese renders with no font installed.

Each page is one self-contained file; publish the folder on any static host.

    python scripts/build_book.py                 # -> book/_build/html/index.html, book/_build/html/en/index.html
    python scripts/build_book.py --out DIR       # elsewhere
    python scripts/build_book.py --editions zh   # the Chinese page only
"""
import argparse
import base64
import copy
import io
import json
import os
import pathlib
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from release_notebook import student_notebook  # where make release writes each edition

from attnkit.language import DEFAULT, LANGUAGES, WORDS

REPO = pathlib.Path(__file__).resolve().parents[1]
OUT = REPO / "book" / "_build" / "html"
ASSETS = pathlib.Path(__file__).resolve().parent / "book"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
FONT_FAMILY = "Noto Sans SC"
# Latin first (the reader's own fonts), the embedded font for the Chinese characters only.
PAGE_FONTS = (f'system-ui, -apple-system, "Segoe UI", Helvetica, Arial, "{FONT_FAMILY}", sans-serif',
              f'Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", "{FONT_FAMILY}", monospace')


def execute(notebook: pathlib.Path, timeout: int = 120) -> nbformat.NotebookNode:
    """Run ``notebook`` in a fresh python3 kernel, in a temporary folder; widget state kept."""
    nb = nbformat.read(notebook, as_version=4)
    saved = os.environ.pop("NBGRADER_EXECUTION", None)  # a reader sees the live explorer
    try:
        with tempfile.TemporaryDirectory() as tmp:
            NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                           resources={"metadata": {"path": tmp}}).execute()
    finally:
        if saved is not None:
            os.environ["NBGRADER_EXECUTION"] = saved
    return nb


def static_widgets(nb) -> tuple:
    """Replace anywidget views by placeholders; return (the notebook, the models they need)."""
    nb = copy.deepcopy(nb)
    models = nb.metadata.pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    needed = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            model_id = output.get("data", {}).get(WIDGET_VIEW, {}).get("model_id")
            if model_id in models and "_esm" in models[model_id]["state"]:
                needed[model_id] = models[model_id]
                output["data"] = {"text/html": f'<div class="anywidget-view" data-model-id="{model_id}"></div>'}
    return nb, needed


def script_json(value) -> str:
    """JSON safe inside a <script> element (no "</" to close it early)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def font_path() -> pathlib.Path:
    import pylopdf_fonts_zh_cn

    return pathlib.Path(pylopdf_fonts_zh_cn.__file__).parent / "NotoSansSC-Regular.otf"


def subset_font(text: str) -> tuple:
    """Noto Sans SC with only the non-ASCII characters of ``text`` it has: (WOFF2 bytes, code points)."""
    from fontTools import subset

    options = subset.Options()
    options.flavor, options.hinting, options.desubroutinize = "woff2", False, True
    font = subset.load_font(str(font_path()), options)
    cmap = font.getBestCmap()
    points = sorted({ord(c) for c in text if ord(c) > 0x7F and ord(c) in cmap})
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=points)
    subsetter.subset(font)
    buffer = io.BytesIO()
    subset.save_font(font, buffer, options)
    return buffer.getvalue(), points


def unicode_range(points: list) -> str:
    """CSS ``unicode-range`` for sorted code points, consecutive runs merged."""
    runs, start = [], None
    for i, point in enumerate(points):
        start = point if start is None else start
        if i + 1 == len(points) or points[i + 1] != point + 1:
            runs.append(f"U+{start:X}" if start == point else f"U+{start:X}-{point:X}")
            start = None
    return ", ".join(runs)


def page_css(text: str) -> str:
    """The embedded font and the font stacks that use it (over JupyterLab's theme variables)."""
    woff2, points = subset_font(text)
    data = base64.b64encode(woff2).decode("ascii")
    return (f'@font-face {{ font-family: "{FONT_FAMILY}"; font-display: block; '
            f'src: url(data:font/woff2;base64,{data}) format("woff2"); unicode-range: {unicode_range(points)}; }}\n'
            f"body.jp-Notebook {{ --jp-ui-font-family: {PAGE_FONTS[0]}; --jp-content-font-family: {PAGE_FONTS[0]};"
            f" --jp-code-font-family: {PAGE_FONTS[1]}; }}\n"
            "main { max-width: 1260px; margin: 0 auto; }\n")


def page_path(out: pathlib.Path, lang: str) -> pathlib.Path:
    """``out/index.html`` for the Chinese page, ``out/<language>/index.html`` for another (``book.switch`` links them)."""
    return out / "index.html" if lang == DEFAULT else out / lang / "index.html"


def render(nb, lang: str = DEFAULT) -> str:
    """The executed notebook of the ``lang`` edition as one self-contained HTML page."""
    nb, models = static_widgets(nb)
    title, switch = WORDS.say(lang, "book.title"), WORDS.say(lang, "book.switch")
    nb.metadata["title"] = title
    host = (ASSETS / "anywidgets.js").read_text(encoding="utf-8")
    state = script_json({"models": models})
    chars = json.dumps(nb, ensure_ascii=False) + state + host + title + switch
    exporter = HTMLExporter(template_name="lab", extra_template_paths=[str(ASSETS)], template_file="book.html.j2",
                            embed_images=True, language_code=lang)
    html, _ = exporter.from_notebook_node(nb, resources={"book": {"css": page_css(chars), "state": state,
                                                                   "host": host, "switch": switch}})
    return html


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=OUT, help="folder for index.html (and en/index.html)")
    parser.add_argument("--editions", nargs="+", choices=LANGUAGES, default=list(LANGUAGES))
    args = parser.parse_args(argv)
    for lang in args.editions:
        start = time.perf_counter()
        html = render(execute(student_notebook(lang)), lang)
        page = page_path(args.out, lang)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(html, encoding="utf-8")
        size = page.stat().st_size
        print(f"wrote {page} ({size / 1e6:.2f} MB, one file) in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

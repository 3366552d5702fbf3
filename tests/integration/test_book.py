"""Does ``make book`` give a static edition that works from disk, with a live explorer and real Chinese?

Builds ``book/_build/html/index.html`` as ``make book`` does (scripts/build_book.py), then
opens it from ``file://`` in Debian's Chromium with every network request refused and no
Chinese font on the machine (fontconfig sees only matplotlib's DejaVu fonts).
Screenshots and the page weight land in ``artefacts/book/`` (ignored by git).
"""
import contextlib
import os
import pathlib
import re
import subprocess
import sys

import matplotlib
import nbformat
import numpy as np
import pytest

from attnkit import sharpness
from support import explorer_page, lab_page
from support.lab_server import REPO

BOOK = REPO / "book" / "_build" / "html"
PAGE = BOOK / "index.html"
NOTEBOOK = REPO / "notebooks" / "ch04_attention.ipynb"
ARTEFACTS = REPO / "artefacts" / "book"
EXPLORER = explorer_page.EXPLORER
TITLE = f"{EXPLORER} .attn-title"  # the heatmap's title: "softmax 权重（斜线格 = 被屏蔽）"
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


@pytest.fixture(scope="module")
def book():
    """The static edition, built now exactly as `make book` builds it."""
    subprocess.run([sys.executable, "scripts/build_book.py"], cwd=REPO, check=True, capture_output=True, text=True,
                   env={k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}, timeout=300)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    (ARTEFACTS / "page-weight.txt").write_text(f"{PAGE.stat().st_size} bytes\n")
    return PAGE


@contextlib.contextmanager
def offline_page(browser, problems: list):
    """A page whose console errors/warnings, page errors and refused requests go into ``problems``."""
    context = browser.new_context(viewport=lab_page.VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.route(re.compile(r"^(?!file:|data:|blob:)"), lambda route: (problems.append(("request", route.request.url)),
                                                                    route.abort()))
    page.on("console", lambda m: m.type in ("error", "warning") and problems.append((m.type, m.text)))
    page.on("pageerror", lambda error: problems.append(("pageerror", str(error))))
    page.on("requestfailed", lambda r: problems.append(("requestfailed", r.url)))
    try:
        yield page
    finally:
        context.close()


def open_book(page, path: pathlib.Path) -> None:
    page.goto(path.as_uri())
    page.wait_for_function("document.documentElement.dataset.widgetsReady === 'true'")
    page.evaluate("() => document.fonts.ready")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Chromium that sees only matplotlib's DejaVu fonts: no Chinese font but the page's own."""
    lab_page.require_chromium("the static edition's test")
    home = tmp_path_factory.mktemp("chromium-home")
    fonts = pathlib.Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    config = home / "fonts.conf"
    config.write_text(f"<?xml version='1.0'?><fontconfig><dir>{fonts}</dir><cachedir>{home / 'fc-cache'}</cachedir>"
                      "</fontconfig>")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FONTCONFIG_FILE", str(config))
        with lab_page.chromium_browser(home, "the static edition's test") as browser:
            yield browser


def test_one_file_that_loads_nothing_from_elsewhere(book):
    """Is the edition one HTML file with no external script, style, image or font (so it opens from disk)?"""
    html = book.read_text(encoding="utf-8")
    assert [p.name for p in BOOK.iterdir()] == ["index.html"]
    tags = re.findall(r"<(?:script|img|link|iframe|source)\b[^>]*>", html)
    addresses = [a for tag in tags for a in re.findall(r"""\b(?:src|href)=["']?([^"'\s>]*)""", tag)]
    assert len(addresses) >= 4 and all(a.startswith("data:") for a in addresses), [a[:40] for a in addresses]
    assert not re.search(r"url\((?!data:)", html), "a CSS url() that is not embedded"


def test_prose_code_outputs_and_figures_as_in_the_notebook(book):
    """Does the page hold every code cell, every section heading, the figures and the visible verify's output?"""
    html = book.read_text(encoding="utf-8")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert html.count('class="jp-Cell jp-CodeCell') == sum(c.cell_type == "code" for c in nb.cells)
    headings = [line.lstrip("# ") for c in nb.cells if c.cell_type == "markdown"
                for line in c.source.splitlines() if line.startswith("## ")]
    assert len(headings) >= 10
    missing = [h for h in headings if h.split("`")[0].strip() not in html]
    assert not missing, missing
    assert len(re.findall(r'<img [^>]*src="data:image/png;base64,', html)) >= 4  # pipeline, wrong order, -1e9/-inf, heads
    assert "结果: 11 失败 / 11 通过" in html  # the untouched chapter's verify, as a student first sees it
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html


def test_opens_from_disk_without_console_errors_and_the_explorer_moves(book, browser):
    """From file://, offline: no console error, and head_dim, scale, seq_len and the mask each redraw it as attnkit says?"""
    problems = []
    with offline_page(browser, problems) as page:
        open_book(page, book)
        assert page.locator(EXPLORER).count() == 1
        start = explorer_page.settled_frames(page)
        explorer_page.press(page, f"{EXPLORER} .attn-head-dim", "ArrowRight", times=2)  # 64 → 256
        page.locator(f"{EXPLORER} .attn-scale button").nth(1).click()
        explorer_page.press(page, f"{EXPLORER} .attn-seq-len", "ArrowRight", times=3)  # 8 → 11
        page.locator(f"{EXPLORER} .attn-causal").check()
        assert explorer_page.frames(page) == start + 7  # one figure per move
        m = sharpness.measure(256, scaled=True, seq_len=11, seed=0, causal=True)
        assert "".join(explorer_page.readout(page)) == sharpness.summary(m)
        page.locator(EXPLORER).screenshot(path=ARTEFACTS / "explorer-moved.png")
        box = explorer_page.canvas_box(page)
        assert box["backing"] == box["shown"] * box["ratio"]  # the screen's own pixels
    assert problems == []


def test_the_figure_is_drawn_at_the_screens_pixel_ratio(book, browser):
    """On a devicePixelRatio 2 screen, has the canvas twice the pixels of its CSS width (sharp, not stretched)?"""
    context = browser.new_context(viewport=lab_page.VIEWPORT, device_scale_factor=2)
    try:
        page = context.new_page()
        open_book(page, book)
        box = explorer_page.canvas_box(page)
        assert box["ratio"] == 2 and box["backing"] == 2 * box["shown"] >= 1000
    finally:
        context.close()


def tofu_version(text: str) -> str:
    """``text`` with every Chinese character replaced by a private-use one: a glyph no font draws."""
    return CJK.sub("\ue000", text)


def label_pixels(page, css_font: str | None = None, text: str | None = None) -> np.ndarray:
    """The title's pixels (grey levels), optionally drawn in another font stack or with other text."""
    page.evaluate("""([sel, font, text]) => { const e = document.querySelector(sel);
        if (font) e.style.fontFamily = font; if (text !== null) e.textContent = text; }""", [TITLE, css_font, text])
    page.evaluate("() => document.fonts.ready")
    import io

    from PIL import Image
    shot = page.locator(TITLE).first.screenshot()
    return np.asarray(Image.open(io.BytesIO(shot)).convert("L"), dtype=float)


def test_chinese_label_pixels_are_glyphs_not_tofu(book, browser):
    """With no Chinese font on the machine, is the figure's Chinese title drawn in real glyphs (the page's font)?"""
    problems = []
    with offline_page(browser, problems) as page:
        open_book(page, book)
        title = page.locator(TITLE).first.inner_text()
        assert CJK.search(title), title
        real = label_pixels(page)
        page.locator(TITLE).first.screenshot(path=ARTEFACTS / "title-glyphs.png")
        tofu = label_pixels(page, text=tofu_version(title))
        without_font = label_pixels(page, css_font='"DejaVu Sans"', text=title)  # control: the machine's fonts only
        page.locator(TITLE).first.screenshot(path=ARTEFACTS / "title-without-the-page-font.png")
    assert problems == []
    assert np.array_equal(without_font, tofu), "control: without the page's font the title should be tofu"
    assert real.shape != tofu.shape or np.abs(real - tofu).mean() > 2, "the title is drawn as tofu"

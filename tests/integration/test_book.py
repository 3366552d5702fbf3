"""Does ``make book`` give two static pages that work from disk, with a live explorer, each in its language?

Builds ``book/_build/html/index.html`` (Chinese) and ``en/index.html`` (English) as ``make book`` does
(scripts/build_book.py), then opens them from ``file://`` in Debian's Chromium with every network request
refused and no Chinese font on the machine (fontconfig sees only matplotlib's DejaVu fonts).
Screenshots and the page weights land in ``artefacts/book/`` (ignored by git).
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

from attnkit import edition, sharpness
from support import explorer_page, lab_page
from support.axe_audit import assert_accessible
from support.editions import EDITIONS, student_path
from support.lab_server import REPO

BOOK = REPO / "book" / "_build" / "html"
PAGES = {"zh": BOOK / "index.html", "en": BOOK / "en" / "index.html"}
PAGE = PAGES["zh"]
ARTEFACTS = REPO / "artefacts" / "book"
BASELINE = {"zh": "结果: 11 失败 / 11 通过", "en": "Result: 11 failed / 11 passed"}
HTML_LANG = {"zh": '<html lang="zh">', "en": '<html lang="en">'}
EXPLORER = explorer_page.EXPLORER
TITLE = f"{EXPLORER} .attn-title"  # the heatmap's title: "softmax 权重（斜线格 = 被屏蔽）"
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
# benchmarks/bench_explorer_browser.py's static column is taken here, on the page make book wrote (its smoke in make
# test; its JupyterLab column: test_browser.py)
sys.path.insert(0, str(REPO / "benchmarks"))
import bench_explorer_browser  # noqa: E402


@pytest.fixture(scope="module")
def pages():
    """Both pages, built now exactly as `make book` builds them."""
    subprocess.run([sys.executable, "scripts/build_book.py"], cwd=REPO, check=True, capture_output=True, text=True,
                   env={k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}, timeout=600)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    (ARTEFACTS / "page-weight.txt").write_text("".join(f"{lang}: {p.stat().st_size} bytes\n" for lang, p in PAGES.items()))
    return PAGES


@pytest.fixture
def book(pages):
    """The Chinese page (the tests of its Chinese glyphs and pixels)."""
    return pages["zh"]


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


@pytest.mark.parametrize("lang", EDITIONS)
def test_one_file_that_loads_nothing_from_elsewhere(pages, lang):
    """Is each page one HTML file with no external script, style, image or font (so it opens from disk)?"""
    html = pages[lang].read_text(encoding="utf-8")
    assert sorted(str(p.relative_to(BOOK)) for p in BOOK.rglob("*") if p.is_file()) == ["en/index.html", "index.html"]
    tags = re.findall(r"<(?:script|img|link|iframe|source)\b[^>]*>", html)
    addresses = [a for tag in tags for a in re.findall(r"""\b(?:src|href)=["']?([^"'\s>]*)""", tag)]
    assert len(addresses) >= 4 and all(a.startswith("data:") for a in addresses), [a[:40] for a in addresses]
    assert not re.search(r"url\((?!data:)", html), "a CSS url() that is not embedded"


@pytest.mark.parametrize("lang", EDITIONS)
def test_prose_code_outputs_and_figures_as_in_the_notebook(pages, lang):
    """Does each page hold its edition's every code cell, section heading, figures (each with its words and numbers)
    and visible verify output, with its language on <html>?"""
    html = pages[lang].read_text(encoding="utf-8")
    nb = nbformat.read(student_path(lang), as_version=4)
    assert html.count('class="jp-Cell jp-CodeCell') == sum(c.cell_type == "code" for c in nb.cells)
    headings = [line.lstrip("# ") for c in nb.cells if c.cell_type == "markdown"
                for line in c.source.splitlines() if line.startswith("## ")]
    assert len(headings) >= 10
    missing = [h for h in headings if h.split("`")[0].strip() not in html]
    assert not missing, missing
    assert len(re.findall(r'<img [^>]*src="data:image/png;base64,', html)) >= 4  # pipeline, wrong order, -1e9/-inf, heads
    # each figure with its words (alt) and, folded under it, its numbers as tables (attnkit.describe)
    described = re.findall(r'<figure class="attn-described".*?</figure>', html, flags=re.S)
    assert len(described) >= 4 and all('alt="' in f and "<table>" in f and "<th scope=" in f for f in described)
    assert BASELINE[lang] in html  # the untouched chapter's verify, as a student first sees it
    shown = re.sub(r"<style\b.*?</style>", "", html, flags=re.S)  # the code colours' CSS names Generic.Traceback
    assert "Traceback" not in shown and 'data-mime-type="application/vnd.jupyter.stderr"' not in shown
    assert HTML_LANG[lang] in html


def test_the_english_page_has_no_chinese_but_the_labs_title_and_the_link_back(pages):
    """What the English page shows a reader (scripts, styles and embedded bytes aside: the explorer's module holds
    both languages' readout): no Chinese character but the original lab's title and the link to the Chinese page,
    which names it in its own language?"""
    html = pages["en"].read_text(encoding="utf-8")
    text = re.sub(r"<(script|style)\b.*?</\1>|data:[^\"')]+", "", html, flags=re.S)
    assert edition.foreign_text(text.replace("本章中文版", "")) == []


def test_each_page_links_to_the_other(pages, browser):
    """From file://: the Chinese page's link opens the English page and back, each whole (its explorer ready)?"""
    problems = []
    with offline_page(browser, problems) as page:
        open_book(page, pages["zh"])
        page.locator("nav.edition-switch a").click()
        page.wait_for_function("document.documentElement.dataset.widgetsReady === 'true'")
        assert page.url == pages["en"].as_uri() and page.locator("html").get_attribute("lang") == "en"
        page.locator("nav.edition-switch a").click()
        page.wait_for_function("document.documentElement.dataset.widgetsReady === 'true'")
        assert page.url == pages["zh"].as_uri()
    assert problems == []


@pytest.mark.parametrize("lang", EDITIONS)
def test_opens_from_disk_without_console_errors_and_the_explorer_moves(pages, browser, lang):
    """From file://, offline: no console error; by keyboard alone (Tab from the top of the page, then keys), are
    head_dim, scale, seq_len and the mask each reached, ringed and labelled, does each move redraw it as attnkit
    says, with the readout, titles and live region in the page's language?"""
    problems = []
    with offline_page(browser, problems) as page:
        open_book(page, pages[lang])
        assert page.locator(EXPLORER).count() == 1
        start = explorer_page.settled_frames(page)
        before = explorer_page.state(page)
        walked = explorer_page.keyboard_walk(page, from_top=True)
        assert explorer_page.frames(page) == start + 7  # one figure per move
        m = sharpness.measure(**explorer_page.walked(before, sharpness.HEAD_DIMS, sharpness.MAX_SEQ_LEN), seed=0)
        assert (m.head_dim, m.scaled, m.weights.shape[0], m.causal) == (256, True, 11, True)  # from 64, ×1, 8, none
        explorer_page.assert_walked(walked, sharpness.announcement(m, lang))
        assert "".join(explorer_page.readout(page)) == sharpness.summary(m, lang)
        assert page.locator(TITLE).first.inner_text() == sharpness.words(lang)["weights"]
        page.locator(EXPLORER).screenshot(path=ARTEFACTS / f"explorer-moved-{lang}.png")
        box = explorer_page.canvas_box(page)
        assert box["backing"] == box["shown"] * box["ratio"]  # the screen's own pixels
        assert_accessible(page, f"book-{lang}")  # the whole page is ours: nbconvert's lab template is our choice
    assert problems == []


def test_does_bench_explorer_browser_time_the_static_page(book, browser):
    """benchmarks/bench_explorer_browser.py's static column, one action of each kind, on the page as make book wrote
    it: every action timed, and its table printed with the page's weight and the old explorer's commit?"""
    problems = []
    with offline_page(browser, problems) as page:
        open_book(page, book)
        static = bench_explorer_browser.column(page, moves=1)
    assert [len(static[name]) for name in bench_explorer_browser.ACTIONS] == [1, 1, 1] and problems == []
    assert all(0 < static[name][0] < 30_000 for name in bench_explorer_browser.ACTIONS), static
    skipped = bench_explorer_browser.skipped()
    lines = bench_explorer_browser.table(1, skipped, skipped, static, book.stat().st_size,
                                         bench_explorer_browser.old_kernel_ref())
    print("\n" + "\n".join(lines))
    rows = lines[2:2 + len(bench_explorer_browser.ACTIONS)]  # one an action: its static column measured, the rest not
    assert all(row.endswith(bench_explorer_browser.cell(static[row.split()[0]])) for row in rows), lines
    assert f"{book.stat().st_size / 1e6:.2f} MB" in lines[-1]


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

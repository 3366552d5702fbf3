"""Driving a notebook in JupyterLab through Playwright, the way a student does.

Every helper takes a Playwright ``Page`` showing one notebook and works through the
visible UI (menus, toolbar, keyboard); ``code_cells`` reads back what the page shows.
"""
import contextlib
import os
import pathlib
from dataclasses import dataclass

import pytest

from support.explorer_page import timed_moves

CHROMIUM = pathlib.Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
VIEWPORT = {"width": 1400, "height": 1000}


def require_chromium(what: str = "the browser test") -> pathlib.Path:
    """Debian's Chromium; without it skip with how to enable it, or fail under CI=true (never a silent pass)."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} missing: enable {what} with `sudo apt-get install chromium` (or run `make test` as root)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


@contextlib.contextmanager
def chromium_browser(home: pathlib.Path, what: str = "the browser test"):
    """A headless Chromium via Playwright whose settings and caches live under ``home``; closed after."""
    from playwright.sync_api import sync_playwright

    env = dict(os.environ, XDG_CONFIG_HOME=str(home / "config"), XDG_CACHE_HOME=str(home / "cache"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(require_chromium(what)), args=CHROMIUM_ARGS, env=env)
        try:
            yield browser
        finally:
            browser.close()
STDERR_MIME = "application/vnd.jupyter.stderr"  # stderr streams and tracebacks alike

# The toolbar indicator says "idle" before a kernel is attached; the status bar's
# kernel item ("Python 3 (ipykernel) | Idle") only once the kernel is connected.
_KERNEL_READY_JS = """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
  .some(item => /^(?!No Kernel).+ \\| Idle$/.test(item.textContent.trim()))"""

# Finished when the kernel is idle, nothing is queued ([*]) and something ran.
_RUN_FINISHED_JS = """() => {
  const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
  const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
    .map(p => p.textContent.trim());
  return indicator !== null && indicator.dataset.status === 'idle'
    && !prompts.some(t => t.includes('*')) && prompts.some(t => /\\d/.test(t));
}"""

# Widget views show "Loading widget..." until their model arrives or the manager
# gives up ("Error displaying widget: ..."), a second or two after the kernel is idle.
_WIDGETS_SETTLED_JS = """() => ![...document.querySelectorAll('.jp-OutputArea-output')]
  .some(out => out.innerText.includes('Loading widget...'))"""

_CODE_CELLS_JS = """(stderrMime) => [...document.querySelectorAll('.jp-CodeCell')].map(cell => ({
  prompt: cell.querySelector('.jp-InputPrompt').textContent.trim(),
  source: [...cell.querySelectorAll('.jp-InputArea-editor .cm-line')]
    .map(line => line.textContent).join('\\n'),
  output: [...cell.querySelectorAll('.jp-OutputArea-output')]
    .map(out => out.innerText).join('\\n'),
  stderr: [...cell.querySelectorAll(`.jp-OutputArea-output[data-mime-type="${stderrMime}"]`)]
    .map(out => out.innerText),
}))"""


@dataclass
class CodeCell:
    """One code cell as the page shows it."""

    prompt: str
    source: str
    output: str
    stderr: list

    @property
    def executed(self) -> bool:
        return any(ch.isdigit() for ch in self.prompt)


def open_notebook(page, url: str) -> None:
    """Open the notebook, wait for its kernel, and hide the file browser for room."""
    page.goto(url)
    page.wait_for_function(_KERNEL_READY_JS, timeout=60_000, polling=100)
    page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()


# True once the kernel's info has arrived and the notebook's language_info equals it (Lab applied it, or
# the saved one already matched): after this, that reply can no longer change the notebook.
_LANGUAGE_INFO_APPLIED_JS = """() => {
  const canonical = value => JSON.stringify(value, (key, v) => v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : 1)) : v);
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
    && panel.sessionContext.session.kernel;
  if (!kernel || !panel.context.model) return false;
  const seen = window.__attnKernelInfo;  // the predicate must answer at once: the reply is kept when it comes
  if (!seen || seen.id !== kernel.id) {
    window.__attnKernelInfo = {id: kernel.id, info: null};
    kernel.info.then(info => { if (window.__attnKernelInfo.id === kernel.id) window.__attnKernelInfo.info = info; });
    return false;
  }
  return seen.info !== null
    && canonical(panel.context.model.getMetadata('language_info')) === canonical(seen.info.language_info);
}"""


def wait_for_language_info(page, timeout_s: float = 60) -> None:
    """Wait until the kernel's language_info is in the open notebook (whatever it will do to it, it did)."""
    page.wait_for_function(_LANGUAGE_INFO_APPLIED_JS, timeout=timeout_s * 1000, polling=100)


def has_unsaved_changes(page) -> bool:
    """Does a tab show the "unsaved changes" dot (JupyterLab's ``jp-mod-dirty``)?"""
    return page.evaluate("() => document.querySelectorAll('.lm-TabBar-tab.jp-mod-dirty').length > 0")


def loaded_lab_extensions(page) -> list:
    """Names of the prebuilt lab extensions the page was served with."""
    return page.evaluate("""() => JSON.parse(document.getElementById('jupyter-config-data')
        .textContent).federated_extensions.map(e => e.name)""")


def run_all_cells(page, timeout_s: float = 180) -> None:
    """Run ▸ Run All Cells from the menu bar; wait for the kernel and the widget views."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()
    page.wait_for_function(_RUN_FINISHED_JS, timeout=timeout_s * 1000, polling=250)
    page.wait_for_function(_WIDGETS_SETTLED_JS, timeout=60_000, polling=250)


def code_cells(page) -> list:
    return [CodeCell(**cell) for cell in page.evaluate(_CODE_CELLS_JS, STDERR_MIME)]


def press_on_slider(page, slider_selector: str, key: str, times: int = 1) -> None:
    """Focus the slider's handle (as a Tab would) and press ``key`` on it."""
    handle = page.locator(f"{slider_selector} .noUi-handle").first
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(times):
        handle.press(key)


def validate(page, timeout_s: float = 180):
    """Click nbgrader's Validate button; return the result dialog's locator once shown."""
    toolbar = page.locator(".jp-NotebookPanel-toolbar")
    toolbar.get_by_role("button", name="Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog").filter(has=page.locator("#validation-message"))
    dialog.wait_for(timeout=timeout_s * 1000)
    return dialog


# --- explorer latency: key press / click -> the new figure decoded and painted ---------

# Capture-phase listeners stamp the start of each action; a MutationObserver on the
# figure's <img src> waits for the new bytes to decode and for the next frame to paint.
_LATENCY_PROBE_JS = """(sel) => {
  const img = document.querySelector(sel);
  const probe = window.__attnLatency = {start: null, done: [], tops: [], heights: []};
  const stamp = () => { probe.start = performance.now(); };
  document.addEventListener('keydown', stamp, true);
  document.addEventListener('pointerdown', stamp, true);
  new MutationObserver(() => {
    const start = probe.start;
    img.decode().catch(() => null).then(() => requestAnimationFrame(() => {
      probe.done.push(performance.now() - start);
      probe.tops.push(img.getBoundingClientRect().top);
    }));
  }).observe(img, {attributes: true, attributeFilter: ['src']});
}"""

_FIGURE_BOX_JS = """(sel) => { const img = document.querySelector(sel);
  return {natural: img.naturalWidth, shown: img.clientWidth, ratio: window.devicePixelRatio}; }"""

# Every element inside the box ends above the box's bottom edge (nothing clipped by a fixed height).
_CLIPPED_JS = """(sel) => { const box = document.querySelector(sel).getBoundingClientRect();
  return [...document.querySelectorAll(sel + ' *')].filter(e => e.children.length === 0)
    .some(e => e.getBoundingClientRect().bottom > box.bottom + 0.5); }"""


def clipped(page, selector: str) -> bool:
    """Does some innermost element of ``selector`` reach below the box's bottom edge?"""
    return page.evaluate(_CLIPPED_JS, selector)


def install_latency_probe(page, figure_selector: str) -> None:
    page.evaluate(_LATENCY_PROBE_JS, figure_selector)


def figure_box(page, figure_selector: str) -> dict:
    """The figure's PNG width, its shown CSS width and the page's devicePixelRatio."""
    return page.evaluate(_FIGURE_BOX_JS, figure_selector)


def explorer_latencies(page, root: str, moves: int = 10) -> dict:
    """Milliseconds per action on the explorer under ``root``: head_dim keys, scale clicks, seq_len keys.

    Each action waits for its figure before the next (a student watching, not a flood of
    events). Returns ``{"head_dim": [...], "scale": [...], "seq_len": [...], "tops": [...]}``,
    ``tops`` being the figure's top y after every action (a layout jump changes it).
    """
    install_latency_probe(page, f"{root} .attn-figure")
    head_dim = page.locator(f"{root} .attn-head-dim .noUi-handle").first
    seq_len = page.locator(f"{root} .widget-slider").filter(has_text="seq_len").locator(".noUi-handle").first
    buttons = page.locator(f"{root} .widget-toggle-button")
    return timed_moves(page, head_dim, buttons, seq_len, moves)


def extension_words(lang: str, table: str = "validation") -> dict:
    """The words the course's Lab extension says nbgrader's English in, in ``lang``: ``table`` "validation" for the
    Validate dialog, "assignmentList" for the Assignment List, each key read from ``texts.ts`` (the message id it says,
    ``lab.*``) and its words from coursekit's catalogue, as ``make translations`` writes them for the extension;
    nbgrader's own English (NBGRADER_WORDS, NBGRADER_LIST_WORDS) for the English edition."""
    import re

    from coursekit.language import WORDS

    texts = (pathlib.Path(__file__).resolve().parents[2] / "autograde" / "coursekit" / "labextension" / "src"
             / "texts.ts").read_text(encoding="utf-8")
    if lang == "en":
        english = {"validation": "NBGRADER_WORDS", "assignmentList": "NBGRADER_LIST_WORDS"}[table]
        block = texts.split(f"export const {english} = {{")[1].split("}")[0]
        return dict(re.findall(r"(\w+): '([^']*)'", block))
    block = texts.split(f"{table}: {{")[1].split("}")[0]
    return {key: WORDS.template(lang, msgid) for key, msgid in re.findall(r"(\w+): say\('([^']+)'\)", block)}


def validation_words(lang: str) -> dict:
    """The words of Validate's dialog in ``lang`` (:func:`extension_words`)."""
    return extension_words(lang, "validation")

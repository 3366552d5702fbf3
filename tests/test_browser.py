"""Does the student notebook work in a real JupyterLab, in a real Chromium?

Run all cells, widgets render and react to the keyboard, nbgrader's Validate button
answers — on the untouched notebook and on a copy with the solutions filled in.
Screenshots land in ``artefacts/browser/`` (ignored by git).
"""
import os
import re
import shutil
from dataclasses import dataclass, field
from typing import Callable

import nbformat
import pytest
from nbgrader import utils as nbgrader_utils

from lab_server import REPO, lab_server
import lab_page
from attnkit.sharpness import HEAD_DIMS

ARTEFACTS = REPO / "artefacts" / "browser"


@dataclass(frozen=True)
class Chapter:
    """What the test expects from one notebook: its file, its texts and its widgets."""

    name: str
    load: Callable[[], nbformat.NotebookNode]
    verify_source: str  # a snippet of the visible verify cell's code
    baseline: re.Pattern  # what that cell prints untouched ...
    all_pass: re.Pattern  # ... and with the solutions filled in
    solutions: dict = field(default_factory=dict)  # student function -> correct body


# CSS hooks of attnkit.widgets.sharpness_explorer().
EXPLORER, HEAD_DIM, READOUT, FIGURE = ".attn-explorer", ".attn-head-dim", ".attn-readout", ".attn-figure"


# --- the stand-in notebook --------------------------------------------------------
# Until the chapter lands, a small notebook of the same shape exercises the harness:
# an nbgrader solution cell with the lab's `pass` stub, a visible verify that prints the
# lab's result line, the real sharpness explorer, and a partial-credit grade cell.

_SOLUTION_SRC = '''def student_double(x, out):
    """Write 2 * x into out; return 0, or -1 when the shapes differ."""
    if out.shape != x.shape:
        return -1
    # 在这里写你的代码
    pass
    return 0'''

_VERIFY_SRC = '''import numpy as np

x, out = np.arange(3.0), np.zeros(3)
checks = [student_double(x, out) == 0, bool(np.array_equal(out, 2 * x))]
failed = checks.count(False)
print(f"结果: 全 PASS  ({len(checks)} 个断言)" if failed == 0
      else f"结果: {failed} 失败 / {len(checks) - failed} 通过")'''

_EXPLORER_SRC = '''from attnkit.widgets import sharpness_explorer

sharpness_explorer()'''

_GRADE_SRC = '''"""Check that student_double doubles in place."""
float(sum(checks) / len(checks))'''


def _nbgrader_cell(source: str, grade_id: str, **flags) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata.nbgrader = {"grade": False, "solution": False, "locked": False,
                              "task": False, "schema_version": 3, "grade_id": grade_id, **flags}
    if cell.metadata.nbgrader["locked"]:
        cell.metadata.nbgrader.checksum = nbgrader_utils.compute_checksum(cell)
    return cell


def stand_in_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                              "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Stand-in for the chapter"),
        _nbgrader_cell(_SOLUTION_SRC, "student_double", solution=True),
        _nbgrader_cell(_VERIFY_SRC, "verify", locked=True),
        nbformat.v4.new_code_cell(_EXPLORER_SRC),
        _nbgrader_cell(_GRADE_SRC, "test_double", grade=True, locked=True, points=1),
    ]
    return nb


STAND_IN = Chapter(
    name="stand_in.ipynb",
    load=stand_in_notebook,
    verify_source="checks = [student_double(x, out)",
    baseline=re.compile(r"结果: 1 失败 / 1 通过"),
    all_pass=re.compile(r"结果: 全 PASS {2}\(2 个断言\)"),
    solutions={"student_double": "out[...] = 2 * x"},
)


# --- filling in a solution --------------------------------------------------------

def fill_in_solution(nb, function: str, body: str) -> None:
    """Replace the ``pass`` stub of ``function``'s solution cell with ``body``."""
    for cell in nb.cells:
        is_solution = cell.metadata.get("nbgrader", {}).get("solution", False)
        if cell.cell_type == "code" and is_solution and f"def {function}(" in cell.source:
            lines = cell.source.split("\n")
            stub = next(i for i, line in enumerate(lines) if line.strip() == "pass")
            indent = lines[stub][: len(lines[stub]) - len(lines[stub].lstrip())]
            lines[stub:stub + 1] = [indent + line for line in body.split("\n")]
            cell.source = "\n".join(lines)
            return
    raise LookupError(f"no nbgrader solution cell defines {function}()")


def solved(nb, chapter: Chapter) -> nbformat.NotebookNode:
    """A copy with the code solutions filled in and every written answer cell answered."""
    nb = nbformat.from_dict(nb)
    for function, body in chapter.solutions.items():
        fill_in_solution(nb, function, body)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = "（浏览器测试写下的回答）"  # Validate counts an unchanged answer as missing
    return nb


# --- the chapter -----------------------------------------------------------------

_SOFTMAX_BODY = """shifted = inp - inp.max(axis=-1, keepdims=True)  # stable: the row max becomes 0
weights = np.exp(shifted)
out[...] = weights / weights.sum(axis=-1, keepdims=True)"""

CH04 = Chapter(
    name="ch04_attention.ipynb",
    load=lambda: nbformat.read(REPO / "notebooks" / "ch04_attention.ipynb", as_version=4),
    verify_source="verify.run_all(student_attention_scores",
    baseline=re.compile(r"结果: 11 失败 / 11 通过"),
    all_pass=re.compile(r"结果: 全 PASS {2}\(22 个断言\)"),
    solutions={
        "student_attention_scores": "out[...] = scale * (Q @ K.T)  # (T, S)",
        "student_apply_mask": "scores += mask",
        "student_softmax": _SOFTMAX_BODY,
    },
)


# --- fixtures ---------------------------------------------------------------------

CHAPTER = STAND_IN
SOLVED_NAME = "solved_" + CHAPTER.name


@pytest.fixture(scope="module")
def chromium():
    if not lab_page.CHROMIUM.exists():
        message = (f"{lab_page.CHROMIUM} missing: enable the browser test with "
                   "`sudo apt-get install chromium` (or run `make test` as root)")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return lab_page.CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium), args=lab_page.CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, chromium):
    """A server whose root holds throw-away copies: untouched and solved (only with a browser)."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "notebooks"
    root.mkdir()
    notebook = CHAPTER.load()
    nbformat.write(notebook, root / CHAPTER.name)
    nbformat.write(solved(notebook, CHAPTER), root / SOLVED_NAME)
    shutil.rmtree(ARTEFACTS, ignore_errors=True)
    ARTEFACTS.mkdir(parents=True)
    try:
        with lab_server(base) as server:
            yield server
    finally:
        shutil.copy(base / "jupyterlab.log", ARTEFACTS / "jupyterlab.log")


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport=lab_page.VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        yield page
    finally:
        try:  # the page as the test left it: the first thing to look at after a failure
            page.screenshot(path=ARTEFACTS / f"{request.node.name}-last.png")
        finally:
            context.close()


def shot(page, name: str, locator=None) -> None:
    if locator is not None:
        locator.scroll_into_view_if_needed()
    page.screenshot(path=ARTEFACTS / f"{name}.png")


# --- the tests --------------------------------------------------------------------

def assert_ran_cleanly(page) -> list:
    cells = [c for c in lab_page.code_cells(page) if c.source.strip()]
    assert cells, "no code cells on the page"
    not_run = [c.source.split("\n")[0] for c in cells if not c.executed]
    assert not not_run, f"cells not executed: {not_run}"
    errors = [(c.source.split("\n")[0], c.stderr) for c in cells if c.stderr]
    assert not errors, f"error/stderr output: {errors}"
    broken = [c.source.split("\n")[0] for c in cells if "Error displaying widget" in c.output]
    assert not broken, f"'Error displaying widget' in: {broken}"
    return cells


def verify_output(page, chapter: Chapter):
    """The visible verify cell (found by its code) and the text it printed."""
    cell = page.locator(".jp-CodeCell").filter(has_text=chapter.verify_source)
    assert cell.count() == 1, f"expected one cell containing {chapter.verify_source!r}"
    return cell, cell.locator(".jp-OutputArea").inner_text()


def explorer_state(page) -> tuple:
    """What the explorer shows: head_dim, the readout text and the figure's image source."""
    return (int(page.locator(f"{EXPLORER} {HEAD_DIM} .widget-readout").inner_text()),
            page.locator(f"{EXPLORER} {READOUT}").inner_text(),
            page.locator(f"{EXPLORER} {FIGURE}").get_attribute("src"))


@pytest.mark.timeout(240)
def test_untouched_notebook_runs_shows_baseline_and_live_explorer(lab, page):
    """Does the untouched notebook run cleanly, print the baseline, and react to the keyboard?"""
    lab_page.open_notebook(page, lab.notebook_url(CHAPTER.name))
    extensions = lab_page.loaded_lab_extensions(page)
    assert {"@jupyter/nbgrader", "@jupyter-widgets/jupyterlab-manager"} <= set(extensions)
    lab_page.run_all_cells(page)
    assert_ran_cleanly(page)
    cell, printed = verify_output(page, CHAPTER)
    assert CHAPTER.baseline.search(printed), printed
    shot(page, "baseline-verify", cell)

    explorer = page.locator(EXPLORER)
    assert explorer.count() == 1, "the sharpness explorer did not render"
    assert explorer.locator(".widget-slider .noUi-handle").count() >= 3, "explorer sliders missing"
    before = explorer_state(page)
    shot(page, "baseline-explorer-before", explorer)
    lab_page.press_on_slider(page, f"{EXPLORER} {HEAD_DIM}", "ArrowRight", times=2)
    expected = HEAD_DIMS[HEAD_DIMS.index(before[0]) + 2]  # two log steps up
    page.wait_for_function(  # each key press is one update; wait for the second
        "([sel, text]) => document.querySelector(sel).innerText.includes(text)",
        arg=[f"{EXPLORER} {READOUT}", f"head_dim = {expected}"])
    head_dim, _, figure = explorer_state(page)
    assert head_dim == expected, (before[0], head_dim)
    assert figure != before[2], "the explorer's figure did not change"
    shot(page, "baseline-explorer-after", explorer)

    dialog = lab_page.validate(page)
    shot(page, "baseline-validate")
    assert dialog.locator(".jp-Dialog-header").inner_text().strip() == "Validation Results"
    assert dialog.locator("#validation-message.validation-failed").count() == 1
    assert "The following cell failed" in dialog.inner_text()


@pytest.mark.timeout(240)
def test_solved_notebook_prints_all_pass_and_validates(lab, page):
    """With correct solutions filled in, does verify print 全 PASS and Validate succeed?"""
    lab_page.open_notebook(page, lab.notebook_url(SOLVED_NAME))
    lab_page.run_all_cells(page)
    assert_ran_cleanly(page)
    cell, printed = verify_output(page, CHAPTER)
    assert CHAPTER.all_pass.search(printed), printed
    shot(page, "solved-verify", cell)

    dialog = lab_page.validate(page)
    shot(page, "solved-validate")
    assert dialog.locator("#validation-message.validation-success").count() == 1
    assert "Success! Your notebook passes all the tests." in dialog.inner_text()

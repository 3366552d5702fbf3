"""Does the student notebook work in a real JupyterLab, in a real Chromium, in both editions?

Run all cells, the sharpness explorer renders and follows the keyboard, nbgrader's
Validate button answers — on temporary copies of ``notebooks/ch04_attention.ipynb`` and
``notebooks/en/ch04_attention.ipynb`` and on copies with correct solutions filled in.
Screenshots land in ``artefacts/browser/`` (ignored by git); ``jupyterlab.log`` there is the server's log.
"""
import json
import re
import shutil
import sys

import nbformat
import pytest

from attnkit import sharpness
from attnkit.edition import stubs
from attnkit.language import PSEUDO
from attnkit.sharpness import HEAD_DIMS
from support import explorer_page, lab_page
from support.axe_audit import LAB_CONTENT, assert_accessible
from support.lab_page import validation_words
from support.editions import EDITIONS, CJK, student_path
from support.editions import master as edition_master
from support.lab_server import REPO, lab_server
from support.pseudo import Known, left_over

# benchmarks/bench_explorer_browser.py's JupyterLab column is taken here, on the walk's notebook (its smoke in make
# test; its static column: test_book.py)
sys.path.insert(0, str(REPO / "benchmarks"))
import bench_explorer_browser  # noqa: E402

ARTEFACTS = REPO / "artefacts" / "browser"
NOTEBOOK = REPO / "notebooks" / "ch04_attention.ipynb"
# the copies in the server's folder, by edition: untouched and solved
COPIES = {lang: (f"{lang}_{NOTEBOOK.name}", f"solved_{lang}_{NOTEBOOK.name}") for lang in EDITIONS}
PSEUDO_COPY = f"{PSEUDO}_{NOTEBOOK.name}"  # the pseudo-locale's edition, as far as its first test cell

VERIFY_SOURCE = "verify.run_all(student_attention_scores"  # the visible verify cell's code
BASELINE = {"zh": re.compile(r"结果: 11 失败 / 11 通过"), "en": re.compile(r"Result: 11 failed / 11 passed")}
ALL_PASS = {"zh": re.compile(r"结果: 全 PASS {2}\(22 个断言\)"), "en": re.compile(r"Result: all PASS {2}\(22 assertions\)")}
ANSWER = {"zh": "（浏览器测试写下的回答）", "en": "(an answer the browser test wrote)"}

# CSS hooks of attnkit.widgets.sharpness_explorer() (attnkit/assets/explorer.js).
EXPLORER, HEAD_DIM, READOUT, FIGURE = ".attn-explorer", ".attn-head-dim", ".attn-readout", ".attn-figure"

# Correct bodies for the student functions' `pass` stubs, written independently of attnkit.
SOLUTIONS = {
    "student_attention_scores": "out[...] = scale * (Q @ K.T)  # (T, S)",
    "student_apply_mask": "scores += mask",
    "student_softmax": """shifted = inp - inp.max(axis=-1, keepdims=True)  # stable: the row max becomes 0
weights = np.exp(shifted)
out[...] = weights / weights.sum(axis=-1, keepdims=True)""",
}


# --- a solved copy ----------------------------------------------------------------

def fill_in_solution(nb, function: str, body: str) -> None:
    """Replace the ``pass`` stub of ``function``'s nbgrader solution cell with ``body``."""
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


def solved(nb, lang: str) -> nbformat.NotebookNode:
    """A copy with the code solutions filled in and every written answer cell answered."""
    nb = nbformat.from_dict(nb)
    for function, body in SOLUTIONS.items():
        fill_in_solution(nb, function, body)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = ANSWER[lang]  # Validate counts an unchanged answer as missing
    return nb


def pseudo_release() -> nbformat.NotebookNode:
    """The pseudo-locale's edition as Validate meets it, as far as TEST 1 (Validate runs the whole notebook): the
    master in ``qps`` (the chapter's catalogue, the English's made pseudo), its solutions replaced by the edition's
    stubs and its hidden tests cleared by nbgrader's own preprocessors, as a release does; the set-up cell, the first
    function under its heading and its test cell."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    nb = edition_master(PSEUDO)
    stub = stubs(PSEUDO)
    nb, _ = ClearSolutions(code_stub={"python": stub["code"]}, text_stub=stub["text"]).preprocess(nb, {})
    nb, _ = ClearHiddenTests().preprocess(nb, {})
    at = {cell.metadata.get("nbgrader", {}).get("grade_id"): i for i, cell in enumerate(nb.cells)}
    first = at["student_attention_scores"]
    nb.cells = [nb.cells[at["setup_imports"]], *nb.cells[first - 1:first + 1], nb.cells[at["test1_scores"]]]
    return nb


def graded_cells(nb) -> int:
    """The cells that count towards the score (the practice exercises' cells, of 0 points, are optional: an untried
    one does not fail Validate)."""
    return sum(bool(cell.metadata.get("nbgrader", {}).get("grade")) and cell.metadata["nbgrader"].get("points", 0) > 0
               for cell in nb.cells)


# --- fixtures ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def chromium():
    return lab_page.require_chromium()


@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory):
    # Chromium's crash-report settings and caches go to a temp dir, not the user's ~/.config.
    with lab_page.chromium_browser(tmp_path_factory.mktemp("chromium-home")) as browser:
        yield browser


@pytest.fixture(scope="module")
def lab(tmp_path_factory, chromium):
    """A server whose root holds throw-away copies: untouched and solved (only with a browser)."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "notebooks"
    root.mkdir()
    for lang, (untouched, solved_copy) in COPIES.items():
        shutil.copy(student_path(lang), root / untouched)
        nbformat.write(solved(nbformat.read(student_path(lang), as_version=4), lang), root / solved_copy)
    nbformat.write(pseudo_release(), root / PSEUDO_COPY)
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

def assert_ran_cleanly(page) -> None:
    """Every non-empty code cell ran; no traceback, stderr or broken widget view on the page."""
    cells = [c for c in lab_page.code_cells(page) if c.source.strip()]
    assert cells, "no code cells on the page"
    errors = [(c.source.split("\n")[0], c.stderr) for c in cells if c.stderr]
    assert not errors, f"error/stderr output: {errors}"  # first: it explains cells not run
    not_run = [c.source.split("\n")[0] for c in cells if not c.executed]
    assert not not_run, f"cells not executed: {not_run}"
    broken = [c.source.split("\n")[0] for c in cells if "Error displaying widget" in c.output]
    assert not broken, f"'Error displaying widget' in: {broken}"


def verify_output(page):
    """The visible verify cell (found by its code) and the text it printed."""
    cell = page.locator(".jp-CodeCell").filter(has_text=VERIFY_SOURCE)
    assert cell.count() == 1, f"expected one cell containing {VERIFY_SOURCE!r}"
    return cell, cell.locator(".jp-OutputArea").inner_text()


def explorer_state(page, settle: bool = False) -> tuple:
    """What the explorer shows: the head_dim slider's value and how many figures it has drawn
    (with ``settle``, once it has stopped redrawing on its own)."""
    drawn = explorer_page.settled_frames(page) if settle else explorer_page.frames(page)
    return (int(page.locator(f"{EXPLORER} {HEAD_DIM} + output").inner_text()), drawn)


def assert_explorer_steady_and_sharp(page) -> None:
    """Keys and clicks on head_dim, scale and seq_len: each paints a new figure, which never moves or stretches.

    The latencies (input → new figure painted), taken by benchmarks/bench_explorer_browser.py's own column, go to
    artefacts/browser/explorer-latency.json; the bench reports them with more moves.
    """
    result = bench_explorer_browser.column(page, moves=4)
    (ARTEFACTS / "explorer-latency.json").write_text(json.dumps(result, indent=1))
    head_dim = page.locator(f"{EXPLORER} {HEAD_DIM}")
    head_dim.focus()
    for key in ("End", "Home"):  # head_dim 1024 and 1: the longest and shortest readouts
        result["tops"].append(explorer_page.timed_action(page, lambda: head_dim.press(key))[1])
        assert not lab_page.clipped(page, f"{EXPLORER} {READOUT}"), "the readout's fixed box cuts its text"
    assert [len(result[k]) for k in ("head_dim", "scale", "seq_len")] == [4, 4, 4]
    assert len(set(result["tops"])) == 1, f"the figure moved: tops={result['tops']}"  # no layout jump
    box = explorer_page.canvas_box(page)
    assert box["backing"] == box["shown"] * box["ratio"], f"figure not at the screen's pixels: {box}"


def assert_explorer_follows_keyboard(page, lang: str) -> None:
    """Two ArrowRight presses on head_dim: slider, readout and figure follow, with attnkit's numbers and words."""
    explorer = page.locator(EXPLORER)
    assert explorer.count() == 1, "the sharpness explorer did not render"
    assert explorer.locator("input[type=range]").count() == 2, "explorer sliders missing"
    # scrolled to first: coming into view can resize the figure, a redraw that is not a key press's
    page.locator(f"{EXPLORER} {HEAD_DIM}").first.scroll_into_view_if_needed()
    head_dim, drawn = explorer_state(page, settle=True)
    shot(page, f"baseline-explorer-before-{lang}", explorer)
    explorer_page.press(page, f"{EXPLORER} {HEAD_DIM}", "ArrowRight", times=2)
    expected = HEAD_DIMS[HEAD_DIMS.index(head_dim) + 2]  # two log steps up
    shown, after = explorer_state(page)
    # each press drew its figure; on a loaded machine Lab may add a redraw of its own (the kernel's echo
    # of a setting arriving after the next press, a late resize), never a figure of an older setting
    assert shown == expected and after >= drawn + 2, f"a figure per key press: {(shown, after)} after {drawn}"
    assert explorer_state(page, settle=True)[0] == expected, "the explorer went back to an older head_dim"
    assert "".join(explorer_page.readout(page)) == sharpness.summary(sharpness.measure(expected, scaled=False), lang)
    assert explorer.locator(".attn-causal").locator("..").inner_text().strip() == sharpness.words(lang)["causal"]
    shot(page, f"baseline-explorer-after-{lang}", explorer)


def assert_explorer_works_by_keyboard_alone(page, lang: str) -> None:
    """Tab into the explorer and work every control with keys (support/explorer_page.py): each reached in order,
    labelled and ringed, and the live region says, once the moves settle, what attnkit says of the new setting."""
    before = explorer_page.state(page)
    walk = explorer_page.keyboard_walk(page)
    m = sharpness.measure(**explorer_page.walked(before, HEAD_DIMS, sharpness.MAX_SEQ_LEN), seed=0)
    explorer_page.assert_walked(walk, sharpness.announcement(m, lang))
    assert "".join(explorer_page.readout(page)) == sharpness.summary(m, lang)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", EDITIONS)
def test_untouched_notebook_runs_shows_baseline_and_live_explorer(lab, page, lang):
    """Does the untouched notebook of each edition run cleanly, print the baseline in its language, pass the audit,
    react to the keyboard (alone, too), and fail Validate on every graded cell?"""
    lab_page.open_notebook(page, lab.notebook_url(COPIES[lang][0]))
    lab_page.wait_for_language_info(page)  # it lands a moment after the kernel is idle, and may dirty the notebook
    assert not lab_page.has_unsaved_changes(page), "the notebook shows unsaved changes right after opening"
    extensions = lab_page.loaded_lab_extensions(page)
    assert {"@jupyter/nbgrader", "@jupyter-widgets/jupyterlab-manager", "anywidget"} <= set(extensions)
    lab_page.run_all_cells(page)
    assert_ran_cleanly(page)
    cell, printed = verify_output(page)
    assert BASELINE[lang].search(printed), printed
    assert bool(CJK.search(printed)) == (lang == "zh"), printed
    shot(page, f"baseline-verify-{lang}", cell)
    # after Run All: our prose and outputs (figures, explorer, verify's lines, the diagnosis) against Lab's chrome
    assert_accessible(page, f"lab-chapter-{lang}", ours=LAB_CONTENT)

    assert_explorer_follows_keyboard(page, lang)
    assert_explorer_steady_and_sharp(page)
    assert_explorer_works_by_keyboard_alone(page, lang)

    dialog = lab_page.validate(page)
    shot(page, f"baseline-validate-{lang}")
    assert_accessible(page, f"lab-validate-{lang}", ours=LAB_CONTENT, within=".jp-Dialog")  # nbgrader's dialog
    words = validation_words(lang)  # nbgrader's frame, said in the edition's language by the course's extension
    assert dialog.locator(".jp-Dialog-header").inner_text().strip() == words["title"]
    assert dialog.locator("#validation-message.validation-failed").count() == 1
    failed = dialog.locator("#validation-message p", has_text=words["failed"])
    assert failed.count() == graded_cells(nbformat.read(student_path(lang), as_version=4))  # all of them
    if lang == "zh":
        assert "The following cell" not in dialog.inner_text() and "Validation Results" not in dialog.inner_text()


def assert_pseudo_validate_walked(page, dialog) -> None:
    """Validate on a notebook of the pseudo-locale's edition, opened beside the one on screen: nbgrader's dialog as the
    course's extension says it (its title, the failing cell by its chapter name, the reminder) holds no word outside
    a message of the catalogue but code (the cell nbgrader shows, a function's name) and the lab's labels? Its button
    is JupyterLab's own (its language packs'), left out."""
    dialog.locator(".jp-mod-accept").click()
    dialog.wait_for(state="detached")
    page.evaluate("async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }", PSEUDO_COPY)
    current = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar")
    current.get_by_role("button", name="Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog").filter(has=page.locator("#validation-message"))
    dialog.wait_for(timeout=120_000)
    words = validation_words(PSEUDO)
    assert dialog.locator(".jp-Dialog-header").inner_text().strip() == words["title"]
    assert dialog.locator("#validation-message p", has_text=words["failed"]).count() == 1
    code = Known.of(*(cell.source for cell in pseudo_release().cells if cell.cell_type == "code"))
    said = dialog.locator("#validation-message").inner_text()
    assert left_over(said, Known(code | {"TEST", "PASS", "FAIL"})) == [], said


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", EDITIONS)
def test_solved_notebook_prints_all_pass_and_validates(lab, page, lang):
    """With correct solutions filled in, does verify print all PASS in the edition's language and Validate succeed?
    In the English one's Lab, the pseudo-locale's edition is validated too (:func:`assert_pseudo_validate_walked`)."""
    lab_page.open_notebook(page, lab.notebook_url(COPIES[lang][1]))
    lab_page.run_all_cells(page)
    assert_ran_cleanly(page)
    cell, printed = verify_output(page)
    assert ALL_PASS[lang].search(printed), printed
    shot(page, f"solved-verify-{lang}", cell)

    dialog = lab_page.validate(page)
    shot(page, f"solved-validate-{lang}")
    assert dialog.locator("#validation-message.validation-success").count() == 1
    assert validation_words(lang)["success"] in dialog.inner_text()
    if lang == "en":  # this Lab, already loaded, validates the pseudo-locale's edition too (a page load saved)
        assert_pseudo_validate_walked(page, dialog)

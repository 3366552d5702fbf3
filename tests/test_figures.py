"""Do the chapter's demo figures draw live for a student, and cost almost nothing under nbgrader?"""
import os
import pathlib
import subprocess
import sys
import textwrap

import matplotlib.pyplot as plt
import nbformat
import numpy as np
import pytest
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from IPython.display import Image
from ipywidgets.widgets import widget as widget_module
from nbclient import NotebookClient

import attnkit
from attnkit import figures, plotting
from attnkit.widgets import SharpnessExplorer, first_frame_png

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
NOTEBOOK = pathlib.Path(__file__).resolve().parents[1] / "notebooks" / "ch04_attention.ipynb"
SCORES = np.random.default_rng(5).normal(size=(4, 4)).astype(np.float32)  # (T, T) as in §4.7
MASK = attnkit.create_causal_mask(4)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def shown(monkeypatch):
    """What figures.display() was given (the notebook would show it)."""
    seen = []
    monkeypatch.setattr(figures, "display", seen.append)
    return seen


@pytest.fixture
def grading(monkeypatch, tmp_path):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def live(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)


def test_live_figures_are_the_plotting_helpers(live, shown):
    """For a student, do the calls draw pyplot figures and return plotting's artists?"""
    assert isinstance(figures.pipeline(SCORES, MASK), plotting.Pipeline)
    assert isinstance(figures.wrong_order(SCORES, MASK), plotting.WrongOrder)
    assert len(figures.heatmap_row({"a": np.eye(2), "b": np.eye(2)})) == 2
    assert len(figures.head_grid(np.stack([np.eye(3)] * 2))) == 2
    assert len(plt.get_fignums()) == 4 and shown == []


def test_under_grading_a_png_drawn_once(grading, shown, monkeypatch):
    """Under autograde, is a PNG shown, no figure left open, and the second student's copy read from disk?"""
    assert figures.pipeline(SCORES, MASK) is None
    assert plt.get_fignums() == []
    first = shown[0].data
    assert isinstance(shown[0], Image) and first.startswith(b"\x89PNG")
    monkeypatch.setattr(plotting, "pipeline", lambda **_: pytest.fail("drew again on a warm cache"))
    figures.pipeline(SCORES.copy(), MASK.copy())
    assert shown[1].data == first


def test_different_inputs_are_different_pictures(grading, shown):
    """Does a student who edits the demo's scores see their own figure, not the cached one?"""
    figures.pipeline(SCORES, MASK)
    figures.pipeline(SCORES * 2, MASK)
    assert shown[0].data != shown[1].data


def test_explorer_under_grading_is_its_first_frame(grading):
    """Under grading, is the explorer an Image of its first frame, with no widget created?"""
    count = len(widget_module._instances)
    result = figures.sharpness_explorer(head_dim=256, causal=True)
    assert isinstance(result, Image)
    assert result.data == first_frame_png(head_dim=256, causal=True)
    assert len(widget_module._instances) == count


def test_explorer_live_is_the_widget(live):
    """For a student, is it the live explorer?"""
    assert isinstance(figures.sharpness_explorer(), SharpnessExplorer)


WARM_RUN = textwrap.dedent("""
    import sys
    import numpy as np
    import attnkit
    from attnkit import figures
    scores = np.random.default_rng(5).normal(size=(4, 4)).astype(np.float32)
    mask = attnkit.create_causal_mask(4)
    figures.sharpness_explorer()
    figures.pipeline(scores, mask)
    figures.wrong_order(scores, mask)
    figures.heatmap_row({"a": np.eye(2)}, vmin=0, vmax=1)
    figures.head_grid(np.stack([np.eye(3)] * 2), tokens=list("abc"), mask=attnkit.create_causal_mask(3))
    from attnkit import lab
    from attnkit.diagnose_plot import show_diagnosis
    show_diagnosis(*lab.STUBS)  # the diagnosis cell right after the visible verify
    print(sorted(m for m in ("matplotlib", "ipywidgets") if m in sys.modules))
""")


def test_a_warm_cache_needs_no_matplotlib(tmp_path):
    """On the second graded notebook, do the demos and the diagnosis run without importing matplotlib or ipywidgets?"""
    env = dict(os.environ, NBGRADER_EXECUTION="autograde", ATTNKIT_CACHE_DIR=str(tmp_path / "cache"),
               MPLBACKEND="Agg")
    runs = [subprocess.run([sys.executable, "-c", WARM_RUN], env=env, capture_output=True, text=True,
                           check=True).stdout.strip().splitlines()[-1] for _ in range(2)]
    assert "'matplotlib'" in runs[0]  # cold: drawn once (the control: the check can see an import)
    assert runs[1] == "[]"  # warm: read back


def run_in_kernel(source: str) -> list:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    return nb.cells[0].outputs


@pytest.mark.integration  # a real kernel: `make test` only
@pytest.mark.parametrize("nbgrader, mime", [("validate", "image/png"), (None, WIDGET_MIME)])
def test_explorer_in_a_real_kernel(monkeypatch, tmp_path, nbgrader, mime):
    """In a kernel (as validate runs it, or as a student does), is the output right and stderr empty?"""
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))
    if nbgrader:
        monkeypatch.setenv("NBGRADER_EXECUTION", nbgrader)
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    outputs = run_in_kernel("from attnkit.figures import sharpness_explorer\nsharpness_explorer()")
    assert [o.output_type for o in outputs] == ["execute_result"]
    assert mime in outputs[0].data


def graded_outputs(monkeypatch, tmp_path, mode) -> dict:
    """Run the student notebook; return the text every nbgrader-tracked cell printed, by cell id."""
    if mode:
        monkeypatch.setenv("NBGRADER_EXECUTION", mode)
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    nb, _ = CoalesceStreamsPreprocessor(enabled=True).preprocess(nb, {})  # where a stream splits is chance
    return {c.id: [o.get("text", o.get("data", {}).get("text/plain")) for o in c.outputs]
            for c in nb.cells if c.cell_type == "code" and "nbgrader" in c.metadata}


@pytest.mark.integration  # two real kernels running the chapter: `make test` only
def test_grading_path_changes_no_graded_output(monkeypatch, tmp_path):
    """Under autograde, does every nbgrader cell (tests, verify) print exactly what it prints for the student?"""
    live = graded_outputs(monkeypatch, tmp_path, None)
    graded = graded_outputs(monkeypatch, tmp_path, "autograde")
    assert {"test1", "test2", "test3", "test4"} <= set(graded)
    assert graded == live

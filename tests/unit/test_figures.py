"""Do the chapter's demo figures draw live for a student, and cost almost nothing under nbgrader?"""
import os
import subprocess
import sys
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pytest
from ipywidgets.widgets import widget as widget_module

import attnkit
from attnkit import describe, figures, language, plotting, sharpness
from attnkit.widgets import SharpnessExplorer, first_frame_png

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
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


def test_live_figures_are_the_plotting_helpers_shown_with_their_text(live, shown):
    """For a student, do the calls draw plotting's figures, return its artists, and show each picture once, with the
    text alternative of its data (no pyplot figure left to be shown again without it)?"""
    assert isinstance(figures.pipeline(SCORES, MASK), plotting.Pipeline)
    assert isinstance(figures.wrong_order(SCORES, MASK), plotting.WrongOrder)
    assert len(figures.heatmap_row({"a": np.eye(2), "b": np.eye(2)})) == 2
    assert len(figures.head_grid(np.stack([np.eye(3)] * 2))) == 2
    assert plt.get_fignums() == [] and len(shown) == 4
    assert all(s.png.startswith(b"\x89PNG") for s in shown)
    assert shown[0].description == describe.figure("pipeline", {"scores": SCORES, "mask": MASK, "tokens": None})
    bundle = shown[0]._repr_mimebundle_()
    assert bundle["text/plain"] == shown[0].description.text and 'alt="' in bundle["text/html"]


def test_under_grading_a_png_drawn_once(grading, shown, monkeypatch):
    """Under autograde, is a PNG shown with its text alternative, no figure left open, and the second student's copy
    read from disk?"""
    assert figures.pipeline(SCORES, MASK) is None
    assert plt.get_fignums() == []
    first = shown[0].png
    assert isinstance(shown[0], figures.Described) and first.startswith(b"\x89PNG")
    assert shown[0].description == describe.figure("pipeline", {"scores": SCORES, "mask": MASK, "tokens": None})
    monkeypatch.setattr(plotting, "pipeline", lambda **_: pytest.fail("drew again on a warm cache"))
    figures.pipeline(SCORES.copy(), MASK.copy())
    assert shown[1].png == first


def test_under_validate_is_nothing_drawn_shown_or_cached(monkeypatch, tmp_path, shown):
    """Validate keeps no output: no figure, no PNG shown, no cache entry, the explorer no image (the first Validate
    of a student's session drew five into an empty cache)?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(plotting, "pipeline", lambda **_: pytest.fail("drew under Validate"))
    assert figures.pipeline(SCORES, MASK) is None and figures.head_grid(np.stack([np.eye(3)] * 2)) is None
    assert figures.sharpness_explorer() is None
    assert shown == [] and plt.get_fignums() == [] and not (tmp_path / "cache").exists()


def test_under_grading_the_english_edition_gets_its_own_picture(grading, shown):
    """The English edition's PNG is drawn in English, not read from the Chinese one's cache?"""
    figures.pipeline(SCORES, MASK)
    with language.using("en"):
        figures.pipeline(SCORES, MASK)
    figures.pipeline(SCORES, MASK, lang="en")
    zh, en, en_again = (image.png for image in shown)
    assert zh != en and en == en_again
    assert shown[0].description.text != shown[1].description.text == shown[2].description.text


def test_different_inputs_are_different_pictures(grading, shown):
    """Does a student who edits the demo's scores see their own figure, not the cached one?"""
    figures.pipeline(SCORES, MASK)
    figures.pipeline(SCORES * 2, MASK)
    assert shown[0].png != shown[1].png and shown[0].description != shown[1].description


def test_explorer_under_grading_is_its_first_frame(grading):
    """Under grading, is the explorer its first frame with its readout and rows in words, with no widget created?"""
    count = len(widget_module._instances)
    result = figures.sharpness_explorer(head_dim=256, causal=True)
    assert isinstance(result, figures.Described)
    assert result.png == first_frame_png(head_dim=256, causal=True)
    m = sharpness.measure(256, scaled=False, causal=True)
    assert result.description == describe.explorer(m, sharpness.summary(m))
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

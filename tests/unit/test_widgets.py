"""Does the sharpness explorer redraw in place when a slider moves (grading path: test_figures.py)?"""
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnkit import sharpness
from attnkit.widgets import READOUT_HEIGHT, SharpnessExplorer, first_frame_png, readout_html, sharpness_explorer

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def explorer():
    return sharpness_explorer()


def snapshot(ex: SharpnessExplorer) -> dict:
    return {
        "png": bytes(ex.image.value),
        "readout": ex.readout.value,
        "weights": np.ma.getdata(ex.figure.weights.image.get_array()).copy(),
        "point": (list(ex.figure.point.get_xdata()), list(ex.figure.point.get_ydata())),
    }


def test_head_dim_slider_redraws_the_same_figure(explorer):
    """Setting head_dim to 512: do the image, readout, weights and marker change, in the same figure?"""
    figure, before = explorer.figure.figure, snapshot(explorer)
    explorer.head_dim.value = 512
    after = snapshot(explorer)
    m = sharpness.measure(512, scaled=False)
    assert explorer.figure.figure is figure and plt.get_fignums() == []
    assert after["png"] != before["png"] and after["png"].startswith(b"\x89PNG")
    assert after["readout"] == readout_html(m) != before["readout"]
    np.testing.assert_allclose(after["weights"], m.weights)
    assert after["point"] == ([512], [m.mean_entropy])


def test_scaling_toggle_moves_the_marker_to_the_scaled_curve(explorer):
    """Switching to 1/sqrt(head_dim), does the marker jump to the scaled curve's value?"""
    explorer.scaling.value = True
    scaled = sharpness.curve(scaled=True, seq_len=8, seed=0)
    index = list(scaled.head_dims).index(64)
    assert explorer.figure.point.get_ydata()[0] == scaled.mean_entropy[index]
    assert explorer.figure.point.get_color() == "tab:blue"
    assert "× 1/√64" in explorer.readout.value


def test_seq_len_seed_and_causal_recompute(explorer):
    """Do seq_len, seed and the causal toggle each change what is drawn?"""
    explorer.seq_len.value = 16
    assert explorer.figure.weights.image.get_array().shape == (16, 16)
    np.testing.assert_allclose(explorer.figure.lines[False].get_ydata(),
                               sharpness.curve(scaled=False, seq_len=16, seed=0).mean_entropy)
    before = snapshot(explorer)
    explorer.seed.value = 7
    assert not np.allclose(snapshot(explorer)["weights"], before["weights"])
    explorer.causal.value = True
    assert len(explorer.figure.weights.masked.get_paths()) == 16 * 15 // 2


def test_controls_have_stable_hooks(explorer):
    """Can a test or a browser find the head_dim slider (1…1024, log steps), the readout and the figure?"""
    assert explorer.head_dim.options == (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    assert explorer.head_dim.description == "head_dim"
    assert [o for o, _ in explorer.scaling.options] == ["不缩放", "× 1/√head_dim"]
    assert explorer.widget._dom_classes == ("attn-explorer",)
    assert explorer.head_dim._dom_classes == ("attn-head-dim",)
    assert explorer.readout._dom_classes == ("attn-readout",)
    assert explorer.image._dom_classes == ("attn-figure",)
    assert "head_dim = 64（不缩放）" in explorer.readout.value


def test_displays_as_the_widget(explorer):
    """Shown as a cell's value, does the explorer render as its root widget?"""
    bundle = explorer._repr_mimebundle_()
    assert bundle[WIDGET_MIME]["model_id"] == explorer.widget.model_id


def test_checkbox_and_labels_are_chinese(explorer):
    """Are the controls' words Chinese (identifiers such as head_dim and seq_len may stay)?"""
    assert explorer.causal.description == "因果掩码"
    labels = [c.value for c in explorer.widget.children[0].children if hasattr(c, "value") and isinstance(c.value, str)]
    assert "缩放" in labels


def test_first_frame_is_a_picture_of_the_same_size(explorer):
    """Is first_frame_png() a PNG as large as the live explorer's (its title is tested with the figure)?"""
    import io

    from PIL import Image as PILImage
    sizes = [PILImage.open(io.BytesIO(data)).size for data in (first_frame_png(), bytes(explorer.image.value))]
    assert sizes[0] == sizes[1]


def test_readout_is_two_unwrapped_lines_in_a_fixed_box(explorer):
    """Is the readout the summary's two clauses, each kept on one line, in a box of fixed height?"""
    m = sharpness.measure(1024, scaled=True)
    html = readout_html(m)
    assert html.count("<div") == 2 and html.count("white-space: nowrap") == 2
    text = html.replace("</div>", "").split(">")
    assert "".join(part.split("<")[0] for part in text) == sharpness.summary(m)
    assert explorer.readout.layout.height == READOUT_HEIGHT and explorer.readout.layout.overflow == "hidden"


def test_figure_is_shown_at_its_own_width(explorer):
    """Is the image widget as wide (CSS px) as the PNG, so the browser does not stretch it?"""
    import io

    from PIL import Image as PILImage
    width = PILImage.open(io.BytesIO(bytes(explorer.image.value))).width
    assert explorer.image.layout.width == f"{width}px" and explorer.image.layout.max_width == "100%"
    sharp = sharpness_explorer(pixel_ratio=2)
    assert PILImage.open(io.BytesIO(bytes(sharp.image.value))).width == 2 * width
    assert sharp.image.layout.width == f"{width}px"

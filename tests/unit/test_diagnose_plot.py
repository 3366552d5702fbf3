"""Does the |student − reference| heatmap show where the first deviating stage went wrong?"""
import html

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnkit import describe, deviation, diagnose_plot, figures, lab
from attnkit.diagnose import Finding, diagnose, first_deviation
from attnkit.diagnose_plot import plot_deviation, plot_first_deviation, show_diagnosis
from attnkit.errors import ShapeError


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _finding(student, reference, bug="softmax_wrong_values"):
    messages = {"zh": "现象：…\n可能原因：没有除以行和\n检查：…", "en": "Seen: …\nLikely cause: no division by the row's sum\nCheck: …"}
    return Finding("softmax", bug, messages, "softmax/rect", np.asarray(student), np.asarray(reference))


def test_image_is_the_absolute_gap_with_values_written_in():
    """Is the image |student − reference|, with one value label per cell of a small matrix?"""
    fig, ax = plt.subplots()
    image = plot_deviation(_finding([[0.5, 0.2], [0.1, 0.9]], [[0.5, 0.5], [0.3, 0.9]]), ax=ax)
    np.testing.assert_allclose(image.get_array(), [[0.0, 0.3], [0.2, 0.0]])
    assert [t.get_text() for t in ax.texts] == ["0", "0.3", "0.2", "0"]
    assert ax.get_title().split("\n") == ["|你的结果 − 参考结果|（softmax 阶段）", "可能原因：没有除以行和"]


def test_nan_cells_are_grey_and_labelled():
    """Is a NaN (an overflowed softmax) left out of the colour scale and labelled NaN?"""
    fig, ax = plt.subplots()
    image = plot_deviation(_finding([[np.nan, 0.5]], [[0.5, 0.5]]), ax=ax)
    assert image.get_array().mask.tolist() == [[True, False]]
    assert ax.texts[0].get_text() == "NaN"
    assert image.get_clim() == (0.0, 1.0)  # the finite cells agree: a plain scale, not a degenerate one


def test_large_matrices_are_not_annotated_and_3d_shows_the_first_matrix():
    """Does a 2×9×9 probe draw its first 9×9 matrix without cell labels?"""
    student = np.zeros((2, 9, 9))
    student[0, 4, 4], student[1, 0, 0] = 1.0, 5.0
    fig, ax = plt.subplots()
    image = plot_deviation(_finding(student, np.zeros((2, 9, 9))), ax=ax)
    assert image.get_array().shape == (9, 9) and image.get_array()[4, 4] == 1.0 and image.get_array()[0, 0] == 0
    assert len(ax.texts) == 0


def test_finding_without_arrays_is_refused_with_its_name():
    """Does an exception finding (nothing to compare) raise ShapeError naming the bug?"""
    with pytest.raises(ShapeError, match="'scores_exception' carries no arrays"):
        plot_deviation(Finding("scores", "scores_exception", {"zh": "现象：…", "en": "Seen: …"}))


def test_first_deviation_plotted_or_nothing():
    """Does the notebook call draw the first stage's heatmap, and draw nothing for a correct implementation?"""
    assert plot_first_deviation(diagnose(*lab.REFERENCE)) is None
    assert plt.get_fignums() == []
    image = plot_first_deviation(diagnose(*lab.STUBS))
    assert "结果没有写进 out" in image.axes.get_title() and "scores_out_not_written" not in image.axes.get_title()
    np.testing.assert_allclose(image.get_array(), np.abs(image.get_array()))
    assert image.get_array().max() > 0


def test_show_diagnosis_prints_draws_and_returns(capsys, monkeypatch):
    """Does the notebook's one call print the text, show one heatmap for a bug (its PNG with the gap's text
    alternative, the figure closed) and none when all is well?"""
    shown = []
    monkeypatch.setattr(figures, "display", shown.append)
    findings = show_diagnosis(lab.attention_scores, lab.stub_apply_mask, lab.softmax)
    assert [f.bug for f in findings] == ["mask_not_applied"]
    assert capsys.readouterr().out.startswith("诊断：最先偏离参考实现的是 student_apply_mask")
    assert plt.get_fignums() == [] and len(shown) == 1 and shown[0].png.startswith(b"\x89PNG")
    said = describe.deviation(deviation.gap(findings[0]), deviation.title_text(findings[0]), "zh")
    assert shown[0].description == said and "最大的差距" in said.text
    assert show_diagnosis(*lab.REFERENCE) == [] and len(shown) == 1
    assert "没有发现问题" in capsys.readouterr().out


def _boxes(figure):
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    image_ax = figure.axes[0]
    colour_ax = image_ax.child_axes[0]  # the inset colour bar
    return (image_ax.title.get_window_extent(renderer), colour_ax.get_window_extent(renderer),
            image_ax.get_window_extent(renderer), figure.bbox)


def test_title_is_whole_and_the_colour_bar_fits_the_heatmap():
    """In its own figure, is the title inside the figure and clear of the colour bar, the bar as tall as the heatmap?"""
    image = plot_first_deviation(diagnose(*lab.STUBS))  # a long bug name: scores_out_not_written
    title, colour_bar, heatmap, figure = _boxes(image.figure)
    assert figure.x0 <= title.x0 and title.x1 <= figure.x1 and title.y1 <= figure.y1
    assert not title.overlaps(colour_bar)
    assert colour_bar.height == pytest.approx(heatmap.height, rel=0.02)
    assert colour_bar.x0 >= heatmap.x1


def test_under_grading_the_gap_is_a_table_and_nothing_is_drawn(monkeypatch, capsys):
    """Under autograde: the same text, the gap shown as the HTML table (no figure), nothing for a correct student?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    shown = []
    monkeypatch.setattr(diagnose_plot, "display", shown.append)
    monkeypatch.setattr(diagnose_plot, "plot_deviation", lambda *_: pytest.fail("drew a figure under grading"))
    findings = show_diagnosis(*lab.STUBS)
    assert capsys.readouterr().out.startswith("诊断：最先偏离参考实现的是 student_attention_scores")
    finding = first_deviation(findings)
    said = describe.deviation(deviation.gap(finding), deviation.title_text(finding), "zh").text
    assert len(shown) == 1 and shown[0].data.endswith(deviation.gap_table(finding)) and html.escape(said) in shown[0].data
    show_diagnosis(*lab.REFERENCE)
    assert len(shown) == 1 and plt.get_fignums() == []

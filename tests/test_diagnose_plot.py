"""Does the |student − reference| heatmap show where the first deviating stage went wrong?"""
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attnkit import lab
from attnkit.diagnose import Finding, diagnose
from attnkit.diagnose_plot import plot_deviation, plot_first_deviation, show_diagnosis
from attnkit.errors import ShapeError


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _finding(student, reference, bug="softmax_wrong_values"):
    return Finding("softmax", bug, "现象：…", "softmax/rect", np.asarray(student), np.asarray(reference))


def test_image_is_the_absolute_gap_with_values_written_in():
    """Is the image |student − reference|, with one value label per cell of a small matrix?"""
    fig, ax = plt.subplots()
    image = plot_deviation(_finding([[0.5, 0.2], [0.1, 0.9]], [[0.5, 0.5], [0.3, 0.9]]), ax=ax)
    np.testing.assert_allclose(image.get_array(), [[0.0, 0.3], [0.2, 0.0]])
    assert [t.get_text() for t in ax.texts] == ["0", "0.3", "0.2", "0"]
    assert "stage softmax" in ax.get_title() and "softmax_wrong_values (probe softmax/rect)" in ax.get_title()


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
        plot_deviation(Finding("scores", "scores_exception", "现象：…"))


def test_first_deviation_plotted_or_nothing():
    """Does the notebook call draw the first stage's heatmap, and draw nothing for a correct implementation?"""
    assert plot_first_deviation(diagnose(*lab.REFERENCE)) is None
    assert plt.get_fignums() == []
    image = plot_first_deviation(diagnose(*lab.STUBS))
    assert "scores_out_not_written" in image.axes.get_title()
    np.testing.assert_allclose(image.get_array(), np.abs(image.get_array()))
    assert image.get_array().max() > 0


def test_show_diagnosis_prints_draws_and_returns(capsys):
    """Does the notebook's one call print the text, draw one heatmap for a bug and none when all is well?"""
    findings = show_diagnosis(lab.attention_scores, lab.stub_apply_mask, lab.softmax)
    assert [f.bug for f in findings] == ["mask_not_applied"]
    assert capsys.readouterr().out.startswith("诊断：最先偏离参考实现的是 student_apply_mask")
    assert len(plt.get_fignums()) == 1
    plt.close("all")
    assert show_diagnosis(*lab.REFERENCE) == [] and plt.get_fignums() == []
    assert "没有发现问题" in capsys.readouterr().out

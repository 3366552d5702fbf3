"""Does the HTML gap table (the diagnosis under grading) show the heatmap's numbers, colours and title?"""
import re

import numpy as np

from attnkit import deviation
from attnkit.diagnose import Finding
from support.editions import CJK


def _finding(student, reference, bug="softmax_wrong_values", probe="softmax/rect"):
    messages = {"zh": "现象：…\n可能原因：sum 没有指定轴\n检查：…", "en": "Seen: …\nLikely cause: sum has no axis\nCheck: …"}
    return Finding("softmax", bug, messages, probe, np.asarray(student), np.asarray(reference))


def _cells(html: str) -> list:
    """(background, ink, tooltip, text) of every value cell, row by row."""
    return re.findall(r'<td style="background:(#[0-9a-f]{6});color:(\w+);[^"]*" title="([^"]*)">([^<]*)</td>', html)


def test_cells_are_the_absolute_gap_coloured_from_white_to_dark_red():
    """Is each cell |student − reference|, no gap the scale's white, the largest its dark red, dark cells in white?"""
    cells = _cells(deviation.gap_table(_finding([[0.5, 0.2], [0.1, 0.9]], [[0.5, 0.5], [0.3, 0.9]])))
    assert [text for *_, text in cells] == ["0", "0.3", "0.2", "0"]
    assert cells[0][:2] == ("#fff5f0", "black") and cells[1][:2] == ("#67000d", "white")
    assert cells[2][1] == "white"  # 0.2 is 2/3 of the largest gap, above deviation.DARK


def test_colours_darken_with_the_gap():
    """Along a row of growing gaps, does every colour get darker (lower red + green + blue)?"""
    cells = _cells(deviation.gap_table(_finding([np.linspace(0, 1, 8)], [np.zeros(8)])))
    darkness = [sum(int(colour[k:k + 2], 16) for k in (1, 3, 5)) for colour, *_ in cells]
    assert darkness == sorted(darkness, reverse=True) and len(set(darkness)) == 8


def test_nan_and_inf_are_grey_and_named():
    """A NaN or inf on either side: a grey cell saying NaN, the others coloured against the finite gaps?"""
    cells = _cells(deviation.gap_table(_finding([[np.nan, 1.0, np.inf]], [[0.0, 0.5, 0.0]])))
    assert cells[0][0] == cells[2][0] == "#bfbfbf" and cells[0][3] == cells[2][3] == "NaN"
    assert cells[1][:2] == ("#67000d", "white")


def test_large_matrices_show_colour_with_the_value_as_tooltip():
    """Beyond ANNOTATE_MAX columns, are the cells empty, each value still in its tooltip?"""
    size = deviation.ANNOTATE_MAX + 1
    cells = _cells(deviation.gap_table(_finding(np.eye(size), np.zeros((size, size)))))
    assert len(cells) == size * size and all(text == "" for *_, text in cells)
    assert cells[0][2] == "1" and cells[1][2] == "0"


def test_title_lines_and_a_stacked_probe():
    """Three escaped title lines; a 3-D probe shown as its first matrix?"""
    stacked = np.zeros((2, 3, 3))
    finding = _finding(stacked + 1, stacked, bug="a<b>", probe="softmax/batched")
    finding.messages["zh"] = finding.messages["zh"].replace("sum 没有指定轴", "a<b>")
    html = deviation.gap_table(finding)
    title = re.search(r"<p[^>]*>(.*?)</p>", html).group(1).split("<br>")
    assert title == ["|你的结果 − 参考结果|（softmax 阶段）", "可能原因：a&lt;b&gt;"]  # the cause in words, escaped
    assert len(_cells(html)) == 9


def test_the_english_table_says_the_same_in_english():
    """Under the English edition: the same cells, English title lines, corner and legend, no Chinese?"""
    finding = _finding([[0.5, 0.2], [0.1, 0.9]], [[0.5, 0.5], [0.3, 0.9]])
    english = deviation.gap_table(finding, "en")
    assert _cells(english) == _cells(deviation.gap_table(finding, "zh"))
    assert "|your result − reference| (softmax stage)<br>likely cause: sum has no axis" in english
    assert "softmax_wrong_values" not in english and "softmax/rect" not in english  # no id reaches a student
    assert "row i \\ column j" in english and "The darker, the larger the gap" in english
    assert not CJK.search(english)

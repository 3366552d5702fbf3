"""Does every figure say in words and numbers what it shows, from its own data: change the data, the words change?

attnkit.describe against independent oracles: each row's largest weight found by plain loops, the flattest row by a
hand-written entropy, the tables' cells by formatting the figure's own arrays; in both languages.
"""
import base64
import html.parser
import math
import re

import numpy as np
import pytest

import attnkit
from attnkit import describe, sharpness

CJK = re.compile(r"[\u3400-\u9fff]")
SCORES = np.random.default_rng(5).normal(size=(4, 4))  # (T, T) as in §4.7
MASK = attnkit.create_causal_mask(4, np.float64)
WEIGHTS = np.array([[0.7, 0.2, 0.1],
                    [0.1, 0.3, 0.6],
                    [0.4, 0.35, 0.25]])  # (T, S): row 2 is the flattest


def _loop_peaks(weights) -> list:
    """(row, column, weight) of each row's largest weight, by looping (the oracle)."""
    peaks = []
    for i, row in enumerate(weights):
        best = 0
        for j in range(len(row)):
            if row[j] > row[best]:
                best = j
        peaks.append((i, best, row[best]))
    return peaks


def _flattest(weights) -> int:
    entropies = [-sum(w * math.log(w) for w in row if w > 0) for row in weights]
    return entropies.index(max(entropies))


def test_does_each_rows_largest_weight_come_from_the_data():
    """Every row's largest weight, its column and its value, as the loops find them; the flattest row's weights
    largest first; the rows' sums?"""
    text = describe.weights_sentence(WEIGHTS, "weights", "en")
    for i, j, w in _loop_peaks(WEIGHTS):
        assert f"row {i} → column {j} ({w:.2f})" in text
    flat = _flattest(WEIGHTS)
    assert f"row {flat} spreads most: " + " / ".join(f"{w:.2f}" for w in sorted(WEIGHTS[flat], reverse=True)) in text
    assert text.startswith("weights: 3 × 3; ") and "every row sums to 1" in text


def test_does_changing_the_data_change_the_words():
    """Moving one row's largest weight moves it in the text, and only that row's clause changes?"""
    before = describe.weights_sentence(WEIGHTS, "w", "en")
    moved = WEIGHTS.copy()
    moved[0] = [0.1, 0.2, 0.7]
    after = describe.weights_sentence(moved, "w", "en")
    assert "row 0 → column 0 (0.70)" in before and "row 0 → column 2 (0.70)" in after
    assert before.replace("row 0 → column 0", "row 0 → column 2") == after


def test_are_the_patterns_named():
    """A causal mask is named as such, a diagonal of peaks as "own position", rows not summing to 1 by their range,
    NaN rows by number?"""
    causal = np.tril(np.full((3, 3), 0.1)) + np.eye(3) * 0.5
    causal /= causal.sum(axis=1, keepdims=True)
    blocked = np.triu(np.ones((3, 3), bool), 1)
    text = describe.weights_sentence(causal, "w", "en", blocked=blocked)
    assert "causal mask" in text and "each row's largest weight is on its own position" in text
    zeroed = WEIGHTS * np.array([[1.0], [0.5], [1.0]])
    assert "the rows sum to 0.50 … 1.00" in describe.weights_sentence(zeroed, "w", "en")
    with_nan = np.vstack([WEIGHTS, np.full(3, np.nan)])
    assert "row(s) 3 are NaN" in describe.weights_sentence(with_nan, "w", "en")


def test_are_the_tables_the_figures_numbers():
    """The pipeline's four tables: scores, mask, masked scores and weights, each cell as its heatmap writes it?"""
    said = describe.figure("pipeline", {"scores": SCORES, "mask": MASK, "tokens": None}, "en")
    weights = attnkit.softmax(SCORES + MASK)
    expected = [SCORES, MASK, SCORES + MASK, weights]
    assert len(said.tables) == 4
    for table, matrix in zip(said.tables, expected):
        assert [cells for _, cells in table.rows] == [tuple(describe.cell_text(v) for v in row) for row in matrix]
    assert said.tables[1].rows[0][1][1] == "−1e9" and said.tables[0].columns == tuple(f"column {j}" for j in range(4))
    for i, j, w in _loop_peaks(np.where(MASK < -1e8, -np.inf, weights)):
        assert f"row {i} → column {j} ({w:.2f})" in said.text


def test_do_tokens_name_rows_and_columns():
    tokens = ["the", "cat", "sat"]
    said = describe.figure("head_grid", {"weights": np.stack([WEIGHTS, WEIGHTS.T]), "tokens": tokens, "mask": None},
                           "en")
    assert said.text.startswith("2 heatmaps, one per head, each 3 × 3.")
    assert "“the” → “the” (0.70)" in said.text and said.tables[1].rows[2][0] == "“sat”"


@pytest.mark.parametrize("name, params", [
    ("pipeline", {"scores": SCORES, "mask": MASK, "tokens": None}),
    ("wrong_order", {"scores": SCORES, "mask": MASK, "tokens": None}),
    ("heatmap_row", {"matrices": {"-1e9": WEIGHTS, "-inf": WEIGHTS}}),
    ("head_grid", {"weights": np.stack([WEIGHTS] * 2), "tokens": None, "mask": None}),
])
def test_is_each_figure_said_in_its_editions_language(name, params):
    """The Chinese edition's words Chinese, the English edition's with no Chinese character?"""
    zh, en = (describe.figure(name, params, lang) for lang in ("zh", "en"))
    assert CJK.search(zh.text) and not CJK.search(en.text)
    assert CJK.search(zh.tables[0].corner) and not CJK.search(en.tables[0].caption + en.tables[0].corner)


def test_does_the_wrong_order_say_its_rows_fall_short():
    said = describe.figure("wrong_order", {"scores": SCORES, "mask": MASK, "tokens": None}, "en")
    zeroed_sums = np.where(MASK < -1e8, 0.0, attnkit.softmax(SCORES)).sum(axis=1)
    assert f"the rows sum to {zeroed_sums.min():.2f} … {zeroed_sums.max():.2f}" in said.text


def test_does_the_diagnosis_say_where_the_largest_gap_is():
    gap = np.zeros((3, 4))
    gap[2, 1], gap[0, 3], gap[1, 1] = 0.5, 0.25, np.nan
    said = describe.deviation(gap, "|your result − reference| (softmax stage)", "en")
    assert "the largest gap, 0.5, is at row 2, column 1" in said.text
    assert "2 of 12 cells differ" in said.text and "1 cells are NaN or inf" in said.text


def test_does_the_explorers_frame_say_its_readout_and_rows():
    m = sharpness.measure(256, scaled=True, seq_len=5, seed=3, causal=True)
    said = describe.explorer(m, sharpness.summary(m, "en"), "en")
    assert said.text.startswith(sharpness.summary(m, "en"))
    assert [cells[0] for _, cells in said.tables[0].rows] == [f"{w:.2f}" for w in m.row_max]
    assert [cells[1] for _, cells in said.tables[0].rows] == [f"column {j}" for j in np.argmax(m.weights, axis=1)]


class _Parsed(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.alt, self.src, self.scopes = [], None, None, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "img":
            self.alt, self.src = attrs.get("alt"), attrs.get("src")
        if tag == "th":
            self.scopes.append(attrs.get("scope"))


def test_is_the_html_the_picture_its_words_and_its_tables():
    """One <figure>: the PNG with the text as its alt, then folded the words again and each table with a caption
    and row and column headers a screen reader announces?"""
    said = describe.figure("heatmap_row", {"matrices": {"a <b>": WEIGHTS}}, "en")
    page = describe.figure_html(b"\x89PNG fake", said, "en")
    parsed = _Parsed()
    parsed.feed(page)
    assert parsed.alt == said.text and "a <b>" in said.text and "<b>" not in page
    assert base64.b64decode(parsed.src.split(",", 1)[1]) == b"\x89PNG fake"
    assert {"figure", "img", "figcaption", "details", "summary", "table", "caption"} <= set(parsed.tags)
    assert set(parsed.scopes) == {"col", "row"} and parsed.scopes.count("row") == 3


def test_is_an_unknown_figure_named():
    with pytest.raises(ValueError, match=r"no words for a figure named 'heat': expected one of pipeline, "):
        describe.figure("heat", {})

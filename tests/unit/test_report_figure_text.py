"""Does each chart of the class report say in words what it shows, from the numbers it draws?

coursekit.report.figure_text against the data computed here (means, commonest scores, counts by hand), and the page:
every chart an image with a name a screen reader reads, the score distributions' numbers in a table.
"""
import html
import re
from collections import Counter
from statistics import mean

import pytest

from coursekit.report import figure_text
from coursekit.report.tables import CheckStat, Mistake

PANELS = [("TEST 1", [4, 4, 3.5, 0, 4], 4.0), ("总分", [12, 11.5, 3.5, 0, 12], 20.0), ("TEST 2", [], 3.0)]


def test_do_the_distributions_say_each_panels_mean_and_commonest_score():
    said = figure_text.distributions(PANELS, "en")
    for title, scores, top in PANELS[:2]:
        score, n = Counter(scores).most_common(1)[0]
        panel = f"{title} (out of {top:g}): {len(scores)} students, mean {mean(scores):.2f}"
        assert f"{panel}, most often {score:g} ({n} students)" in said
    assert "TEST 2: no scores" in said


def test_does_the_table_count_every_score():
    table = figure_text.distribution_table(PANELS, "zh")
    rows = re.findall(r"<tr><th scope=\"row\">(.*?)</th>(.*?)</tr>", table)
    assert [html.unescape(name) for name, _ in rows] == ["TEST 1（满分 4）", "总分（满分 20）", "TEST 2（满分 3）"]
    assert "4 分（3 人）" in rows[0][1] and "3.5 分（1 人）" in rows[0][1] and "0 分（1 人）" in rows[0][1]
    assert "<caption>" in table and table.count('scope="col"') == 4


def test_do_the_bars_name_the_lowest_checks_and_the_commonest_mistake():
    checks = [CheckStat("test3.a", 3, False, "", 1, ["x", "y", "z"]),
              CheckStat("test3.b", 3, False, "", 1, ["x", "y", "z"]), CheckStat("verify.1", 1, True, "", 4)]
    said = figure_text.pass_rates(checks, ["low A", "low B", "high"], "en")
    assert "3 checks (2 of them hidden)" in said and "the lowest is 25%: low A; low B." in said
    found = [Mistake("mask_multiplied", "mask", "", students=["a", "b"]), Mistake("other", "mask", "", students=["c"])]
    said = figure_text.mistakes(found, ["mask times scores", "x"], 7, "en")
    assert "the commonest is “mask times scores”, in 2 of the 7 students" in said


def test_is_an_svg_labelled_and_anything_else_refused():
    labelled = figure_text.labelled('<svg width="3"><g/></svg>', 'a "chart" & more')
    assert labelled.startswith('<svg role="img" aria-label="a &quot;chart&quot; &amp; more" width="3">')
    with pytest.raises(ValueError, match="needs an <svg> element"):
        figure_text.labelled("<div/>", "x")

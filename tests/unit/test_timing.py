"""Does attnkit.timing measure loops vs vectorised honestly (same result, ratio of medians)?"""
import itertools

import pytest

from attnkit import ShapeError, timing


def fake_clock(step: float = 1.0):
    """A clock that advances ``step`` seconds per reading."""
    ticks = itertools.count()
    return lambda: next(ticks) * step


def test_median_seconds_divides_by_number():
    """Is each run's time divided by the number of calls, and the median taken over runs?"""
    assert timing.median_seconds(lambda: None, repeat=3, number=4, clock=fake_clock()) == 0.25


def test_median_seconds_takes_the_median():
    """Is one slow run ignored (median, not mean)?"""
    readings = iter([0.0, 1.0, 1.0, 2.0, 2.0, 12.0])  # runs of 1 s, 1 s, 10 s
    assert timing.median_seconds(lambda: None, repeat=3, clock=lambda: next(readings)) == 1.0


def test_ratio_is_loops_over_vectorised():
    """With a clock that ticks 1 s per reading, do loops (1 call) vs matmul (200 calls) give 200x?"""
    result = timing.loops_vs_vectorised(seq_len=3, head_dim=2, repeat=1, clock=fake_clock())
    assert result.loops_s == 1.0 and result.vectorised_s == 1.0 / 200
    assert result.ratio == pytest.approx(200.0)


def test_real_measurement_agrees_and_is_positive():
    """On this machine: do both versions give the same scores, and are both times positive?"""
    result = timing.loops_vs_vectorised(seq_len=8, head_dim=8, repeat=1)
    assert result.agree and (result.seq_len, result.head_dim) == (8, 8)
    assert result.loops_s > 0 and result.vectorised_s > 0


def test_bad_repeat_names_the_rule():
    """Does repeat=0 raise ShapeError naming both counts?"""
    with pytest.raises(ShapeError, match=r"^repeat and number must be positive: repeat=0, number=1$"):
        timing.median_seconds(lambda: None, repeat=0)


def test_print_comparison_prints_one_line_per_size(monkeypatch, capsys):
    """For a student, is there one measured line per seq_len, in the chapter's Chinese wording?"""
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    results = timing.print_comparison(seq_lens=(2, 3), head_dim=2)
    lines = capsys.readouterr().out.splitlines()
    assert [r.seq_len for r in results] == [2, 3] and all(r.agree for r in results)
    assert lines == [timing.comparison_line(r) for r in results]
    assert lines[0].startswith("seq_len= 2  三层循环") and "结果一致: True" in lines[0]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_print_comparison_measures_nothing_under_grading(monkeypatch, capsys, lang):
    """Under autograde, does it print the one-line note, in the edition's language, and time nothing?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(timing, "loops_vs_vectorised", lambda **_: pytest.fail("timed under grading"))
    assert timing.print_comparison(lang=lang) == []
    assert capsys.readouterr().out == timing.SKIPPED_UNDER_GRADING[lang] + "\n"
    assert ("评分时不计时" in timing.SKIPPED_UNDER_GRADING[lang]) == (lang == "zh")


def test_is_a_row_the_same_numbers_in_both_languages():
    """The table's row: the same numbers, Chinese or English words around them?"""
    r = timing.Timing(8, 32, 0.0012, 1.5e-6, True)
    assert timing.comparison_line(r, "zh") == "seq_len= 8  三层循环    1.20 ms   矩阵乘    1.5 µs   快   800 倍   结果一致: True"
    assert timing.comparison_line(r, "en") == "seq_len= 8  loops    1.20 ms   matmul    1.5 µs     800× faster   same result: True"

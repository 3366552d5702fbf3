"""Does attnkit.timing measure loops vs vectorised honestly (same result, ratio of medians)?"""
import itertools

import pytest

from attnkit.language import WORDS

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
    assert capsys.readouterr().out == WORDS.say(lang, "timing.not_timed") + "\n"
    assert ("评分时不计时" in WORDS.say(lang, "timing.not_timed")) == (lang == "zh")


def test_is_a_row_the_same_numbers_in_both_languages():
    """The table's row: the same numbers, Chinese or English words around them?"""
    r = timing.Timing(8, 32, 0.0012, 1.5e-6, True)
    assert timing.comparison_line(r, "zh") == "seq_len= 8  三层循环    1.20 ms   矩阵乘    1.5 µs   快   800 倍   结果一致: True"
    assert timing.comparison_line(r, "en") == "seq_len= 8  loops    1.20 ms   matmul    1.5 µs     800× faster   same result: True"


def test_heads_ratio_is_the_loop_over_all_at_once_and_the_outputs_agree():
    """With a clock of 1 s per reading, both ways take 1/2 s a pass (runs of 2; ratio 1); the outputs agree to 1e-12?"""
    result = timing.heads_loop_vs_batched(4, seq_len=5, hidden_dim=8, repeat=1, clock=fake_clock())
    assert (result.num_heads, result.loop_s, result.batched_s, result.ratio) == (4, 1 / 2, 1 / 2, 1.0)
    assert 0 <= result.gap <= 1e-12


def test_are_the_two_ways_timed_in_turn_and_the_fastest_run_kept():
    """first, second, first, second …: each run of 2 calls timed in turn; one slow run of each is not kept?"""
    calls, readings = [], iter([0, 4, 4, 6, 6, 8, 8, 18])  # first: 4 s then 2 s a run; second: 2 s then 10 s
    best = timing.fastest_of_alternating(lambda: calls.append("a"), lambda: calls.append("b"), repeat=2, number=2,
                                         clock=lambda: next(readings))
    assert best == (1.0, 1.0) and calls == ["a", "a", "b", "b"] * 2


def test_print_heads_comparison_prints_one_line_per_head_count(monkeypatch, capsys):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    results = timing.print_heads_comparison(head_counts=(1, 2), seq_len=4, hidden_dim=8, lang="en")
    lines = capsys.readouterr().out.splitlines()
    assert [r.num_heads for r in results] == [1, 2] and lines == [timing.heads_line(r, "en") for r in results]
    assert lines[0].startswith("num_heads= 1  head by head") and "largest difference" in lines[0]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_print_heads_comparison_measures_nothing_under_grading(monkeypatch, capsys, lang):
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    monkeypatch.setattr(timing, "heads_loop_vs_batched", lambda *a, **k: pytest.fail("timed under grading"))
    assert timing.print_heads_comparison(lang=lang) == []
    assert capsys.readouterr().out == WORDS.say(lang, "timing.not_timed") + "\n"


def test_is_a_heads_row_the_same_numbers_in_both_languages():
    r = timing.HeadsTiming(8, 180e-6, 48e-6, 0.0)
    assert timing.heads_line(r, "zh") == "num_heads= 8  逐头循环   180.0 µs   一次算完   48.0 µs   加速比  3.8   最大相差 0.0e+00"
    assert timing.heads_line(r, "en") == ("num_heads= 8  head by head   180.0 µs   all at once   48.0 µs   speed-up  3.8×   "
                                          "largest difference 0.0e+00")

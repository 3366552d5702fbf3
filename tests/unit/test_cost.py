"""Does attnkit.cost measure attention's time and memory honestly, and fit the slope against log T?"""
import itertools
import re

import numpy as np
import pytest

from attnkit.language import WORDS

from attnkit import ShapeError, cost


def fake_clock():
    ticks = itertools.count()
    return lambda: float(next(ticks))


def test_is_the_time_the_fastest_run_per_call(monkeypatch):
    """A clock of 1 s per reading and T = 16, called WORK_PER_RUN / T² = 8 times a run: 1/8 s a call?"""
    monkeypatch.setattr(cost, "WORK_PER_RUN", 8 * 16 ** 2)
    measured = cost.measure(16, head_dim=4, repeat=2, clock=fake_clock())
    assert (measured.seq_len, measured.head_dim, measured.seconds) == (16, 4, 1 / 8)


def test_is_the_peak_memory_about_four_t_by_t_float32_matrices(monkeypatch):
    """Scores, shifted scores, exp and weights are alive at once: about 4 T×T float32 matrices at T = 512?"""
    monkeypatch.setattr(cost, "WORK_PER_RUN", 1)
    measured = cost.measure(512, head_dim=8, repeat=1)
    assert 3.9 < measured.matrices < 4.2 and measured.peak_bytes == pytest.approx(measured.matrices * 512 ** 2 * 4)


def test_does_measuring_leave_tracemalloc_as_it_was(monkeypatch):
    import tracemalloc
    monkeypatch.setattr(cost, "WORK_PER_RUN", 1)
    tracemalloc.start()
    try:
        assert cost.measure(128, repeat=1).peak_bytes > 128 ** 2 * 4 and tracemalloc.is_tracing()
    finally:
        tracemalloc.stop()
    cost.measure(128, repeat=1)
    assert not tracemalloc.is_tracing()


@pytest.mark.parametrize("power", [1.0, 2.0, 3.0])
def test_is_the_slope_the_power_of_t(power):
    lengths = [128, 256, 512, 1024]
    assert cost.slope(lengths, [7.0 * n ** power for n in lengths]) == pytest.approx(power)


def test_do_bad_arguments_name_the_rule():
    with pytest.raises(ShapeError, match=r"^seq_len must be a positive integer: seq_len=0$"):
        cost.measure(0)
    with pytest.raises(ShapeError, match=r"^need two points or more: 1 lengths, 1 values$"):
        cost.slope([128], [1.0])


def test_does_print_growth_print_a_row_per_length_and_the_slopes(monkeypatch, capsys):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setattr(cost, "WORK_PER_RUN", 1)
    costs = cost.print_growth(seq_lens=(64, 128), head_dim=4, lang="en")
    lines = capsys.readouterr().out.splitlines()
    assert [c.seq_len for c in costs] == [64, 128] and len(lines) == 3
    assert lines[0].startswith("T=   64  time") and "×" in lines[1] and lines[2].startswith("slope fitted against log T")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_print_growth_measure_nothing_under_grading(monkeypatch, capsys, lang):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(cost, "measure", lambda *a, **k: pytest.fail("measured under grading"))
    assert cost.print_growth(lang=lang) == []
    assert capsys.readouterr().out.strip() == WORDS.say(lang, "timing.not_timed")


def test_is_each_row_of_numbers_the_same_in_both_languages():
    """The row's numbers are formatted alike in Chinese and English (the claims read them back)."""
    values = dict(seq_len=4096, ms=66.5, mib=256.05, time_x="×3.4", bytes_x="×4.0", matrices=4.0)
    numbers = [np.array([float(x) for x in re.findall(r"\d+\.?\d*", WORDS.say(lang, "cost.row", **values))])
               for lang in ("zh", "en")]
    np.testing.assert_array_equal(numbers[0], numbers[1])

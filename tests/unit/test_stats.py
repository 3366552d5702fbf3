"""Is the benchmarks' and load tests' percentile the nearest rank, and NaN for no values?"""
import math

from support.stats import percentile


def test_nearest_rank_in_any_order():
    values = [5, 1, 4, 2, 3]
    assert [percentile(values, q) for q in (0, 50, 95, 100)] == [1, 3, 5, 5]
    assert percentile(list(range(1, 21)), 95) == 19  # rank round(0.95 × 19) = 18 → the 19th value


def test_no_values_no_percentile():
    assert math.isnan(percentile([], 50))

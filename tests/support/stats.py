"""Percentiles of measured times, one rule for every benchmark and load test that prints them."""

__all__ = ["percentile"]


def percentile(values, q):
    """The ``q``-th percentile (0–100) of ``values`` by nearest rank; NaN when there are none."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]

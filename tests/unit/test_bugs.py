"""Do the catalogue's numeric helpers tell a bug's signature from the reference's output?"""
import numpy as np

from attnkit.bugs import RULES, close, factor


def test_factor_finds_the_multiple_or_none():
    """Is c found for out = c * base, and None for a non-multiple or an all-zero base?"""
    base = np.array([[1.0, -2.0], [3.0, 0.5]])
    assert abs(factor(0.37 * base, base) - 0.37) < 1e-12
    assert factor(0.37 * base + np.eye(2), base) is None
    assert factor(base, np.zeros((2, 2))) is None
    assert factor(base, base.T[:, :1]) is None  # shapes differ


def test_close_is_shape_strict_and_nan_is_never_close_to_a_number():
    """Are a transposed shape and a NaN both 'not close'?"""
    a = np.arange(6.0).reshape(2, 3)
    assert close(a, a + 1e-7) and not close(a, a.T.copy().reshape(3, 2))
    b = a.copy()
    b[0, 0] = np.nan
    assert not close(b, a) and close(b, b)


def test_bug_ids_are_unique_and_prefixed_by_their_stage():
    """Does every named bug id start with its stage and appear once?"""
    ids = [rule.bug for stage, rules in RULES.items() for rule in rules]
    assert len(ids) == len(set(ids))
    assert all(rule.bug.startswith(stage + "_") for stage, rules in RULES.items() for rule in rules)

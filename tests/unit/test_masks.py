"""Does the causal mask match the C framework's create_causal_mask?"""
import numpy as np
import pytest

from attnkit import MASK_VALUE, ShapeError, create_causal_mask


def test_values_match_the_lab_rule():
    """Is (i, j) 0 exactly when j <= i and -1e9 otherwise?"""
    mask = create_causal_mask(5)
    for i in range(5):
        for j in range(5):
            assert mask[i, j] == (0.0 if j <= i else np.float32(-1e9))


def test_dtype_and_shape():
    """Is it float32 [T, T] by default, like the framework's Tensor?"""
    mask = create_causal_mask(3)
    assert mask.dtype == np.float32 and mask.shape == (3, 3)
    assert create_causal_mask(3, dtype=np.float64).dtype == np.float64


def test_finite_large_negative_not_inf():
    """Is the blocked value finite (-1e9), not -inf?"""
    mask = create_causal_mask(4)
    assert np.all(np.isfinite(mask))
    assert MASK_VALUE == -1e9


@pytest.mark.parametrize("bad", [0, -2, 2.5, True, "3"])
def test_rejects_non_positive_or_non_integer(bad):
    """Is a bad seq_len refused with a message naming it?"""
    with pytest.raises(ShapeError, match=r"seq_len must be a positive integer: seq_len="):
        create_causal_mask(bad)

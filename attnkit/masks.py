"""The lab's additive causal mask.

Convention (the C framework's ``create_causal_mask``): the mask is *added* to the
scores before softmax; ``0`` keeps a position, ``MASK_VALUE = -1e9`` blocks it.
A large finite negative number, not ``-inf``: a row that is masked everywhere then gives
finite weights instead of NaN. In float32 (the C lab's ``float``) every score in such a row
rounds to -1e9, so the row becomes uniform; in float64 the scores survive the -1e9 and the
row is the softmax of the unmasked scores.
"""
import numpy as np

from .errors import require_positive_int

MASK_VALUE = -1e9
MASKED_BELOW = -1e8  # verify.c's test for "this cell is masked" (and the figures' hatching)


def create_causal_mask(seq_len: int, dtype=np.float32) -> np.ndarray:
    """Return the ``[seq_len, seq_len]`` mask: 0 where ``j <= i``, ``-1e9`` where ``j > i``."""
    require_positive_int("seq_len", seq_len)
    future = np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)  # (T, T), True where j > i
    return np.where(future, MASK_VALUE, 0.0).astype(dtype)

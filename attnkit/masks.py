"""The lab's additive causal mask.

Convention (the C framework's ``create_causal_mask``): the mask is *added* to the
scores before softmax; ``0`` keeps a position, ``MASK_VALUE = -1e9`` blocks it.
A large finite negative number, not ``-inf``: a row that is masked everywhere then
becomes a uniform row after softmax instead of NaN.
"""
import numpy as np

from .errors import require

MASK_VALUE = -1e9


def create_causal_mask(seq_len: int, dtype=np.float32) -> np.ndarray:
    """Return the ``[seq_len, seq_len]`` mask: 0 where ``j <= i``, ``-1e9`` where ``j > i``."""
    require(
        isinstance(seq_len, (int, np.integer)) and not isinstance(seq_len, bool) and seq_len >= 1,
        f"seq_len must be a positive integer: seq_len={seq_len!r}",
    )
    future = np.triu(np.ones((seq_len, seq_len), dtype=bool), k=1)  # (T, T), True where j > i
    return np.where(future, MASK_VALUE, 0.0).astype(dtype)

"""The one exception type attnkit raises for bad input.

Messages are written for the caller: they name the offending shapes and the rule,
e.g. ``q and k must share head_dim: q.shape=(2, 4), k.shape=(3, 5)``.
"""
import numpy as np


class ShapeError(ValueError):
    """An argument's shape (or a size parameter) breaks the rule named in the message."""


def require_positive_int(name: str, value) -> None:
    """Raise :class:`ShapeError` unless ``value`` is an integer >= 1 (``True`` does not count)."""
    is_int = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    require(is_int and value >= 1, f"{name} must be a positive integer: {name}={value!r}")


def require(condition: bool, message: str) -> None:
    """Raise :class:`ShapeError` with ``message`` unless ``condition`` holds.

    Used instead of ``assert``, which vanishes under ``python -O``.
    """
    if not condition:
        raise ShapeError(message)

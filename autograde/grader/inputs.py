"""Where the hidden checks' inputs come from: the submission's seed, never a constant.

The grading process derives one seed per submission (:mod:`coursekit.seeds`: an HMAC of the course's secret and
the submission itself) and hands it to the grader with every test cell. Each check draws its own arrays from a
generator made of that seed and the check's tag, so

* regrading the same submission draws the same inputs (and so gives the same grade);
* any change to the submission draws new ones: inputs a student saw in one feedback (a function can copy its
  arguments, a later cell print them) are never asked again of another submission;
* two checks never share a stream: adding a check changes no other check's inputs.

The shapes, dtypes and the properties each check is built on (rows far apart, a fully masked row, saturated
scores …) stay those of the check; only the values vary. Shape legend: T queries, S keys, D head dim.
"""
import hashlib

import numpy as np

__all__ = ["Inputs", "FIXED"]

FIXED = "0" * 64  # a seed for the chapter's own demonstrations and the tests that need no particular one


class Inputs:
    """The generators of one submission's hidden inputs (``seed``: 64 hex digits, as :mod:`coursekit.seeds` makes)."""

    def __init__(self, seed: str):
        try:
            digest = bytes.fromhex(seed)
        except (TypeError, ValueError):
            raise ValueError(f"a grading seed is 64 hex digits, got {seed!r}") from None
        self.seed = seed
        self._words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, len(digest), 4)]

    def rng(self, tag: str) -> np.random.Generator:
        """A generator of its own for ``tag`` (a check's name for one of its arrays)."""
        tagged = int.from_bytes(hashlib.sha256(tag.encode()).digest()[:8], "little")
        return np.random.default_rng([tagged, *self._words])

    def normal(self, tag: str, shape, dtype, spread: float = 1.0) -> np.ndarray:
        return (self.rng(tag).standard_normal(shape) * spread).astype(dtype)

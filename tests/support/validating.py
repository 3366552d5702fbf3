"""nbgrader's own ``Validator`` (what ``nbgrader validate`` and the Validate button run), keeping what it executed.

One validation answers two questions: what nbgrader says of the notebook (the lines ``nbgrader validate`` prints, and
its results), and what every cell printed while it ran, so a test reads both from one kernel run.
"""
import io
from dataclasses import dataclass

import nbformat
from nbgrader.validator import Validator
from traitlets.config import Config

__all__ = ["Validated", "validate"]


@dataclass(frozen=True)
class Validated:
    results: dict                      # Validator.validate's: "failed", "passed", "changed" … as nbgrader lists them
    said: str                          # what ``nbgrader validate`` prints for it
    executed: nbformat.NotebookNode    # the notebook as the validation ran it, outputs included


class _Seeing(Validator):
    """nbgrader's Validator keeping the notebook it executed and its results."""

    executed, results = None, None

    def _preprocess(self, nb):
        self.executed = super()._preprocess(nb)
        return self.executed

    def validate(self, filename):
        self.results = super().validate(filename)
        return self.results


def validate(path, config: Config = None) -> Validated:
    """Validate the notebook at ``path`` as ``nbgrader validate`` does (``config``: a course's, else none)."""
    validator = _Seeing(config=config or Config())
    validator.stream = io.StringIO()
    validator.validate_and_print(str(path))
    return Validated(validator.results, validator.stream.getvalue(), validator.executed)

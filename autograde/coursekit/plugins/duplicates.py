"""A notebook in which one nbgrader cell appears twice is refused, not guessed (jupyter/nbgrader#1083).

A copied (or split) cell keeps its nbgrader metadata. nbgrader's ``DeduplicateIds`` keeps the
last copy and empties the others' metadata, which later crashes that student with a KeyError
or, without ``add_missing_cells``, aborts the whole run with a misleading "old metadata" error.
Which copy holds the answer cannot be known (a written answer may sit in the first copy), so
:class:`RejectDuplicateIds` takes ``DeduplicateIds``' place and names the duplicated cells.
"""
from nbgrader.preprocessors import DeduplicateIds, NbGraderPreprocessor

__all__ = ["RejectDuplicateIds", "with_rejected_duplicates"]


class RejectDuplicateIds(NbGraderPreprocessor):
    """Refuse a notebook in which one nbgrader cell appears more than once."""

    def preprocess(self, nb, resources):
        ids = [cell.metadata["nbgrader"].get("grade_id") for cell in nb.cells if "nbgrader" in cell.metadata]
        repeated = sorted({grade_id for grade_id in ids if grade_id and ids.count(grade_id) > 1})
        if repeated:
            raise ValueError(f"nbgrader cells appear more than once (copied or split with their metadata): "
                             f"{', '.join(repeated)}; delete the extra copies in the submitted notebook")
        return nb, resources


def with_rejected_duplicates(steps: list) -> list:
    """``steps`` (a converter's sanitize preprocessors) with DeduplicateIds replaced by RejectDuplicateIds."""
    return [RejectDuplicateIds if step is DeduplicateIds else step for step in steps]

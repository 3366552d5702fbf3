"""A release carries nothing its assignment keeps private in the master's metadata.

nbgrader's ``generate_assignment`` clears solutions and hidden tests from a cell's source but keeps
its metadata as the master has it. A master may hold there what students must not read: Chapter 4's
keeps each cell's English (``metadata.translation``), the reference answers' and the solutions'
comments included, from which ``make release`` writes its English edition. An assignment's plug-in
names such keys (``PRIVATE_METADATA``, :mod:`coursekit.assignments`); :class:`ClearPrivateMetadata`,
in ``GenerateAssignment.preprocessors`` right after the stubs (:func:`with_private_metadata_cleared`),
removes them from every cell of the release and from the notebook's own metadata. nbgrader's
checksums do not cover them, so Validate and autograde see the same cells.
"""
from nbgrader.preprocessors import ClearSolutions, NbGraderPreprocessor

from ..assignments import assignment_of
from ..stubs import AssignmentStubs

__all__ = ["ClearPrivateMetadata", "with_private_metadata_cleared"]


class ClearPrivateMetadata(NbGraderPreprocessor):
    """Remove the metadata keys the assignment's plug-in names private from each cell and from the notebook."""

    def preprocess(self, nb, resources):
        assignment_id = resources.get("nbgrader", {}).get("assignment", "")
        private = tuple(assignment_of(assignment_id, self.config).get("PRIVATE_METADATA")) if assignment_id else ()
        for key in private:
            nb.metadata.pop(key, None)
            for cell in nb.cells:
                cell.metadata.pop(key, None)
        return nb, resources


def with_private_metadata_cleared(preprocessors: list) -> list:
    """``GenerateAssignment.preprocessors`` with :class:`ClearPrivateMetadata` right after the stubs (nbgrader's
    ``ClearSolutions`` or the course's :class:`~coursekit.stubs.AssignmentStubs`)."""
    found = [i for i, p in enumerate(preprocessors) if p in (ClearSolutions, AssignmentStubs)]
    if not found:
        raise ValueError("GenerateAssignment.preprocessors has no ClearSolutions: nowhere to clear private metadata")
    return [*preprocessors[:found[0] + 1], ClearPrivateMetadata, *preprocessors[found[0] + 1:]]

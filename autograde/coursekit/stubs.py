"""What a release puts where a solution was, per assignment: nbgrader's ``ClearSolutions`` stubs, chosen by its plug-in.

nbgrader has one code stub and one text stub for a whole course (``c.ClearSolutions``). A course
with several assignments may need several: Chapter 4 releases ``pass`` under a Chinese or English
comment (its edition's language), nbgrader's own docs course the stock ``raise NotImplementedError()``
— and a stub is what autograde recognises as "not answered" (a solution cell still as released scores
0), so the wrong one changes grades. :class:`AssignmentStubs` is ``ClearSolutions`` asking the
assignment's plug-in first (its ``stubs(nb)``: ``{"code": …, "text": …}``, :mod:`coursekit.assignments`);
where it says nothing, the course's own ``c.ClearSolutions`` settings, as nbgrader would use them.
"""
from nbgrader.preprocessors import ClearSolutions

from .assignments import assignment_of

__all__ = ["AssignmentStubs", "with_assignment_stubs", "stubs_of", "text_stub"]


def _declared(assignment_id: str, config, nb) -> dict | None:
    return assignment_of(assignment_id, config).get("stubs")(nb) if assignment_id else None


class AssignmentStubs(ClearSolutions):
    """``ClearSolutions`` with the stubs of the assignment being released (its plug-in's), else the course's."""

    def preprocess(self, nb, resources):
        if not hasattr(self, "_course_stubs"):
            self._course_stubs = (dict(self.code_stub), self.text_stub)  # one instance serves every notebook of a run
        declared = _declared(resources.get("nbgrader", {}).get("assignment", ""), self.config, nb)
        if declared:
            self.code_stub, self.text_stub = {**self._course_stubs[0], "python": declared["code"]}, declared["text"]
        else:
            self.code_stub, self.text_stub = self._course_stubs
        return super().preprocess(nb, resources)


def with_assignment_stubs(preprocessors: list) -> list:
    """nbgrader's ``GenerateAssignment.preprocessors`` with :class:`AssignmentStubs` in ``ClearSolutions``' place."""
    return [AssignmentStubs if p is ClearSolutions else p for p in preprocessors]


def stubs_of(assignment_id: str, config, nb=None) -> dict:
    """``{"markdown": text stub, "code": python code stub}`` a release of ``assignment_id`` puts where an answer was:
    what "not answered yet" looks like."""
    declared = _declared(assignment_id, config, nb if nb is not None else {})
    if declared:
        return {"markdown": declared["text"], "code": declared["code"]}
    course = ClearSolutions(config=config)
    return {"markdown": course.text_stub, "code": dict(course.code_stub).get("python", "")}


def text_stub(assignment_id: str, config, nb=None) -> str:
    """What a written answer of ``assignment_id`` holds as released."""
    return stubs_of(assignment_id, config, nb)["markdown"]

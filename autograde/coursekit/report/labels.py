"""What a person reads for each id in the class report: names in the course's language; ids stay in the CSV files.

The gradebook and the graders' records speak in ids (``test1_scores``, ``q_lab1_no_scale``, ``softmax_wrong_axis``,
``test3.masked_rows``) and in the language each student read. The page and the terminal summary show instead, in the
course's language (``c.CourseKit.language``) whichever edition a student wrote:

* a graded cell by the heading its edition in that language gives it (:func:`coursekit.cell_names.names_in_language`);
* a mistake by its name, from the assignment's plug-in (``mistake_name(bug, lang)``; plain nbgrader: the id);
* a check by what it tests, from the assignment's grader (``describe_check(id, lang)``, optional), else as its
  record describes it;
* the assignment by its notebook's title in that language (:func:`coursekit.cell_names.assignment_title`);
* a student by their name, as the gradebook holds it (:class:`coursekit.people.People`).
"""
import functools
import os
from dataclasses import dataclass, field

from ..assignments import assignment_of
from ..cell_names import assignment_title, names_in_language
from ..people import People

__all__ = ["Labels", "labels_for"]


@dataclass(frozen=True)
class Labels:
    lang: str
    cells: dict = field(default_factory=dict)  # {grade_id: name}
    mistakes: object = None                    # bug id -> name (None: the id)
    checks: object = None                      # check id -> description ("" or None: the record's)
    same_language: bool = True                 # the records' words (a student's) are in the course's language too
    title: str = ""                              # the assignment's ("": its id)
    people: People = field(default_factory=People)  # the students' names (none: their ids)

    def cell(self, grade_id: str) -> str:
        return self.cells.get(grade_id) or grade_id

    def mistake(self, bug: str) -> str:
        return (self.mistakes(bug) if self.mistakes else "") or bug

    def check(self, check_id: str, recorded: str) -> str:
        return (self.checks(check_id) if self.checks else "") or recorded

    def student(self, student_id: str) -> str:
        return self.people.called(student_id)


def labels_for(course, assignment: str, lang: str, config=None, people: People | None = None) -> Labels:
    """The labels of ``assignment``'s report in ``lang``: its cells, its plug-in's mistake names, its grader's checks
    (a grader the config names but the course lacks: the records' own descriptions; the command says so)."""
    declared = assignment_of(assignment, config)
    grader = declared.load_grader() if declared.grader and os.path.isfile(declared.grader) else None
    describe = getattr(grader, "describe_check", None)
    return Labels(lang, names_in_language(course, assignment, lang, config),
                  functools.partial(declared.get("mistake_name"), lang=lang),
                  functools.partial(describe, lang=lang) if describe else None,
                  declared.language == lang, assignment_title(course, assignment, lang, config), people or People())

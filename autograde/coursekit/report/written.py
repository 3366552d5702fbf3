"""Per written question, what manual marking has done: marked, still to mark, mean and spread of the scores.

A written answer (a manually graded cell, ``CellInfo.autograded`` false) counts as marked when
the gradebook holds its manual score — the formgrader's or the marking page's
(:mod:`coursekit.marking`); an answer left blank is counted apart, as *not answered*, whether nbgrader scored the
untouched release stub 0 by itself or a marker confirmed it (:func:`coursekit.grades.is_blank`): the same count
before and after, and neither is work left to mark (the marking page counts them as done).
"""
import statistics
from collections import Counter
from dataclasses import dataclass, field

from ..grades import ClassGrades

__all__ = ["WrittenStat", "written_stats"]


@dataclass(frozen=True)
class WrittenStat:
    question: str
    max_score: float
    submissions: int
    marked: int
    unanswered: int                                   # left blank (coursekit.grades.is_blank): 0, not to mark
    mean: float | None                                # of the manual scores
    median: float | None
    scores: dict = field(default_factory=dict)        # {manual score: students}, lowest first

    @property
    def to_mark(self) -> int:
        return self.submissions - self.marked - self.unanswered


def written_stats(grades: ClassGrades) -> list:
    """One :class:`WrittenStat` per written question, in the gradebook's cell order."""
    stats = []
    for cell in (c for c in grades.cells if not c.autograded):
        cells = [g[cell.name] for g in grades.grades.values() if cell.name in g]
        manual = [g.manual for g in cells if g.manual is not None and not g.blank]
        unanswered = sum(g.blank for g in cells)
        stats.append(WrittenStat(cell.name, cell.max_score, len(cells), len(manual), unanswered,
                                 statistics.fmean(manual) if manual else None,
                                 statistics.median(manual) if manual else None,
                                 dict(sorted(Counter(manual).items()))))
    return stats

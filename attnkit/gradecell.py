"""What the chapter's four graded test cells show a student before submitting.

Each test cell calls :func:`run` with its TEST number and the student functions it grades:
the lab's TEST n runs exactly as in ``verify.c`` (its lines printed), the visible score is
``points × passed / total``, and when the diagnosis (:mod:`attnkit.diagnose`) finds the
function wrong on inputs verify never uses, a warning says so right under the score, so
that a full verify does not promise full marks; under nbgrader's Validate the warning also goes to stderr, which
makes Validate report the cell as failed with it (never "Success!" beside a warning). Under grading the course's grader
(instructor-only, ``autograde/grader``) runs in a process of its own, calls these functions from
there, adds its hidden checks, and the cell shows the grader's verdict instead (:data:`GRADED`). Everything is printed in the chapter's language (``lang``, default the
notebook's: :mod:`attnkit.language`).

:data:`TEST_CELLS` is the one place for each cell's grade id, stages and points; the
master notebook's nbgrader metadata and the README are checked against it.
"""
import contextlib
import io
import json
import os
import sys
from dataclasses import dataclass

from coursekit.environ import GRADED

from . import verify
from .lab import ROLE, STAGES
from .language import WORDS, marked, resolve
from .static import validating

__all__ = ["TestCell", "TEST_CELLS", "cell", "run", "shown_verdict"]


@dataclass(frozen=True)
class TestCell:
    """One graded test cell: its TEST, nbgrader grade id, points, stages, and what hidden checks add."""
    number: int
    grade_id: str
    points: float
    stages: tuple
    hidden_topics: str  # what the hidden checks feed, in a few words: a message id

    @property
    def roles(self) -> tuple:
        return tuple(ROLE[stage] for stage in self.stages)

    def topics(self, lang: str | None = None) -> str:
        return WORDS.say(resolve(lang), self.hidden_topics)


TEST_CELLS = (
    TestCell(1, "test1_scores", 4.0, ("scores",), marked("gradecell.topics_test1_scores")),
    TestCell(2, "test2_mask", 3.0, ("mask",), marked("gradecell.topics_test2_mask")),
    TestCell(3, "test3_softmax", 3.0, ("softmax",), marked("gradecell.topics_test3_softmax")),
    TestCell(4, "test4_end_to_end", 2.0, STAGES, marked("gradecell.topics_test4_end_to_end")),
)

def cell(number: int) -> TestCell:
    """The test cell of TEST ``number`` (1-4)."""
    if number not in range(1, len(TEST_CELLS) + 1):
        raise ValueError(f"TEST number must be 1-{len(TEST_CELLS)}, got {number!r}")
    return TEST_CELLS[number - 1]



def run(number: int, *fns, lang: str | None = None) -> float:
    """Print TEST ``number`` as verify does, the note and any warning; return the visible score.

    Under grading the grader (a process of its own) has already graded the cell, hidden checks
    included: the cell shows its verdict and returns its score instead.
    """
    graded = shown_verdict()
    if graded is not None:
        return graded
    text, report, warning = _shown(number, fns, lang)
    print(text + warning, end="")
    if warning and validating():  # nbgrader's Validate fails a cell that writes stderr, and shows what it wrote
        print(warning.strip(), file=sys.stderr)
    return round(cell(number).points * report.passed / report.total, 2)


def shown_verdict() -> float | None:
    """Under grading, print the grader's verdict on the cell running now and return its points; else ``None``.
    (The grading process sets :data:`coursekit.environ.GRADED` for each test cell it has graded: this module's
    cells and the practice exercises', :mod:`attnkit.exercises`.)"""
    graded = os.environ.get(GRADED)
    if not graded:
        return None
    verdict = json.loads(graded)
    print(verdict["text"], end="")
    return float(verdict["points"])


def render(number: int, fns: tuple, lang: str | None = None):
    """``(what the test cell shows, verify's report)``: TEST ``number`` as verify prints it, the note about the
    hidden checks and the diagnosis's warning, if any."""
    text, report, warning = _shown(number, fns, lang)
    return text + warning, report


def _shown(number: int, fns: tuple, lang: str | None):
    """``(verify's lines and the note, verify's report, the diagnosis's warning or "")``."""
    test, lang = cell(number), resolve(lang)
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(shown):  # a test cell must not write stderr
        report = getattr(verify, f"run_test{number}")(*fns, lang=lang)
        print(WORDS.say(lang, "gradecell.note", total=report.total, topics=test.topics(lang), points=test.points))
        warning = _warning(test, fns, lang)
    return shown.getvalue(), report, warning + "\n" if warning else ""


def _warning(test: TestCell, fns: tuple, lang: str) -> str:
    """The diagnosis of this cell's functions, as a warning under the score ('' when nothing is found)."""
    from .diagnose import diagnose, diagnose_stage, format_findings  # numpy-only callers of this module never need it

    if len(test.stages) > 1:
        findings = diagnose(*fns)
        return "" if not findings else "\n" + format_findings(findings, lang)
    findings = diagnose_stage(test.stages[0], fns[0])
    if not findings:
        return ""
    first = findings[0].text(lang).splitlines()[0]  # in words: the finding's id is for the instructor's report
    return WORDS.say(lang, "gradecell.warning", role=test.roles[0], first=first)

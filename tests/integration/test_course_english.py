"""Is the English edition graded like the Chinese one, and does its student read English only?

The shared class (tests/support/classes.py) holds both editions as nbgrader assignments: the mistake table
typed into the Chinese release (``ch04_attention``) and a few of its rows again into the English release
(``ch04_attention_en``, generated from the same master: correct, one bug per function, a delegation), by the
same students, graded by one ``make grade`` (each edition with submissions in turn). Their feedback is generated
as an instructor would, ``nbgrader generate_feedback ch04_attention_en``. Every row of the table in both editions,
graded in-process: tests/unit/test_grader.py.
"""
import re

import nbformat
import pytest

from attnkit.bugs import RULES
from attnkit.course import PRIVATE_METADATA
from attnkit.edition import foreign_text
from coursekit.language import WORDS
from support import grade_output
from support.classes import ENGLISH, FEEDBACK, FEEDBACK_ENGLISH
from support.course_tools import ASSIGNMENT, POINTS, visible_text
from support.mistakes import BY_NAME

BUG_IDS = re.compile("|".join(sorted({rule.bug for rules in RULES.values() for rule in rules}
                                     | {"_wrong_values", "_exception", "_mutates_input", "_return_code"})))


def test_does_make_grade_grade_each_edition_in_turn(shared_class):
    """One make grade: a section per edition, the English one grading its rows of the mistake table, none failed?"""
    shown = grade_output.section(shared_class.run.stdout, ENGLISH)
    assert grade_output.header(ENGLISH, count=len(shared_class.english)) in shown
    assert grade_output.graded_ok(shown) == set(shared_class.english) and grade_output.failed(shown) == {}
    assert shared_class.run.stdout.index(grade_output.header(ASSIGNMENT)) < shared_class.run.stdout.index(
        grade_output.header(ENGLISH))


@pytest.mark.parametrize("mistake", [BY_NAME[name] for name in FEEDBACK_ENGLISH], ids=FEEDBACK_ENGLISH)
def test_does_each_mistake_get_the_same_points_in_both_editions(shared_class, mistake):
    """The English edition's gradebook holds the table's points, cell by cell, as the Chinese edition's does?"""
    english, chinese = shared_class.scores(mistake.name, ENGLISH), shared_class.scores(mistake.name)
    assert tuple(english[cell] for cell in POINTS) == mistake.points == tuple(chinese[cell] for cell in POINTS)


@pytest.mark.parametrize("student", FEEDBACK_ENGLISH)
def test_is_the_english_feedback_page_english_only(shared_class, student):
    """Every word the English student reads is English (the original lab's title aside): the page's frame, the
    verify lines, the hidden checks, the diagnosis in words (no bug id), a delegation's reason, the written answers
    left as released "not answered"?"""
    text = visible_text(shared_class.feedback(student, ENGLISH).read_text(encoding="utf-8"))
    assert foreign_text(text) == [], sorted(set(foreign_text(text)))
    assert "Your score so far:" in text and WORDS.say("en", "feedback.no_response") in text
    assert "Hidden checks added at grading:" in text and "[TEST 1]" in text
    assert not BUG_IDS.search(text), BUG_IDS.search(text).group(0)
    diagnosis = BY_NAME[student].diagnosis
    if diagnosis:
        assert "Seen: on the probe" in text and "Likely cause: " in text
    if "delegate" in student:
        assert "Your code called attnkit's reference implementation or started a process" in text


@pytest.mark.parametrize("student", [s for s in FEEDBACK if s in BY_NAME])
def test_is_the_chinese_feedback_page_free_of_bug_ids(shared_class, student):
    """The Chinese edition's page says the diagnosis in words too: no bug id anywhere a student reads?"""
    text = visible_text(shared_class.feedback(student).read_text(encoding="utf-8"))
    assert not BUG_IDS.search(text), BUG_IDS.search(text).group(0)
    assert "目前得分" in text


@pytest.mark.parametrize("assignment", [ASSIGNMENT, ENGLISH])
def test_does_no_release_carry_the_masters_english(shared_class, assignment):
    """nbgrader generate_assignment in the course: no cell of either edition's release keeps what the master holds
    for the instructor's tools only (each cell's English, the reference answers' included)?"""
    nb = nbformat.read(shared_class.course / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    assert not [(c.get("id"), key) for c in nb.cells for key in PRIVATE_METADATA if key in c.metadata]

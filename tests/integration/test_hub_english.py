"""Does a student of the English edition read English only on the hub, from Validate to the feedback page?

On the session's hub (autograde/hub), the instructor generates and releases the English edition's
assignment, ``ch04_attention_en`` (nbgrader's CLI, as docs/deploy-hub.md says). In Chromium, the first
student fetches it from the Assignment List, has the classic missing-scale bug typed in, presses Validate
there (nbgrader's dialog, framed by the course's Lab extension in the notebook's language, each failing
cell by its chapter name) and submits. The instructor collects, grades with ``make grade`` in a hub
terminal (each edition in turn), generates and releases the feedback; the student fetches it and opens it
with one click on "(view feedback)": every word English, the written answers "awaiting marking", the score
the gradebook's. At the end the assignment is taken back from the exchange (the other hub modules see the
hub as they expect). Screenshots in ``artefacts/hub/``.
"""
import re

import pytest

from attnkit.bugs import RULES
from attnkit.edition import foreign_text
from coursekit.editions import edition_assignment
from coursekit.plugins.feedback_page import WORDS
from support.course_tools import POINTS, gradebook_scores
from support.hub_page import LONG, assignment_row, feedback_stamps, log_in, open_feedback, open_from_nbgrader_menu, \
    shot, type_code
from support.hub_terminal import make_grade
from support.hub_tools import instructor_nbgrader
from support.lab_page import validation_words
from support.mistakes import BY_NAME

ENGLISH = edition_assignment("en")
BUG = BY_NAME["bug_no_scale"]
BUG_IDS = re.compile("|".join(sorted(rule.bug for rules in RULES.values() for rule in rules)))


@pytest.fixture(scope="module")
def released(course_hub_plan):
    """The English edition generated and released by the instructor; taken back from the exchange afterwards."""
    for step in ("generate_assignment", "release_assignment"):
        done = instructor_nbgrader(course_hub_plan, step, ENGLISH)
        assert done.returncode == 0, done.stderr[-2000:]
    yield course_hub_plan
    instructor_nbgrader(course_hub_plan, "list", ENGLISH, "--remove")


@pytest.fixture(scope="module")
def student(released, hub_browser):
    """(name, page): the first student, logged in."""
    name = released.students[0]
    page = log_in(hub_browser, released, name)
    yield name, page
    shot(page, "english_last")
    page.context.close()


def _button(row, label):
    return row.get_by_role("button", name=re.compile(f"^{re.escape(label)}$", re.I)).first


def test_does_the_english_student_read_english_only_from_validate_to_feedback(released, student):
    plan, (name, page) = released, student
    open_from_nbgrader_menu(page, "Assignment List")
    _button(assignment_row(page, "released", ENGLISH), "fetch").click()
    fetched = assignment_row(page, "fetched", ENGLISH)
    _button(fetched, "Submit").wait_for()
    type_code(plan, name, BUG.code, assignment=ENGLISH)

    fetched.locator(".assignment-notebooks-link").click()
    _button(fetched, "Validate").click()
    dialog = page.locator(".jp-Dialog").filter(has=page.locator("#validation-message"))
    dialog.wait_for(timeout=LONG)
    shot(page, "english_validate")
    words, shown = validation_words("en"), dialog.inner_text()
    assert dialog.locator(".jp-Dialog-header").inner_text().strip() == words["title"]
    assert dialog.locator("#validation-message.validation-failed").count() == 1
    assert words["failed"] in shown and "TEST 1 · Task 2: implement student_attention_scores" in shown
    assert '"""Check that' not in shown  # each failing cell by its name, not its source
    assert foreign_text(shown) == [], shown
    dialog.get_by_role("button", name="Ok").click()
    _button(fetched, "Submit").click()
    page.locator("#submitted_assignments_list > .list_item", has_text=ENGLISH).wait_for()

    for step in ("collect",):
        done = instructor_nbgrader(plan, step, ENGLISH)
        assert done.returncode == 0, done.stderr[-2000:]
    status, graded = make_grade(plan)  # each edition with submissions, in the instructor's hub terminal
    assert status == 0 and ENGLISH in graded, graded[-3000:]
    scores = gradebook_scores(plan.course_dir(), name, assignment=ENGLISH)
    assert tuple(scores[cell] for cell in POINTS) == BUG.points
    for step in ("generate_feedback", "release_feedback"):
        done = instructor_nbgrader(plan, step, ENGLISH)
        assert done.returncode == 0, done.stderr[-2000:]

    page.reload()
    open_from_nbgrader_menu(page, "Assignment List")
    _button(assignment_row(page, "submitted", ENGLISH), "Fetch Feedback").click()
    assignment_row(page, "submitted", ENGLISH).get_by_text("(view feedback)").wait_for(timeout=LONG)
    (stamp,) = feedback_stamps(plan, name, ENGLISH)
    text = open_feedback(page, stamp, "english_feedback", shows="Your score so far")
    assert foreign_text(text) == [], sorted(set(foreign_text(text)))
    score = re.search(r"Your score so far: ([\d.]+) / ([\d.]+) points", text)
    assert score and float(score.group(1)) == pytest.approx(scores["total"]), text[:500]
    assert f"Thinking question 1: {WORDS['en']['pending']}" in text  # not marked yet: awaiting marking, not 0
    assert "Likely cause: the scale factor was left out" in text and not BUG_IDS.search(text)

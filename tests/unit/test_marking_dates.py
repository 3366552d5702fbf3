"""Do make due and make extend (coursekit.marking.dates) refuse bad input in one line with nothing changed, and
otherwise record the date, recompute the grade without regrading, and publish the dates for the students?"""
import json

import pytest
from nbgrader.api import Gradebook

from coursekit.due import extensions_of
from coursekit.language import WORDS
from coursekit.marking import dates
from coursekit.service import student_status
from support.late_class import DAY, DUE, EDITION, MASTER, autograde_penalty, config, course, submit

CONFIG = """from coursekit import late
c = get_config()
c.CourseDirectory.course_id = "late-course"
c.Exchange.root = {exchange!r}
c.CourseKit.language = "en"
c.CourseKit.timezone = "Asia/Shanghai"
c.CourseKit.assignments = {{"ch04_attention": {{}}, "ch04_attention_en": {{"edition_of": "ch04_attention", "language": "en"}}}}
c.AssignLatePenalties.plugin_class = late.LatePolicy
c.LatePolicy.penalty_method = "zero"
"""


@pytest.fixture
def late_course(tmp_path):
    """bob's English edition arrived a day late and scored 0 under "zero"."""
    (tmp_path / "nbgrader_config.py").write_text(CONFIG.format(exchange=str(tmp_path / "exchange")), encoding="utf-8")
    for name in (MASTER, EDITION):  # the course's assignments, as make release lays them out
        (tmp_path / "source" / name).mkdir(parents=True)
    url = course(tmp_path / "gradebook.db")
    submit(url, "bob", DUE + DAY, assignment=EDITION)
    autograde_penalty(url, "bob", config(penalty_method="zero"), EDITION)
    return tmp_path, url


def _run(folder, *argv):
    return dates.main([*argv, "--course", str(folder)])


def _grade(url):
    with Gradebook(url) as gradebook:
        submission = gradebook.find_submission(EDITION, "bob")
        return submission.score - submission.late_submission_penalty


@pytest.mark.parametrize("argv, said", [
    (("extend", "mallory", "2027-01-20"), "make extend: STUDENT='mallory' is not a student of this course's gradebook"),
    (("extend", "bob", "next week"), "make extend: UNTIL='next week' is not a date: write it as 2027-01-20 23:59 "
                                     "(in Asia/Shanghai) or with its zone"),
    (("extend", "bob", "2027-01-10 12:00"), "make extend: UNTIL=2027-01-10 12:00 (UTC+08:00) is not after "
                                            "ch04_attention's due date, 2027-01-15 23:59 (UTC+08:00)"),
    (("due", "soon"), "make due: DUE='soon' is not a date"),
])
def test_bad_input_is_refused_in_one_line_and_changes_nothing(late_course, capsys, argv, said):
    folder, url = late_course
    assert _run(folder, *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(said) and err.rstrip().endswith("nothing was changed.") and err.count("\n") == 1
    with Gradebook(url) as gradebook:
        assert extensions_of(gradebook, MASTER, config(), history=True) == {}
        assert gradebook.find_assignment(MASTER).duedate == DUE
    assert _grade(url) == 0.0


def test_an_extension_recomputes_the_grade_and_reaches_the_student(late_course, capsys):
    """make extend: recorded with who and why, bob's 0 becomes his 7 without regrading, and his own extension and the
    due date are where his server reads them; withdrawn, the 0 comes back."""
    folder, url = late_course
    assert _run(folder, "extend", "bob", "2027-01-17 23:59", "--reason", "ill") == 0
    out = capsys.readouterr().out
    assert "bob's ch04_attention extended until 2027-01-17 23:59 (UTC+08:00) (due 2027-01-15 23:59 (UTC+08:00)), " \
           "reason: ill; recorded by " in out
    assert "  bob (ch04_attention_en): 0 → 7 / 8" in out
    assert _grade(url) == 7.0
    exchange = folder / "exchange"
    assert student_status.dates_for(exchange, "late-course", "bob")[EDITION] == {
        "due": "2027-01-15T15:59:00+00:00", "until": "2027-01-17T15:59:00+00:00"}
    assert student_status.dates_for(exchange, "late-course", "alice")[EDITION]["until"] is None
    assert _run(folder, "extend", "bob", "none") == 0
    assert _grade(url) == 0.0
    assert json.loads((exchange / "late-course/students/bob/extensions.json").read_text()) == {}


def test_a_later_due_date_makes_the_late_submission_on_time(late_course, capsys):
    folder, url = late_course
    assert _run(folder, "due", "2027-01-20") == 0
    assert "ch04_attention, ch04_attention_en due 2027-01-20 23:59 (UTC+08:00)." in capsys.readouterr().out
    assert _grade(url) == 7.0


def test_is_a_refusal_said_in_the_courses_language(late_course, capsys):
    """A Chinese course's make extend refuses in Chinese, its reason too (not only the line around it)?"""
    folder, _ = late_course
    config_file = folder / "nbgrader_config.py"
    config_file.write_text(config_file.read_text(encoding="utf-8") + 'c.CourseKit.language = "zh"\n', encoding="utf-8")
    assert _run(folder, "extend", "mallory", "2027-01-20") == 2
    err = capsys.readouterr().err
    why = WORDS.say("zh", "dates.refused_not_a_student", student="mallory", count=3, known="alice, bob, carol")
    assert err == WORDS.say("zh", "dates.refused", command="make extend", why=why) + "\n"
    assert "is not a student" not in err

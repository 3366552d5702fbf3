"""Does the class report count, per written question, what is marked and what remains, with the manual scores?"""
from types import SimpleNamespace

from coursekit.grades import CellGrade, CellInfo, ClassGrades
from attnkit.edition import CJK
from coursekit.language import WORDS
from coursekit.report.html_page import _written
from coursekit.report.labels import Labels
from coursekit.report.written import written_stats


def _grades():
    cells = [CellInfo("test1_scores", "nb", 4.0, True), CellInfo("q_a", "nb", 1.0, False)]
    grades = {"ann": {"q_a": CellGrade(None, 1.0, 1.0)}, "bo": {"q_a": CellGrade(None, 0.5, 0.5)},
              "cy": {"q_a": CellGrade(0.0, None, 0.0, blank=True)}, "di": {"q_a": CellGrade(None, None, 0.0)},
              "ed": {"q_a": CellGrade(None, 1.0, 1.0)},
              "fy": {"q_a": CellGrade(None, 0.0, 0.0, blank=True)}}  # marked "not answered" on the marking page
    return ClassGrades("a1", sorted(grades), cells, grades)


def test_are_marked_unanswered_and_to_mark_counted_with_mean_and_spread():
    (stat,) = written_stats(_grades())
    assert (stat.question, stat.submissions, stat.marked, stat.unanswered, stat.to_mark) == ("q_a", 6, 3, 2, 1)
    assert stat.mean == 2.5 / 3 and stat.median == 1.0 and stat.scores == {0.5: 1, 1.0: 2}


def test_does_the_page_show_the_written_questions_table():
    """Each question by its heading (the id only where no heading names it), marked and to mark, in each language?"""

    html = _written(SimpleNamespace(grades=_grades()), "zh", Labels("zh", {"q_a": "思考题 1"}))
    said = lambda lang, msgid, **values: WORDS.say(lang, msgid, **values)  # noqa: E731
    assert "思考题 1" in html and "q_a" not in html and said("zh", "report.page.written.to_mark") in html
    assert said("zh", "report.page.score_times", score="1", n=2) in html
    assert "test1_scores" not in html
    assert "q_a" in _written(SimpleNamespace(grades=_grades()), "zh", Labels("zh"))
    english = _written(SimpleNamespace(grades=_grades()), "en", Labels("en"))
    assert said("en", "report.page.written.to_mark") in english and not CJK.findall(english)
    assert said("en", "report.page.score_times", score="1", n=2) in english

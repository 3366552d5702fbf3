"""Is the rubric file read as documented, and does a mistake in it name the file and the entry?"""
import pytest

from coursekit.marking.rubric import (CONTRADICTION_CAP, Point, Rubric, RubricError, contradiction_cap, load_rubrics,
                                      rubric_file, score_of, suggest)
from coursekit.paths import ASSIGNMENT, COURSE, MASTER

QUESTIONS = ["q_a", "q_b"]


def _write(tmp_path, text):
    path = rubric_file(tmp_path, ASSIGNMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_does_the_course_rubric_cover_every_written_question_with_shares_adding_up_to_one():
    import json
    cells = json.loads(MASTER.read_text(encoding="utf-8"))["cells"]
    written = [c["metadata"]["nbgrader"]["grade_id"] for c in cells
               if c["cell_type"] == "markdown" and c["metadata"].get("nbgrader", {}).get("solution")]
    rubrics = load_rubrics(COURSE, ASSIGNMENT, written)
    assert sorted(rubrics.by_question) == sorted(written) and len(written) == 8
    for rubric in rubrics.by_question.values():
        assert score_of(rubric, [True] * len(rubric.points), 1.0) == 1.0
        assert all(p.terms for p in rubric.points)  # a literal term each: what the page lists as 关键词
    # the hints themselves, against right and wrong answers in both languages: tests/unit/test_rubric_hints.py


def test_is_a_missing_file_no_rubric_rather_than_an_error(tmp_path):
    rubrics = load_rubrics(tmp_path, ASSIGNMENT, QUESTIONS)
    assert rubrics.missing_file and rubrics.by_question == {}


def test_does_a_score_add_the_ticked_shares(tmp_path):
    _write(tmp_path, '[[q_a.points]]\ntext = "一"\nshare = 0.5\nterms = ["方差"]\n'
                     '[[q_a.points]]\ntext = "二"\nshare = 0.3\n[[q_a.points]]\ntext = "三"\nshare = 0.2\n')
    rubric = load_rubrics(tmp_path, ASSIGNMENT, QUESTIONS).by_question["q_a"]
    assert score_of(rubric, [True, True, False], 1.0) == 0.8
    assert score_of(rubric, [False, True, True], 2.0) == 1.0
    assert suggest(rubric, "方差变大了") == [True, False, False]
    with pytest.raises(ValueError, match="2 ticks for 3 rubric points"):
        score_of(rubric, [True, False], 1.0)


def test_does_a_pattern_suggest_its_point_whatever_the_case(tmp_path):
    """A pattern is searched anywhere in the answer, case aside; a term as written; either one suggests the point?"""
    _write(tmp_path, "[[q_a.points]]\ntext = '一'\nshare = 0.5\npatterns = ['-inf\\s*-\\s*\\(-inf\\)', 'nan(?!o)']\n"
                     "[[q_a.points]]\ntext = '二'\nshare = 0.5\nterms = ['BLAS']\n")
    rubric = load_rubrics(tmp_path, ASSIGNMENT, QUESTIONS).by_question["q_a"]
    assert suggest(rubric, "the row gives -INF - (-inf)") == [True, False]
    assert suggest(rubric, "a NaN row; blas") == [True, True] and suggest(rubric, "nanoseconds") == [False, False]
    assert rubric.to_dict()["points"][0]["patterns"] == ["-inf\\s*-\\s*\\(-inf\\)", "nan(?!o)"]


@pytest.mark.parametrize("text, message", [
    ('[[q_a.points]]\ntext = "一"\n', r"\[\[q_a.points\]\] #1 needs share = a number in \(0, 1\]"),
    ('[[q_a.points]]\nshare = 1.0\n', r"#1 needs text ="),
    ('[[q_a.points]]\ntext = "一"\nshare = 0.5\n', r"the shares of \[q_a\] add up to 0.5, expected 1"),
    ('[[q_typo.points]]\ntext = "一"\nshare = 1.0\n', r"q_typo is not a written answer of ch04_attention \(expected one of q_a, q_b\)"),
    ('[[q_a.points]]\ntext = "一"\nshare = 1.0\nterms = "方差"\n', r"terms must be a list of non-empty strings"),
    ('[[q_a.points]]\ntext = "一"\nshare = 1.0\npatterns = ["(方差"]\n', r"pattern '\(方差' is not a regular expression"),
    ("[[q_a.points]]\ntext = '一'\nshare = 1.0\npatterns = ['(?i)nan']\n", r"uses what the page's JavaScript reads otherwise"),
    ("[[q_a.points]]\ntext = '一'\nshare = 1.0\npatterns = ['\\Anan']\n", r"uses what the page's JavaScript reads otherwise"),
    ("[[q_a.points]]\ntext = '一'\nshare = 1.0\npatterns = ['(方差)?']\n", r"matches an empty answer"),
    ('[q_a\n', r"is not valid TOML"),
])
def test_does_a_broken_rubric_name_the_file_and_what_was_expected(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(RubricError, match=message) as error:
        load_rubrics(tmp_path, ASSIGNMENT, QUESTIONS)
    assert str(path) in str(error.value)


def test_does_each_rubric_files_header_state_the_rule_for_contradictions_the_page_applies():
    """The master rubric's header says how contradictions are marked in Chinese and in English, the English edition's
    in English, each with the cap coursekit.marking.rubric applies (1/4 = CONTRADICTION_CAP)?"""

    master = rubric_file(COURSE, "ch04_attention").read_text(encoding="utf-8")
    english = rubric_file(COURSE, "ch04_attention_en").read_text(encoding="utf-8")
    header = [line for line in master.splitlines() if line.startswith("#")]
    assert any("说反了" in line and "1/4" in line for line in header)
    assert any("says the opposite of a point" in line and "1/4" in line for line in header)
    assert any("says the opposite of a point" in line and "1/4" in line for line in english.splitlines()[:5])
    assert CONTRADICTION_CAP == 1 / 4
    rubric = Rubric("q", tuple(Point(str(n), share) for n, share in enumerate((3000, 3000, 2000, 2000))))
    assert contradiction_cap(rubric, (True, True, False, True), True) == (False, False, False, True)  # 0.2 of ≤ 0.25
    assert contradiction_cap(rubric, (True, True, False, True), False) == (True, True, False, True)

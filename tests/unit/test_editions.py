"""Which assignment is which edition, what the course's tools speak, and does every text a student of the English
edition reads from the grading side say it in English, in the glossary's words (coursekit/editions.py, settings.py)?"""
import pathlib
import re

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from attnkit import glossary, guard
from attnkit.edition import CJK, STUBS
from coursekit import settings
from coursekit.editions import Edition, cell_names_in, chapter_assignments, edition_assignment, edition_of
from coursekit.grading.progress import TEXT as GRADE_TEXT
from coursekit.paths import COURSE
from coursekit.plugins import EditionStubs
from coursekit.plugins.feedback_page import WORDS
from coursekit.plugins.output_cap import TEXT as CAP_TEXT
from coursekit.plugins.validation import TEXT as VALIDATE_TEXT
from coursekit.report.html_page import TEXT as REPORT_TEXT
from coursekit.service.notice import TEXT as NOTICE_TEXT
from grader.checks import HIDDEN
from grader.outcome import TEXT as VERDICT_TEXT


@pytest.mark.parametrize("assignment, edition", [
    ("ch04_attention", Edition("ch04_attention", "zh")), ("ch04_attention_en", Edition("ch04_attention", "en")),
    ("ch04_attention_zh", Edition("ch04_attention_zh", "zh")), ("my_fr", Edition("my_fr", "zh")),
    ("en", Edition("en", "zh"))])
def test_is_each_assignment_the_edition_its_name_says(assignment, edition):
    """<master>_<language> for another edition; any other name is a master in the course's own language?"""
    assert edition_of(assignment) == edition
    assert edition_assignment(edition.language, edition.master) == assignment or edition.master == assignment


def test_are_the_chapters_assignments_the_master_first_then_each_edition():
    assert chapter_assignments() == ["ch04_attention", "ch04_attention_en"]
    with pytest.raises(ValueError, match="language must be one of 'zh', 'en': got 'fr'"):
        edition_assignment("fr")


def test_does_the_grading_service_grade_every_edition():
    """The course config's c.GradingService.assignments is the chapter's assignments (both editions)?"""
    assert settings.config_section(COURSE, "GradingService")["assignments"] == chapter_assignments()


def test_is_the_courses_language_read_and_a_wrong_one_named_with_its_file(tmp_path):
    """Chinese when the config says nothing; what c.CourseKit.language says; anything else an error naming the file,
    the setting and the languages there are?"""
    config = tmp_path / "nbgrader_config.py"
    config.write_text("c = get_config()\n")
    assert settings.course_language(tmp_path) == "zh" and settings.course_language(COURSE) == "zh"
    config.write_text('c = get_config()\nc.CourseKit.language = "en"\n')
    assert settings.course_language(tmp_path) == "en"
    config.write_text('c = get_config()\nc.CourseKit.language = "fr"\n')
    with pytest.raises(ValueError, match=re.escape(f"{config}: c.CourseKit.language must be one of 'zh', 'en', "
                                                   "got 'fr'")):
        settings.course_language(tmp_path)


def test_are_the_graded_cells_named_in_the_language_asked_for():
    """The chapter's names of the same grade ids, from each edition's source; the master's for a course without the
    English source?"""
    zh, en = (cell_names_in(COURSE, "ch04_attention_en", lang) for lang in ("zh", "en"))
    assert zh.keys() == en.keys() and zh["q_lab1_no_scale"].startswith("实验题 1")
    assert en["q_lab1_no_scale"].startswith("Lab question 1") and not CJK.findall(str(en))
    assert cell_names_in(pathlib.Path("/nonexistent"), "ch04_attention", "en") == {}


def _released(lang: str):
    solution = new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n")
    solution.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "f", "locked": False,
                                     "schema_version": 3}
    answer = new_markdown_cell("An answer")
    answer.metadata["nbgrader"] = {"solution": True, "grade": True, "grade_id": "q", "points": 1, "locked": False,
                                   "schema_version": 3}
    nb = new_notebook(cells=[solution, answer], metadata={"edition": {"language": lang}} if lang != "zh" else {})
    return EditionStubs(code_stub={"python": STUBS["zh"]["code"]}, text_stub=STUBS["zh"]["text"]).preprocess(
        nb, {"language": "python"})[0]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_each_edition_get_its_own_stubs(lang):
    """generate_assignment with the course's config: the English edition's solutions replaced by its English stubs,
    the Chinese edition's by the config's?"""
    nb = _released(lang)
    assert STUBS[lang]["code"].replace("\n", "\n    ") in nb.cells[0].source
    assert nb.cells[1].source == STUBS[lang]["text"]


def _english_texts() -> dict:
    """Every English text the grading side gives a student or an instructor, by where it is written."""
    return {"grader": VERDICT_TEXT["en"], "checks": {h.id: h.text("en") for checks in HIDDEN.values() for h in checks},
            "probe": guard.TEXT["en"], "output cap": CAP_TEXT["en"], "feedback": WORDS["en"],
            "validate": VALIDATE_TEXT["en"], "not graded": NOTICE_TEXT["en"], "make grade": GRADE_TEXT["en"],
            "report": {k: str(v) for k, v in REPORT_TEXT["en"].items()}}


def test_is_every_english_text_english_in_the_glossarys_words():
    """No Chinese character, and none of the words the glossary rules out (look-ahead mask, head size …)?"""
    found = {(where, key): text for where, texts in _english_texts().items() for key, text in texts.items()}
    assert not [where for where, text in found.items() if CJK.search(text)]
    avoided = [(where, word) for where, text in found.items() for t in glossary.TERMS for word in t.avoid
               if word in text]
    assert avoided == []


def test_would_a_chinese_word_or_an_avoided_one_be_caught():
    assert CJK.search("本项记 0 分") and "look-ahead mask" in [w for t in glossary.TERMS for w in t.avoid]

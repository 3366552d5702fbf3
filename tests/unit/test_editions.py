"""The chapter's two editions as the course config declares them, what the course's tools speak, and does every
text a student of the English edition reads from the grading side say it in English, in the glossary's words
(autograde/nbgrader_config.py, coursekit/assignments.py, settings.py)?"""
import re

import nbformat
import pytest

from attnkit import glossary
from attnkit.language import WORDS as CHAPTER_WORDS
from attnkit.edition import CJK
from coursekit import settings
from coursekit.assignments import assignment_of, default_assignments, edition_in, editions_of
from coursekit.language import WORDS as COURSE_WORDS
from coursekit.language import of_notebook
from coursekit.paths import ASSIGNMENT, COURSE, source_notebook
from coursekit.cell_names import names_in_language
from grader.checks import HIDDEN
from grader.words import WORDS as GRADER_WORDS

CONFIG = settings.course_config(COURSE)
ENGLISH = "ch04_attention_en"


def test_are_both_editions_the_chapters_assignments_with_one_plug_in_and_one_grader():
    """ch04_attention and ch04_attention_en: the same plug-in and grader, the English one an edition of the Chinese?"""
    zh, en = assignment_of(ASSIGNMENT, CONFIG), assignment_of(ENGLISH, CONFIG)
    assert (zh.plugin, zh.grader) == (en.plugin, en.grader) and zh.plugin.__name__ == "attnkit.course"
    assert (zh.master, zh.language, en.master, en.language) == (ASSIGNMENT, "zh", ASSIGNMENT, "en")
    assert editions_of(ENGLISH, CONFIG) == editions_of(ASSIGNMENT, CONFIG) == {"zh": ASSIGNMENT, "en": ENGLISH}
    assert edition_in(ENGLISH, "zh", CONFIG) == ASSIGNMENT and edition_in(ASSIGNMENT, "en", CONFIG) == ENGLISH


@pytest.mark.parametrize("assignment", [ASSIGNMENT, ENGLISH])
def test_does_each_editions_source_say_the_language_the_config_declares(assignment):
    """What the grading side reads from the notebook (metadata.edition.language) and what the config declares for a
    notebook it cannot read are the same language?"""
    nb = nbformat.read(source_notebook(COURSE, assignment), as_version=4)
    assert of_notebook(nb) == assignment_of(assignment, CONFIG).language


def test_does_a_command_told_no_assignment_take_both_editions(monkeypatch):
    """make grade / make report without ASSIGNMENT in this course: the master, then its English edition?"""
    monkeypatch.delenv("ASSIGNMENT", raising=False)
    assert default_assignments(COURSE, CONFIG) == [ASSIGNMENT, ENGLISH]


def test_does_the_grading_service_grade_every_edition():
    """The course config's c.GradingService.assignments is both editions' assignments?"""
    assert settings.course_settings(COURSE).config.GradingService.assignments == list(editions_of(ASSIGNMENT, CONFIG).values())


def test_is_the_courses_language_read_and_a_wrong_one_named_with_its_file(tmp_path):
    """Chinese when the config says nothing; what c.CourseKit.language says; anything else an error naming the file,
    the setting and the languages there are?"""
    config = tmp_path / "nbgrader_config.py"
    config.write_text("c = get_config()\n")
    assert settings.course_settings(tmp_path).language == "zh" and settings.course_settings(COURSE).language == "zh"
    config.write_text('c = get_config()\nc.CourseKit.language = "en"\n')
    assert settings.course_settings(tmp_path).language == "en"
    config.write_text('c = get_config()\nc.CourseKit.language = "fr"\n')
    with pytest.raises(ValueError, match=re.escape(f"{config}: c.CourseKit.language must be one of 'zh', 'en', "
                                                   "got 'fr'")):
        settings.course_settings(tmp_path)


def test_are_the_graded_cells_named_in_the_language_asked_for(tmp_path):
    """The names of the same grade ids from each edition's source, whichever edition is asked about; the assignment's
    own for a course without the other edition's source, none for a course without either?"""
    zh, en = (names_in_language(COURSE, ENGLISH, lang, CONFIG) for lang in ("zh", "en"))
    assert zh.keys() == en.keys() and zh["q_lab1_no_scale"].startswith("实验题 1")
    assert en["q_lab1_no_scale"].startswith("Lab question 1") and not CJK.findall(str(en))
    assert names_in_language(COURSE, ASSIGNMENT, "en", CONFIG) == en
    assert names_in_language(tmp_path, ASSIGNMENT, "en", CONFIG) == {}


def _english_texts() -> dict:
    """Every English text the grading side gives a student or an instructor, by where it is written."""
    return {"checks": {h.id: h.text("en") for checks in HIDDEN.values() for h in checks},
            **{f"{words.domain} catalogue": {msgid: str(text) for msgid, text in words.messages("en").items() if msgid}
               for words in (CHAPTER_WORDS, COURSE_WORDS, GRADER_WORDS)}}


# the static English page's link to the Chinese one, named in Chinese (as every edition's link is in its own language)
CHINESE_ON_PURPOSE = {("attnkit catalogue", "book.switch")}
# where a text names an avoided word on purpose: the instructor's note on the mask set against its wrong kind
CONTRASTS = {("attnkit catalogue", "reteach.mask_multiplied")}


def test_is_every_english_text_english_in_the_glossarys_words():
    """No Chinese character, and none of the words the glossary rules out (look-ahead mask, head size …)?"""
    found = {(where, key): text for where, texts in _english_texts().items() for key, text in texts.items()}
    assert not [where for where, text in found.items() if CJK.search(text) and where not in CHINESE_ON_PURPOSE]
    avoided = [(where, word) for where, text in found.items() for t in glossary.TERMS for word in t.avoid
               if word in text and where not in CONTRASTS]
    assert avoided == []


def test_would_a_chinese_word_or_an_avoided_one_be_caught():
    assert CJK.search("本项记 0 分") and "look-ahead mask" in [w for t in glossary.TERMS for w in t.avoid]

"""What does the course config say each assignment adds, and which assignments are editions of one another
(coursekit/assignments.py)?

A course of its own here (plain ``Config`` objects, folders under tmp_path); the repository's course, with
Chapter 4's two editions: tests/unit/test_editions.py.
"""
import pytest
from traitlets import TraitError
from traitlets.config import Config

from coursekit import settings
from coursekit.assignments import (CourseKit, Plain, assignment_of, default_assignments, edition_in, editions_of,
                                   one_work)
from coursekit.paths import COURSE

LAB = {"plugin": "attnkit.course", "grader": "/course/grader/__init__.py"}
CONFIG = Config({"CourseKit": {"assignments": {
    "lab1": LAB,
    "lab1_fr_draft": {},  # named, declaring nothing: plain nbgrader
    "lab1_en": {**LAB, "edition_of": "lab1", "language": "en"},
}}})


def test_is_an_undeclared_assignment_plain_nbgrader_in_the_default_language():
    ps1 = assignment_of("ps1", CONFIG)
    assert (ps1.plugin, ps1.grader, ps1.edition_of, ps1.master, ps1.language) == (Plain, "", "", "ps1", "zh")
    assert ps1.get("reteach")("any_bug", "en") == "" and ps1.get("cell_names")({}) == {}


def test_is_an_edition_its_masters_assignment_in_its_own_language():
    """The English edition: the master's plug-in and grader as declared, its master, its language; both editions
    found from either, the master's language first?"""
    en = assignment_of("lab1_en", CONFIG)
    assert (en.master, en.language, en.grader) == ("lab1", "en", LAB["grader"])
    assert editions_of("lab1", CONFIG) == editions_of("lab1_en", CONFIG) == {"zh": "lab1", "en": "lab1_en"}
    assert list(editions_of("lab1_en", CONFIG)) == ["zh", "en"]
    assert (edition_in("lab1", "en", CONFIG), edition_in("lab1_en", "zh", CONFIG)) == ("lab1_en", "lab1")
    assert editions_of("ps1", CONFIG) == {"zh": "ps1"} and edition_in("ps1", "en", CONFIG) == ""


@pytest.mark.parametrize("names, work", [
    ([], []), (["ps1"], ["ps1"]), (["lab1_en", "lab1"], ["lab1", "lab1_en"]), (["lab1_en"], ["lab1_en"]),
    (["lab1", "ps1"], []), (["lab1", "lab1_fr_draft"], [])])
def test_are_names_one_piece_of_work_only_when_they_are_one_assignment_or_its_editions(names, work):
    assert one_work(names, CONFIG) == work


def test_does_a_command_told_nothing_take_the_only_assignment_or_its_editions(tmp_path, monkeypatch):
    """$ASSIGNMENT first; else source/'s only assignment, or every edition of one (master first); else an error that
    names what is there?"""
    monkeypatch.delenv("ASSIGNMENT", raising=False)
    with pytest.raises(ValueError, match="holds no assignment"):
        default_assignments(tmp_path, CONFIG)
    (tmp_path / "source" / "lab1_en").mkdir(parents=True)
    (tmp_path / "source" / "lab1").mkdir()
    assert default_assignments(tmp_path, CONFIG) == ["lab1", "lab1_en"]
    (tmp_path / "source" / "ps1").mkdir()
    with pytest.raises(ValueError, match=r"has 3 assignments \(lab1, lab1_en, ps1\): name one"):
        default_assignments(tmp_path, CONFIG)
    monkeypatch.setenv("ASSIGNMENT", "ps1")
    assert default_assignments(tmp_path, CONFIG) == ["ps1"]


def test_is_a_wrong_declaration_named_where_it_is_written():
    """A key the toolkit does not know, a language it does not speak: errors naming the assignment and the key?"""
    bad = Config({"CourseKit": {"assignments": {"lab1": {"plugn": "x"}, "lab2": {"language": "fr"}}}})
    with pytest.raises(ValueError, match=r"c.CourseKit.assignments\['lab1'\] has unknown keys \['plugn'\]"):
        assignment_of("lab1", bad)
    with pytest.raises(ValueError, match=r"c.CourseKit.assignments\['lab2'\]\['language'\] must be one of 'zh', 'en', "
                                         r"got 'fr'"):
        assignment_of("lab2", bad)


def test_is_the_courses_language_a_setting_of_the_toolkit():
    """c.CourseKit.language: Chinese by default, English when set, refused (with the languages there are) else?"""
    assert CourseKit().language == "zh" and CourseKit(config=Config({"CourseKit": {"language": "en"}})).language == "en"
    with pytest.raises(TraitError, match="c.CourseKit.language must be one of 'zh', 'en', got 'fr'"):
        CourseKit(config=Config({"CourseKit": {"language": "fr"}}))


def test_is_the_similarity_threshold_a_setting_of_the_toolkit(tmp_path):
    """c.CourseKit.similarity_threshold: 0.42 by default, what the config says, and outside (0, 1] refused by the trait
    and, read by make report, with the file named?"""
    assert CourseKit().similarity_threshold == settings.SIMILARITY_THRESHOLD == 0.42
    assert CourseKit(config=Config({"CourseKit": {"similarity_threshold": 0.6}})).similarity_threshold == 0.6
    with pytest.raises(TraitError, match=r"c.CourseKit.similarity_threshold must be a number above 0 and at most 1"):
        CourseKit(config=Config({"CourseKit": {"similarity_threshold": 1.5}}))
    config = tmp_path / "nbgrader_config.py"
    config.write_text("c = get_config()\nc.CourseKit.similarity_threshold = 0.7\n")
    assert settings.course_settings(tmp_path).similarity_threshold == 0.7
    assert settings.course_settings(COURSE).similarity_threshold == 0.42
    config.write_text('c = get_config()\nc.CourseKit.similarity_threshold = 2\n')
    with pytest.raises(ValueError, match=f"{config}: c.CourseKit.similarity_threshold must be a number above 0"):
        settings.course_settings(tmp_path)
    config.write_text('c = get_config()\nc.CourseKit.similarity_threshold = "high"\n')
    with pytest.raises(ValueError, match=f"{config}: c.CourseKit.similarity_threshold expected a float"):
        settings.course_settings(tmp_path)

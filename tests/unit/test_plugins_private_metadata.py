"""Does a release carry none of the metadata its assignment keeps private in the master (coursekit/plugins/
private_metadata.py): Chapter 4's English, reference answers included?"""
import nbformat
import pytest
from nbformat.v4 import new_markdown_cell, new_notebook
from nbgrader.converters import GenerateAssignment
from traitlets.config import Config

from attnkit import course, edition
from coursekit.paths import MASTER
from coursekit.plugins import ClearPrivateMetadata, with_private_metadata_cleared
from coursekit.stubs import with_assignment_stubs
from coursekit.stubs import AssignmentStubs

CONFIG = Config({"CourseKit": {"assignments": {"ch04_attention": {"plugin": "attnkit.course"}}}})


def _answer():
    cell = new_markdown_cell("参考答案", metadata={"nbgrader": {"solution": True, "grade": True, "grade_id": "q",
                                                             "points": 1, "locked": False, "schema_version": 3},
                                                "translation": {"en": {"source": "The reference answer"}},
                                                "tags": ["kept"]})
    return new_notebook(cells=[cell], metadata={"translation": {"note": "private too"}})


def _released(assignment: str):
    return ClearPrivateMetadata(config=CONFIG).preprocess(_answer(), {"nbgrader": {"assignment": assignment}})[0]


def test_does_the_chapters_release_lose_each_cells_english_and_keep_the_rest():
    released = _released("ch04_attention")
    assert "translation" not in released.cells[0].metadata and "translation" not in released.metadata
    assert released.cells[0].metadata["tags"] == ["kept"] and released.cells[0].metadata["nbgrader"]["grade_id"] == "q"


def test_does_a_plain_assignment_keep_its_metadata_as_nbgrader_does():
    assert _released("ps1").cells[0].metadata["translation"] == {"en": {"source": "The reference answer"}}


def test_are_the_chapters_translations_where_no_release_reaches():
    """The master's English (reference answers included) lives in the chapter's catalogues, autograde/locale, outside
    every assignment's source/ folder (all of which ships), and no longer in the master's metadata; the plug-in still
    names the old key, so a master that keeps it keeps it private?"""
    assert course.PRIVATE_METADATA == (edition.KEY,)
    master = nbformat.read(MASTER, as_version=4)
    assert not any(edition.KEY in c.metadata for c in master.cells)
    catalogue = MASTER.parents[2] / "locale" / "en" / "LC_MESSAGES" / "ch04_attention.po"
    assert catalogue.is_file() and MASTER.parents[1] not in catalogue.parents


def test_is_it_cleared_right_after_the_stubs_in_the_course_config():
    default = GenerateAssignment.class_traits()["preprocessors"].default()
    steps = with_private_metadata_cleared(with_assignment_stubs(default))
    assert steps[steps.index(AssignmentStubs) + 1] is ClearPrivateMetadata and len(steps) == len(default) + 1
    with pytest.raises(ValueError, match="no ClearSolutions"):
        with_private_metadata_cleared([])

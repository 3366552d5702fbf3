"""In a real kernel, do the chapter's demo figures show what a student sees, and change no graded output under nbgrader?"""

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

from support.course_tools import pictures
from support.editions import EDITIONS, student_path

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def run_in_kernel(source: str) -> list:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    return nb.cells[0].outputs


@pytest.mark.parametrize("nbgrader, mime", [("autograde", "text/html"), ("validate", None), (None, WIDGET_MIME)])
def test_explorer_in_a_real_kernel(monkeypatch, tmp_path, nbgrader, mime):
    """In a kernel (as autograde runs it, or as a student does), is the output right and stderr empty? Under Validate,
    whose outputs nobody sees, nothing drawn at all?"""
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))
    if nbgrader:
        monkeypatch.setenv("NBGRADER_EXECUTION", nbgrader)
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    outputs = run_in_kernel("from attnkit.figures import sharpness_explorer\nsharpness_explorer()")
    assert [o.output_type for o in outputs] == (["execute_result"] if mime else [])
    assert not mime or mime in outputs[0].data
    assert (len(pictures(outputs)) == 1) == (nbgrader == "autograde")  # graded: the picture, with its text alternative


def graded_outputs(monkeypatch, tmp_path, mode, lang) -> dict:
    """Run the ``lang`` edition's student notebook; return the text every nbgrader-tracked cell printed, by cell id."""
    if mode:
        monkeypatch.setenv("NBGRADER_EXECUTION", mode)
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))
    nb = nbformat.read(student_path(lang), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    nb, _ = CoalesceStreamsPreprocessor(enabled=True).preprocess(nb, {})  # where a stream splits is chance
    return {c.id: [o.get("text", o.get("data", {}).get("text/plain")) for o in c.outputs]
            for c in nb.cells if c.cell_type == "code" and "nbgrader" in c.metadata}


@pytest.mark.parametrize("lang", EDITIONS)
def test_grading_path_changes_no_graded_output(monkeypatch, tmp_path, lang):
    """Under autograde, does every nbgrader cell (tests, verify) print exactly what it prints for the student, in
    each edition?"""
    live = graded_outputs(monkeypatch, tmp_path, None, lang)
    graded = graded_outputs(monkeypatch, tmp_path, "autograde", lang)
    assert {"test1", "test2", "test3", "test4"} <= set(graded)
    assert graded == live
    assert ("Result: 11 failed / 11 passed" in "".join(live["verify-student"])) == (lang == "en")


def test_under_grading_each_edition_shows_its_own_pictures(monkeypatch, tmp_path):
    """Both editions graded with one cache: the figure cells' PNGs differ (each in its language), and a second
    English notebook reads the English ones back?"""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("ATTNKIT_CACHE_DIR", str(tmp_path / "cache"))
    drawn = {}
    for run, lang in enumerate(("zh", "en", "en")):
        nb = nbformat.read(student_path(lang), as_version=4)
        NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
        drawn[run] = [png for c in nb.cells if c.id in ("pipeline", "multihead-grid") for png in pictures(c.outputs)]
    assert len(drawn[0]) == 3 and not set(drawn[0]) & set(drawn[1]) and drawn[1] == drawn[2]

"""Does grading keep a capped amount of each cell's output, without changing any score? (coursekit/output_cap.py)

First the bookkeeping (``OutputCap``) on hand-made kernel messages, then ``CappedExecute`` with a
real kernel on one small synthetic notebook, run twice: with nbgrader's own ``Execute`` (the
oracle: what grading saw before the cap) and with the cap. The course's config and the real
CLI are tested in test_course_output_cap.py.
"""
import base64

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader import utils
from nbgrader.preprocessors import Execute
from nbgrader.validator import Validator

from coursekit.plugins.output_cap import (GRACE, NOTE_ROOM, PER_OUTPUT, CappedExecute, OutputCap, cap_validator_outputs,
                                  content_size, cut_text, human, text_size, with_capped_execute)

NOTE = "[评分时输出过长]"


def stream(text, name="stdout"):
    return {"name": name, "text": text}


def image(nbytes):
    return {"data": {"image/png": "A" * nbytes, "text/plain": "<Figure>"}, "metadata": {}}


def result(text):
    return {"data": {"text/plain": text}, "metadata": {}, "execution_count": 1}


def error(evalue):
    return {"ename": "ValueError", "evalue": evalue, "traceback": ["Traceback", f"ValueError: {evalue}"]}


# ---------- OutputCap: the bookkeeping ----------

def test_does_an_output_under_the_limits_stay_exactly_as_it_came():
    cap = OutputCap(1_000, 5_000)
    content = stream("hello\n")
    assert cap.admit("stream", content) == (content, None)
    assert cap.admit("stream", content)[0] is content


def test_is_a_stdout_flood_cut_where_it_overflowed_with_the_note_in_stdout():
    cap = OutputCap(1_000, 5_000)
    kept, note = cap.admit("stream", stream("x" * 100_000))
    assert kept["name"] == "stdout" and kept["text"] == "x" * (1_000 - PER_OUTPUT - NOTE_ROOM)
    assert note.name == "stdout" and note.text.startswith("\n" + NOTE)
    assert "每个单元格前 1 kB、整个笔记本前 5 kB" in note.text and "往后的 100 kB 输出没有保存" in note.text
    assert cap.cell_used <= 1_000 and content_size("stream", kept) + content_size("stream", note) <= 1_000


def test_does_a_stderr_flood_keep_its_note_in_stderr():
    kept, note = OutputCap(1_000, 5_000).admit("stream", stream("e" * 100_000, "stderr"))
    assert kept["name"] == note.name == "stderr"


def test_does_the_note_count_everything_the_cell_drops_after_it():
    cap = OutputCap(1_000, 5_000)
    _, note = cap.admit("stream", stream("x" * 1_500))
    for _ in range(1_000):  # many small outputs: each one dropped, the one note grows
        assert cap.admit("stream", stream("y\n")) == (None, None)
        assert cap.admit("display_data", image(100)) == (None, None)
    kept = 1_000 - PER_OUTPUT - NOTE_ROOM
    dropped = 1_500 - kept + 1_000 * (content_size("stream", stream("y\n")) + content_size("display_data", image(100)))
    assert f"往后的 {human(dropped)} 输出没有保存" in note.text and human(dropped) == "384 kB"


def test_is_an_image_that_does_not_fit_dropped_whole_with_a_note_in_stdout():
    cap = OutputCap(1_000, 5_000)
    assert cap.admit("display_data", image(500))[1] is None
    kept, note = cap.admit("display_data", image(600))
    assert kept is None and note.name == "stdout" and note.text.startswith(NOTE)


def test_does_a_graded_cells_result_survive_a_flood_and_an_ungraded_ones_not():
    graded, ungraded = OutputCap(1_000, 5_000), OutputCap(1_000, 5_000)
    graded.start_cell(graded=True)
    for cap in (graded, ungraded):
        cap.admit("stream", stream("x" * 100_000))
    assert graded.admit("execute_result", result("0.75")) == (result("0.75"), None)
    assert ungraded.admit("execute_result", result("0.75")) == (None, None)


def test_does_the_first_stderr_after_a_stdout_flood_stay_so_a_test_cell_still_scores_0():
    cap = OutputCap(1_000, 5_000)
    cap.admit("stream", stream("x" * 100_000))
    kept, note = cap.admit("stream", stream("Warning: " + "w" * 10_000, "stderr"))
    assert note is None and kept["name"] == "stderr" and kept["text"].startswith("Warning: www")
    assert text_size(kept["text"]) < GRACE + 200 and "其余 8 kB" in kept["text"]
    assert cap.admit("stream", stream("more\n", "stderr")) == (None, None)


def test_is_a_stderr_that_fits_never_cut_and_never_duplicated():
    cap = OutputCap(1_000, 5_000)
    assert cap.admit("stream", stream("warn\n", "stderr"))[0] == stream("warn\n", "stderr")
    cap.admit("stream", stream("x" * 100_000))
    assert cap.admit("stream", stream("again\n", "stderr")) == (None, None)


def test_is_every_error_kept_with_its_long_strings_shortened():
    cap = OutputCap(1_000, 5_000)
    cap.admit("stream", stream("x" * 100_000))
    kept, note = cap.admit("error", error("y" * 50_000))
    assert note is None and kept["ename"] == "ValueError" and len(kept["traceback"]) == 2
    assert kept["traceback"][0] == "Traceback" and kept["traceback"][1].startswith("ValueError: yyy")
    assert kept["evalue"].endswith("…[评分时省略了 48 kB]") and text_size(kept["evalue"]) < GRACE + 100


def test_does_the_notebook_limit_carry_over_to_later_cells():
    cap = OutputCap(3_000, 5_250)
    for _ in range(2):
        cap.start_cell(graded=False)
        assert cap.admit("stream", stream("x" * 2_500))[1] is None
    cap.start_cell(graded=False)
    kept, note = cap.admit("stream", stream("late\n"))
    assert kept is None and "往后的 16 字节" in note.text  # "late\n", stored as one line


def test_do_cleared_outputs_stop_counting():
    cap = OutputCap(1_000, 5_000)
    for _ in range(100):  # a progress display: print, clear, print ...
        cap.clear_cell()
        assert cap.admit("stream", stream("progress " + "#" * 500 + "\n"))[1] is None
    assert cap.notebook_used == cap.cell_used < 1_000


def test_does_minus_one_mean_no_limit():
    assert OutputCap(-1, -1).admit("stream", stream("x" * 10_000_000))[1] is None
    assert OutputCap(-1, 1_000).admit("stream", stream("x" * 10_000))[1] is not None


@pytest.mark.parametrize("text", ["x" * 5_000, "软" * 5_000, "a\n" * 5_000, "é\n" * 5_000])
def test_does_cut_text_keep_the_longest_start_that_fits(text):
    kept = cut_text(text, 1_000)
    assert text.startswith(kept) and text_size(kept) <= 1_000 < text_size(text[:len(kept) + 2])


# ---------- the preprocessor, with a real kernel ----------

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
CELLS = {  # name: (source, points if graded)
    "normal": ("print('hello')\nfrom IPython.display import Image, display\ndisplay(Image(data=PNG))\n1 + 1", None),
    "progress": ("from IPython.display import clear_output\nfor i in range(300):\n"
                 "    clear_output(wait=True)\n    print('#' * 200, i)", None),
    "stdout_flood": ("print('x' * 1_000_000)\nprint('[PASS] after the flood')\n0.5", 2),
    "stderr_flood": ("import sys\nsys.stderr.write('e' * 1_000_000)\nsys.stderr.flush()\n1.0", 2),
    "many_prints": ("for i in range(5_000):\n    print(i, flush=True)", None),
    "many_images": ("for _ in range(300):\n    display(Image(data=PNG))", None),
    "long_error": ("raise ValueError('y' * 1_000_000)", 1),
    "flood_then_warning": ("print('x' * 1_000_000, flush=True)\nsys.stderr.write('Warning: ' + 'w' * 100_000)\n1.0", 2),
    "late": ("print('late')", None),
}
LIMITS = {"cell_output_limit": 5_000, "notebook_output_limit": 30_000}


def synthetic_notebook():
    nb = new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nb.cells.append(new_code_cell(f"import base64\nPNG = base64.b64decode({base64.b64encode(PNG)!r})"))
    for name, (source, points) in CELLS.items():
        cell = new_code_cell(source, metadata={"name": name})
        if points:
            cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "grade_id": name,
                                         "points": points, "schema_version": 3}
        nb.cells.append(cell)
    return nb


@pytest.fixture(scope="module")
def runs():
    """{"plain": notebook run by nbgrader's Execute, "capped": the same run by CappedExecute(**LIMITS)}."""
    plain, _ = Execute(timeout=60).preprocess(synthetic_notebook(), {})
    capped, _ = CappedExecute(timeout=60, **LIMITS).preprocess(synthetic_notebook(), {})
    return {run: {c.metadata.get("name"): c for c in nb.cells} for run, nb in (("plain", plain), ("capped", capped))}


def visible(cell):
    """(stream name, text) / (output type, data) as a reader sees them: consecutive stream pieces joined."""
    shown = []
    for out in cell.outputs:
        if out.output_type == "stream" and shown and shown[-1][0] == out.name:
            shown[-1] = (out.name, shown[-1][1] + out.text)
        else:
            shown.append((out.name, out.text) if out.output_type == "stream" else (out.output_type, out.get("data")))
    return shown


def stored_size(cell):
    return len(nbformat.writes(new_notebook(cells=[cell])).encode()) - len(nbformat.writes(new_notebook()).encode())


@pytest.mark.integration  # a real kernel: `make test` only
@pytest.mark.parametrize("name", [n for n, (_, points) in CELLS.items() if points])
def test_does_every_graded_cell_score_exactly_as_without_the_cap(runs, name):
    scores = [utils.determine_grade(runs[run][name])[0] for run in ("plain", "capped")]
    assert scores[0] == scores[1] == {"stdout_flood": 0.5, "stderr_flood": 0, "long_error": 0, "flood_then_warning": 0}[name]


@pytest.mark.integration  # a real kernel: `make test` only
@pytest.mark.parametrize("name", ["normal", "progress"])
def test_are_outputs_under_the_limits_unchanged(runs, name):
    assert visible(runs["capped"][name]) == visible(runs["plain"][name])
    assert NOTE not in str(runs["capped"][name].outputs)


@pytest.mark.parametrize("name", ["stdout_flood", "stderr_flood", "many_prints", "many_images", "long_error",
                                  "flood_then_warning"])
@pytest.mark.integration  # a real kernel: `make test` only
def test_does_each_flooding_cell_stay_near_the_cell_limit(runs, name):
    assert stored_size(runs["plain"][name]) > 50_000
    assert stored_size(runs["capped"][name]) < LIMITS["cell_output_limit"] + GRACE


@pytest.mark.integration  # a real kernel: `make test` only
def test_does_the_student_see_the_start_of_a_stdout_flood_then_the_note_in_stdout(runs):
    shown = visible(runs["capped"]["stdout_flood"])
    assert [kind for kind, _ in shown] == ["stdout", "execute_result"]
    text = shown[0][1]
    assert text.startswith("x" * 3_000) and f"x\n{NOTE}" in text and "[PASS] after the flood" not in text
    assert shown[1][1] == {"text/plain": "0.5"}


@pytest.mark.integration  # a real kernel: `make test` only
def test_does_a_stderr_flood_show_its_note_in_stderr_only(runs):
    assert [kind for kind, _ in visible(runs["capped"]["stderr_flood"])] == ["stderr", "execute_result"]
    assert NOTE in visible(runs["capped"]["stderr_flood"])[0][1]


@pytest.mark.integration  # a real kernel: `make test` only
def test_do_many_prints_and_images_end_with_one_note(runs):
    prints, images = runs["capped"]["many_prints"].outputs, runs["capped"]["many_images"].outputs
    assert visible(runs["capped"]["many_prints"])[0][1].startswith("0\n1\n2\n")
    assert [NOTE in out.get("text", "") for out in prints].count(True) == 1 and NOTE in prints[-1].text
    assert 5 < sum(out.output_type == "display_data" for out in images) < 300 and NOTE in images[-1].text


@pytest.mark.integration  # a real kernel: `make test` only
def test_is_a_long_error_kept_and_shortened(runs):
    (err,) = runs["capped"]["long_error"].outputs
    assert err.output_type == "error" and err.ename == "ValueError" and "评分时省略了" in err.evalue


@pytest.mark.integration  # a real kernel: `make test` only
def test_does_a_cell_after_the_notebook_limit_keep_only_the_note(runs):
    assert visible(runs["plain"]["late"]) == [("stdout", "late\n")]
    (note,) = runs["capped"]["late"].outputs
    assert note.name == "stdout" and note.text.startswith(NOTE) and "整个笔记本前 30 kB" in note.text


@pytest.mark.integration  # a real kernel: `make test` only
def test_does_a_stderr_after_the_cut_stay_visible_and_short(runs):
    shown = visible(runs["capped"]["flood_then_warning"])
    assert [kind for kind, _ in shown] == ["stdout", "stderr", "execute_result"]
    assert shown[1][1].startswith("Warning: www") and "其余 98 kB" in shown[1][1]


# ---------- plugging it into nbgrader ----------

@pytest.mark.integration  # a real kernel: `make test` only
def test_does_with_capped_execute_replace_only_execute():
    assert with_capped_execute([Validator, Execute, int]) == [Validator, CappedExecute, int]


@pytest.mark.integration  # a real kernel: `make test` only
def test_does_validate_run_the_capped_execute_after_cap_validator_outputs():
    """nbgrader's Validator.preprocessors is a class default (not configurable), which the call swaps.

    (test_course.py loads nbgrader_config.py into this process, which has made the call already.)
    """
    trait = Validator.class_traits()["preprocessors"]
    before = trait.default_args
    try:
        trait.default_args = ([Validator, Execute],)  # nbgrader's list, as far as the swap cares
        cap_validator_outputs()
        assert Validator().preprocessors == [Validator, CappedExecute]
        cap_validator_outputs()  # twice: still one CappedExecute
        assert Validator().preprocessors == [Validator, CappedExecute]
    finally:
        trait.default_args = before

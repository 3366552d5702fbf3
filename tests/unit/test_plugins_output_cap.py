"""Does the output cap (coursekit.plugins.output_cap) keep a capped amount of each cell's output, as bookkeeping?

``OutputCap`` on hand-made kernel messages, and how ``CappedExecute`` is plugged into nbgrader.
The preprocessor with a real kernel: tests/integration/test_output_cap_kernel.py; the course's
config and the real CLI: tests/integration/test_course_output_cap.py.
"""

import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook, output_from_msg
from nbgrader.preprocessors import Execute
from nbgrader.validator import Validator

from coursekit.plugins.output_cap import (
    GRACE,
    NOTE_ROOM,
    PER_OUTPUT,
    CappedExecute,
    OutputCap,
    cap_validator_outputs,
    content_size,
    cut_text,
    human,
    text_size,
    unchecked_output,
    with_capped_execute,
)

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


# ---------- plugging it into nbgrader ----------

DISPLAY = {"data": {"text/html": "<b>1</b>", "text/plain": "1"}, "metadata": {"isolated": True},
           "transient": {"display_id": "d1"}}
UPDATE = {"data": {"text/plain": "2"}, "metadata": {}, "transient": {"display_id": "d1"}}


def _message(msg_type, content):
    return {"header": {"msg_type": msg_type}, "msg_type": msg_type, "parent_header": {"msg_id": "m1"},
            "content": content}


def _stored(client, messages) -> list:
    """What ``client`` keeps of ``messages`` (one cell's IOPub messages) through nbclient's own dispatch."""
    client.reset_execution_trackers()
    client.clear_before_next_output = False  # as nbclient sets it when a cell starts
    cell = new_code_cell()
    client.nb = new_notebook(cells=[cell])
    for msg_type, content in messages:
        client.process_message(_message(msg_type, content), cell, 0)
    return cell.outputs


@pytest.mark.parametrize("msg_type, content", [
    ("stream", stream("x\ny\n", "stderr")), ("display_data", DISPLAY), ("execute_result", result("0.5")),
    ("error", error("boom"))])
def test_is_an_output_made_without_the_check_what_nbformat_makes(msg_type, content):
    assert unchecked_output(msg_type, content) == output_from_msg(_message(msg_type, content))


def test_does_the_capped_executor_keep_what_nbclient_keeps_display_updates_included():
    """Outputs, a display and its update_display_data, a clear_output(wait=True): the same cell as nbclient's?"""
    messages = [("stream", stream("a\n")), ("display_data", DISPLAY), ("update_display_data", UPDATE),
                ("execute_result", result("1.0")), ("clear_output", {"wait": True}), ("stream", stream("b\n")),
                ("error", error("late"))]
    capped = CappedExecute()
    capped.cap = OutputCap(-1, -1)
    assert _stored(capped, messages) == _stored(NotebookClient(new_notebook()), messages)
    assert _stored(capped, messages[:4])[1]["data"] == {"text/plain": "2"}  # the update reached the display


def test_does_with_capped_execute_replace_only_execute():
    assert with_capped_execute([Validator, Execute, int]) == [Validator, CappedExecute, int]


def test_does_validate_run_the_capped_execute_after_cap_validator_outputs():
    """nbgrader's Validator.preprocessors is a class default (not configurable), which the call swaps.

    (Importing coursekit.plugins has made the call already.)
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

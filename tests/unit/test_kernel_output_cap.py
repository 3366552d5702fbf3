"""Does the output cap (coursekit.kernel.output_cap) keep a capped amount of each cell's output, as bookkeeping?

``OutputCap`` on hand-made kernel messages. The kernel client that applies it: test_kernel_client.py;
with a real kernel: tests/integration/test_output_cap_kernel.py; the course's config and the real CLI:
tests/integration/test_course_output_cap.py.
"""

import pytest

from coursekit.kernel.output_cap import GRACE, NOTE_ROOM, PER_OUTPUT, OutputCap, content_size, cut_text, human, text_size

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
    assert cap.admit("stream", content) is content
    assert cap.admit("stream", content) is content and cap.note() is None


def test_is_a_stdout_flood_cut_where_it_overflowed_with_the_note_in_stdout():
    cap = OutputCap(1_000, 5_000)
    kept = cap.admit("stream", stream("x" * 100_000))
    note = cap.note()
    assert kept["name"] == "stdout" and kept["text"] == "x" * (1_000 - PER_OUTPUT - NOTE_ROOM)
    assert note["name"] == "stdout" and note["text"].startswith("\n" + NOTE)
    assert "每个单元格前 1 kB、整个笔记本前 5 kB" in note["text"] and "另有 100 kB 输出没有保存" in note["text"]
    assert cap.cell_used <= 1_000 and content_size("stream", kept) + content_size("stream", note) <= 1_000


def test_does_a_stderr_flood_keep_its_note_in_stderr():
    cap = OutputCap(1_000, 5_000)
    kept = cap.admit("stream", stream("e" * 100_000, "stderr"))
    assert kept["name"] == cap.note()["name"] == "stderr"


def test_does_the_note_count_everything_the_cell_drops_after_it():
    cap = OutputCap(1_000, 5_000)
    cap.admit("stream", stream("x" * 1_500))
    for _ in range(1_000):  # many small outputs: each one dropped, the one note grows
        assert cap.admit("stream", stream("y\n")) is None
        assert cap.admit("display_data", image(100)) is None
    kept = 1_000 - PER_OUTPUT - NOTE_ROOM
    dropped = 1_500 - kept + 1_000 * (content_size("stream", stream("y\n")) + content_size("display_data", image(100)))
    assert f"另有 {human(dropped)} 输出没有保存" in cap.note()["text"] and human(dropped) == "384 kB"


def test_is_an_image_that_does_not_fit_dropped_whole_with_a_note_in_stdout():
    cap = OutputCap(1_000, 5_000)
    assert cap.admit("display_data", image(500)) is not None and cap.note() is None
    assert cap.admit("display_data", image(600)) is None
    assert cap.note()["name"] == "stdout" and cap.note()["text"].startswith("\n" + NOTE)


def test_does_a_score_survive_a_flood_and_a_large_result_not():
    cap = OutputCap(1_000, 5_000)
    cap.admit("stream", stream("x" * 100_000))
    assert cap.admit("execute_result", result("0.75")) == result("0.75")
    assert cap.admit("execute_result", result("y" * 10_000)) is None


def test_does_the_first_stderr_after_a_stdout_flood_stay_so_a_test_cell_still_scores_0():
    cap = OutputCap(1_000, 5_000)
    cap.admit("stream", stream("x" * 100_000))
    kept = cap.admit("stream", stream("Warning: " + "w" * 10_000, "stderr"))
    assert cap.note()["name"] == "stdout" and kept["name"] == "stderr" and kept["text"].startswith("Warning: www")
    assert text_size(kept["text"]) < GRACE + 200 and "其余 8 kB" in kept["text"]
    assert cap.admit("stream", stream("more\n", "stderr")) is None


def test_is_a_stderr_that_fits_never_cut_and_never_duplicated():
    cap = OutputCap(1_000, 5_000)
    assert cap.admit("stream", stream("warn\n", "stderr")) == stream("warn\n", "stderr")
    cap.admit("stream", stream("x" * 100_000))
    assert cap.admit("stream", stream("again\n", "stderr")) is None


def test_is_every_error_kept_with_its_long_strings_shortened():
    cap = OutputCap(1_000, 5_000)
    cap.admit("stream", stream("x" * 100_000))
    kept = cap.admit("error", error("y" * 50_000))
    assert kept["ename"] == "ValueError" and len(kept["traceback"]) == 2
    assert kept["traceback"][0] == "Traceback" and kept["traceback"][1].startswith("ValueError: yyy")
    assert kept["evalue"].endswith("…[评分时省略了 48 kB]") and text_size(kept["evalue"]) < GRACE + 100


def test_does_the_notebook_limit_carry_over_to_later_cells():
    cap = OutputCap(3_000, 5_250)
    for _ in range(2):
        cap.start_cell()
        assert cap.admit("stream", stream("x" * 2_500)) is not None and cap.note() is None
    cap.start_cell()
    assert cap.admit("stream", stream("late\n")) is None
    assert "另有 16 字节" in cap.note()["text"]  # "late\n", stored as one line


def test_do_cleared_outputs_stop_counting():
    cap = OutputCap(1_000, 5_000)
    for _ in range(100):  # a progress display: print, clear, print ...
        cap.clear_cell()
        assert cap.admit("stream", stream("progress " + "#" * 500 + "\n")) is not None
    assert cap.notebook_used == cap.cell_used < 1_000


def test_does_minus_one_mean_no_limit():
    unlimited, limited = OutputCap(-1, -1), OutputCap(-1, 1_000)
    unlimited.admit("stream", stream("x" * 10_000_000))
    limited.admit("stream", stream("x" * 10_000))
    assert unlimited.note() is None and limited.note() is not None


@pytest.mark.parametrize("text", ["x" * 5_000, "软" * 5_000, "a\n" * 5_000, "é\n" * 5_000])
def test_does_cut_text_keep_the_longest_start_that_fits(text):
    kept = cut_text(text, 1_000)
    assert text.startswith(kept) and text_size(kept) <= 1_000 < text_size(text[:len(kept) + 2])


def test_does_an_english_notebook_read_every_note_in_english():
    """With the notebook's language English (what the grading process sets from its edition): the note, a shortened
    error and a cut stderr say the same as in Chinese, in English, with no Chinese character?"""
    from attnkit.edition import CJK

    cap = OutputCap(1_000, 5_000, lang="en")
    cap.admit("stream", stream("x" * 100_000))
    stderr = cap.admit("stream", stream("Warning: " + "w" * 10_000, "stderr"))
    error_kept = cap.admit("error", error("y" * 50_000))
    note = cap.note()["text"]
    assert note.startswith("\n[Too much output at grading]") and "the first 1 kB of each cell's output" in note
    assert error_kept["evalue"].endswith("…[48 kB left out at grading]") and "the rest of this stderr, 8 kB" in stderr["text"]
    assert not CJK.findall(note + error_kept["evalue"] + stderr["text"] + human(-1, "en") + human(12, "en"))
    assert (human(-1, "en"), human(12, "en")) == ("no limit", "12 bytes")

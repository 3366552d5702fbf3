"""Is a file a student wrote read only when it is a regular file of a sane size, and refused with its name else?"""
import json
import os

import pytest

from coursekit.student_files import UnreadableFile, read_capped, read_notebook


def test_is_a_notebook_read_as_plain_json(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "x = 1"}]}))
    assert read_notebook(path)["cells"][0]["source"] == "x = 1"


@pytest.mark.parametrize("make, expected", [
    (lambda p: p.symlink_to("/etc/passwd"), "cannot open it as a regular file"),
    (lambda p: os.mkfifo(p), "expected a regular file"),  # a pipe nobody writes to: refused, not waited on
    (lambda p: p.write_text("{" * 100), "more than the 64 expected"),
    (lambda p: p.write_text("not json"), "not a notebook's JSON"),
    (lambda p: p.write_text('{"cells": "x"}'), "a JSON object with a list of cells"),
], ids=["symlink", "fifo", "too big", "not json", "no cells"])
def test_is_a_hostile_file_refused_with_its_name_and_what_was_expected(tmp_path, make, expected):
    path = tmp_path / "nb.ipynb"
    make(path)
    with pytest.raises(UnreadableFile, match=expected) as refused:
        read_notebook(path, max_bytes=64)
    assert str(path) in str(refused.value)


def test_does_a_missing_file_say_which(tmp_path):
    with pytest.raises(UnreadableFile, match=f"{tmp_path / 'timestamp.txt'}: cannot open"):
        read_capped(tmp_path / "timestamp.txt", 100)

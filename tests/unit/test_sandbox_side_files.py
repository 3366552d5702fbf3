"""Do the files a sandboxed notebook writes next to itself come back, and only new regular files, within the caps
(coursekit/sandbox/side_files.py)? The kernel's side (collect) and the grading process's (write), on real folders."""
import base64
import logging
import os

import pytest

from coursekit.sandbox import side_files

LOG = logging.getLogger("test")


def _sent(*entries):
    return {"files": [{"path": path, "data": base64.b64encode(data).decode()} for path, data in entries], "left_out": []}


def test_are_new_regular_files_collected_and_nothing_else(tmp_path):
    (tmp_path / "old.txt").write_text("given")
    before = side_files.snapshot(str(tmp_path))
    (tmp_path / "old.txt").write_text("changed")  # existed: stays the kernel's
    (tmp_path / "new.txt").write_text("side effect")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.csv").write_text("1,2")
    (tmp_path / "other.ipynb").write_text("{}")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.pyc").write_bytes(b"x")
    os.symlink("/etc/passwd", tmp_path / "link.txt")
    sent = side_files.collect(before, root=str(tmp_path))
    assert [f["path"] for f in sent["files"]] == ["new.txt", "sub/deep.csv"]
    assert base64.b64decode(sent["files"][0]["data"]) == b"side effect"


@pytest.mark.parametrize("max_files, max_bytes, kept, left_out", [
    (1, 100, ["a.txt"], ["b.txt"]),
    (5, 15, ["a.txt"], ["b.txt"]),
    (5, 100, ["a.txt", "b.txt"], []),
])
def test_are_the_caps_kept_in_the_kernel(tmp_path, max_files, max_bytes, kept, left_out):
    before = side_files.snapshot(str(tmp_path))
    (tmp_path / "a.txt").write_text("x" * 10)
    (tmp_path / "b.txt").write_text("y" * 10)
    sent = side_files.collect(before, max_files, max_bytes, root=str(tmp_path))
    assert [f["path"] for f in sent["files"]] == kept and sent["left_out"] == left_out


# what a student's kernel could send instead of collect's answer: (entry, why it must not be written)
REFUSED = [
    (("../escape.txt", b"x"), "outside the folder"),
    (("/tmp/abs.txt", b"x"), "an absolute path"),
    (("a/../../escape.txt", b"x"), "a '..' inside"),
    (("nb.ipynb", b"{}"), "a notebook"),
    (("exists.txt", b"new"), "over a file that exists"),
    (("linked/inside.txt", b"x"), "through a link in the folder"),
    (("big.txt", b"x" * 200), "over the byte cap"),
]


@pytest.mark.parametrize("entry, why", REFUSED, ids=[why for _, why in REFUSED])
def test_does_the_grading_process_refuse_what_collect_would_never_send(tmp_path, entry, why, caplog):
    dest = tmp_path / "autograded"
    dest.mkdir()
    (dest / "exists.txt").write_text("nbgrader's")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", dest / "linked")
    assert side_files.write(_sent(entry), str(dest), LOG, max_bytes=100) == [], why
    assert (dest / "exists.txt").read_text() == "nbgrader's"
    assert not (tmp_path / "escape.txt").exists() and not list((tmp_path / "elsewhere").iterdir())
    assert "not kept" in caplog.text


def test_are_new_files_written_into_the_folder_up_to_the_count(tmp_path):
    written = side_files.write(_sent(("side-effect.txt", b"ok"), ("sub/b.txt", b"2"), ("c.txt", b"3")), str(tmp_path),
                               LOG, max_files=2)
    assert written == ["side-effect.txt", "sub/b.txt"]
    assert (tmp_path / "side-effect.txt").read_bytes() == b"ok" and not (tmp_path / "c.txt").exists()


@pytest.mark.parametrize("sent", [None, {"files": "x"}, {"files": [{"path": "a.txt", "data": "not base64!"}]},
                                  {"files": [{"path": 3, "data": ""}]}])
def test_is_garbage_from_the_kernel_written_nowhere(tmp_path, sent):
    assert side_files.write(sent, str(tmp_path), LOG) == [] and not list(tmp_path.iterdir())

"""Is a submission's seed its own: the same for the same files, new for any change, unknowable without the course's
secret, and is the secret made once, private, and never read through a link (coursekit/seeds.py)?"""
import os
import stat
import threading

import pytest

from coursekit import seeds


@pytest.fixture
def submission(tmp_path):
    folder = tmp_path / "autograded" / "s1" / "ch04_attention"
    folder.mkdir(parents=True)
    (folder / "ch04_attention.ipynb").write_text('{"cells": []}')
    (folder / "timestamp.txt").write_text("2026-12-03 10:00:00.000000 UTC")
    (folder / "data").mkdir()
    (folder / "data" / "notes.txt").write_text("mine")
    return folder


def test_is_the_seed_the_same_for_the_same_files_wherever_they_lie(submission, tmp_path):
    """A copy of the folder elsewhere (make grade's class, the serial class, a regrade) gets the same seed?"""
    secret = seeds.course_secret(tmp_path)
    copy = tmp_path / "elsewhere"
    os.system(f"cp -a {submission} {copy}")
    assert seeds.submission_seed(secret, submission) == seeds.submission_seed(secret, copy)


@pytest.mark.parametrize("change", ["a byte of the notebook", "a new file", "a renamed file", "another secret"])
def test_does_any_change_give_another_seed(submission, tmp_path, change):
    secret = seeds.course_secret(tmp_path)
    before = seeds.submission_seed(secret, submission)
    if change == "a byte of the notebook":
        (submission / "ch04_attention.ipynb").write_text('{"cells": [] }')
    elif change == "a new file":
        (submission / "table.json").write_text("{}")
    elif change == "a renamed file":
        (submission / "data" / "notes.txt").rename(submission / "data" / "note.txt")
    else:
        secret = bytes(32)
    assert seeds.submission_seed(secret, submission) != before


def test_does_a_pipe_or_a_link_in_the_folder_neither_block_nor_lead_anywhere(submission, tmp_path):
    """A FIFO and a link to a file outside: the seed comes at once, and the outside file's bytes do not count?"""
    secret, outside = seeds.course_secret(tmp_path), tmp_path / "outside.txt"
    outside.write_text("one")
    os.mkfifo(submission / "pipe")
    (submission / "link").symlink_to(outside)
    before = seeds.submission_seed(secret, submission)
    outside.write_text("two")
    assert seeds.submission_seed(secret, submission) == before


def test_is_the_secret_made_once_private_and_kept(tmp_path):
    """Made at the first call, mode 600; the same at every later call, from several threads at once?"""
    made = []
    threads = [threading.Thread(target=lambda: made.append(seeds.course_secret(tmp_path))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made)) == 1 and len(made[0]) == 32
    assert stat.S_IMODE((tmp_path / seeds.SECRET_FILE).stat().st_mode) == 0o600


def test_is_a_secret_others_can_read_or_a_link_refused_by_name(tmp_path):
    path = tmp_path / seeds.SECRET_FILE
    seeds.course_secret(tmp_path)
    path.chmod(0o644)
    with pytest.raises(PermissionError, match="mode 600"):
        seeds.course_secret(tmp_path)
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        seeds.course_secret(tmp_path)

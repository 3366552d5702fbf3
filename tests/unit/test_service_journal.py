"""What the service did, kept across restarts (coursekit.service.journal): atomic, resumable."""
import json
import os

import pytest

from coursekit.service import journal as journal_module
from coursekit.service.journal import Journal

KEY = ("ch04_attention", "s1")


def test_a_job_in_flight_survives_a_restart(tmp_path):
    """Is a job begun but not finished found by the next service, and a finished one not?"""
    path = tmp_path / "journal.json"
    first = Journal(path)
    first.begin(KEY, "grade", "t1", now=5.0)
    assert Journal(path).interrupted() == {KEY: {"timestamp": "t1", "kind": "grade", "since": 5.0}}
    first.graded(KEY, "t1", {"ok": True, "score": 12.0})
    first.finished(KEY, "t1", released_at=9.0)
    again = Journal(path)
    assert again.interrupted() == {}
    assert (again.entry(KEY).graded, again.entry(KEY).released, again.entry(KEY).releases) == ("t1", "t1", [9.0])


def test_held_feedback_and_its_release(tmp_path):
    """Is waiting feedback written down with its reason, and cleared when released?"""
    journal = Journal(tmp_path / "j.json")
    journal.finished(KEY, "t2", held={"reason": "cooldown", "until": 70.0})
    assert Journal(tmp_path / "j.json").entry(KEY).held == {"timestamp": "t2", "reason": "cooldown", "until": 70.0}
    journal.finished(KEY, "t2", released_at=71.0)
    assert Journal(tmp_path / "j.json").entry(KEY).held is None


def test_a_failed_write_leaves_the_old_journal(tmp_path, monkeypatch):
    """Killed while writing (here: the rename fails), is the previous journal intact and no temp file left?"""
    journal = Journal(tmp_path / "j.json")
    journal.graded(KEY, "t1", None)
    before = (tmp_path / "j.json").read_text()

    def broken(*args):
        raise OSError("disk gone")

    monkeypatch.setattr(journal_module.os, "replace", broken)
    with pytest.raises(OSError):
        journal.graded(KEY, "t2", None)
    assert (tmp_path / "j.json").read_text() == before
    assert json.loads(before)["entries"]["ch04_attention/s1"]["graded"] == "t1"
    assert os.listdir(tmp_path) == ["j.json"]

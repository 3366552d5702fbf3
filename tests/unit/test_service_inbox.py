"""What has been submitted (coursekit.service.inbox): nbgrader's inbound folder names, complete folders only."""
from coursekit.service.inbox import SECRET_FILE, newest_submissions, parse_name

A = "ch04_attention"


def submitted(inbound, student, clock, secret="f" * 128, assignment=A):
    folder = inbound / f"{student}+{assignment}+2026-12-01 10:00:{clock:02d}.000000 UTC+XyZ12"
    folder.mkdir(parents=True)
    if secret is not None:
        (folder / SECRET_FILE).write_text(secret)
    return folder


def test_names():
    """Are nbgrader's folder names read from the right, with and without the random part?"""
    stamp = "2026-12-01 10:00:00.000000 UTC"
    assert parse_name(f"s1+{A}+{stamp}+Ab3_") == ("s1", A, stamp)
    assert parse_name(f"s1+{A}+{stamp}") == ("s1", A, stamp)
    assert parse_name(f"a+b+{A}+{stamp}+r") == ("a+b", A, stamp)
    assert parse_name("notes.txt") is None
    assert parse_name(f"s1+{A}+not a time+r") is None


def test_newest_complete_submission_per_student(tmp_path):
    """Is each student's newest complete submission found, a half-copied one skipped, other assignments ignored?"""
    inbound = tmp_path / "inbound"
    submitted(inbound, "s1", 1)
    newest = submitted(inbound, "s1", 3)
    submitted(inbound, "s1", 5, secret="f" * 20)  # nbgrader submit still writing it
    submitted(inbound, "s2", 2, secret=None)
    submitted(inbound, "s3", 9, assignment="other")
    found = newest_submissions(inbound, [A])
    assert list(found) == [(A, "s1")]
    assert found[(A, "s1")].folder == newest and found[(A, "s1")].timestamp.endswith("10:00:03.000000 UTC")
    assert newest_submissions(tmp_path / "missing", [A]) == {}


def test_complete_folders_are_read_once(tmp_path):
    """Does a folder found complete stay complete without its secret being read again?"""
    inbound, complete = tmp_path / "inbound", set()
    folder = submitted(inbound, "s1", 1)
    assert newest_submissions(inbound, [A], complete)
    (folder / SECRET_FILE).unlink()
    assert newest_submissions(inbound, [A], complete)
    assert not newest_submissions(inbound, [A])

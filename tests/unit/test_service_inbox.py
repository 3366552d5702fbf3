"""What has been submitted (coursekit.service.inbox): nbgrader's configured exchange asked, complete submissions only."""
import pytest
from nbgrader.exchange.abc import ExchangeList
from traitlets import Bool

from coursekit.service import inbox as inbox_module
from coursekit.service.inbox import SECRET_FILE, Inbox, InboxUnreadable, folder_config, parse_name

A, COURSE_ID = "ch04_attention", "c1"


def submitted(exchange, student, clock, secret="f" * 128, assignment=A):
    folder = exchange / COURSE_ID / "inbound" / f"{student}+{assignment}+2026-12-01 10:00:{clock:02d}.000000 UTC+XyZ12"
    folder.mkdir(parents=True)
    if secret is not None:
        (folder / SECRET_FILE).write_text(secret)
    return folder


def folder_inbox(exchange):
    return Inbox(folder_config(exchange, COURSE_ID))


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
    exchange = tmp_path / "exchange"
    submitted(exchange, "s1", 1)
    newest = submitted(exchange, "s1", 3)
    submitted(exchange, "s1", 5, secret="f" * 20)  # nbgrader submit still writing it
    submitted(exchange, "s2", 2, secret=None)
    submitted(exchange, "s3", 9, assignment="other")
    inbox = folder_inbox(exchange)
    assert inbox.describe().startswith("nbgrader.exchange.default.list.ExchangeList at ")
    found = inbox.newest([A])
    assert list(found) == [(A, "s1")], f"expected s1's submission of 10:00:03 only, got {found}"
    assert found[(A, "s1")].folder == newest and found[(A, "s1")].timestamp.endswith("10:00:03.000000 UTC")
    assert inbox.secret((A, "s1"), found[(A, "s1")].timestamp) == "f" * 128
    assert folder_inbox(tmp_path / "missing").newest([A]) == {}, "no inbound folder yet should mean: nothing submitted"


def test_complete_folders_are_read_once(tmp_path):
    """Does a folder found complete stay complete without its secret being read again?"""
    exchange, complete = tmp_path / "exchange", set()
    folder = submitted(exchange, "s1", 1)
    inbox = folder_inbox(exchange)
    assert inbox.newest([A], complete)
    (folder / SECRET_FILE).unlink()
    assert inbox.newest([A], complete)
    assert not inbox.newest([A])


def test_a_student_id_with_a_plus_is_read_as_collect_reads_it(tmp_path):
    """nbgrader's listing splits a folder name at its first '+': is the student still 'a+b', as collect has it?"""
    submitted(tmp_path / "exchange", "a+b", 1)
    assert list(folder_inbox(tmp_path / "exchange").newest([A])) == [(A, "a+b")]


def test_an_inbound_folder_it_cannot_open_is_the_machines_fault(tmp_path):
    """nbgrader's own listing sees an unreadable inbound folder as empty: does the inbox say it cannot read it?"""
    inbound = submitted(tmp_path / "exchange", "s1", 1).parent
    inbound.rename(inbound.with_name("elsewhere"))
    inbound.write_text("not a folder")
    with pytest.raises(InboxUnreadable, match="the exchange's inbound folder cannot be read"):
        folder_inbox(tmp_path / "exchange").newest([A])


STAMP = "2026-12-01 10:00:07.000000 UTC"


class ServerList(ExchangeList):
    """An exchange plug-in that keeps no folders (as ngshare): what it lists has arrived; ``broken``: it logs an error."""
    broken = Bool(False).tag(config=True)

    def init_src(self):
        pass

    def init_dest(self):
        pass

    def copy_files(self):
        pass

    def list_files(self):
        if self.broken:
            self.log.error("ngshare service returned invalid status code 502.")
            return []
        return [{"course_id": COURSE_ID, "student_id": "s9", "assignment_id": A, "status": "submitted",
                 "submissions": [{"course_id": COURSE_ID, "student_id": "s9", "assignment_id": A,
                                  "timestamp": STAMP, "status": "submitted", "notebooks": []}]}]


def plug_in(tmp_path, broken=False):
    config = folder_config(tmp_path / "no-such-exchange", COURSE_ID)
    config.ExchangeFactory.list = ServerList
    config.ServerList.broken = broken
    return Inbox(config)


def test_an_exchange_plug_in_is_what_the_inbox_asks(tmp_path):
    """With c.ExchangeFactory.list set to a plug-in, are its submissions the ones found (no folder, no secret)?"""
    inbox = plug_in(tmp_path)
    found = inbox.newest([A])
    assert list(found) == [(A, "s9")] and found[(A, "s9")].timestamp == STAMP and found[(A, "s9")].folder is None
    assert inbox.secret((A, "s9"), STAMP) == "", "a plug-in keeps no inbound folder to read a secret from"
    assert "ServerList" in inbox.describe()


def test_a_plug_in_that_logs_an_error_cannot_say_what_was_submitted(tmp_path):
    """ngshare's classes log a failed request and list what they got: is that the machine's fault, not 'nothing'?"""
    with pytest.raises(InboxUnreadable, match="invalid status code 502"):
        plug_in(tmp_path, broken=True).newest([A])


def test_an_unchanged_inbound_folder_is_not_listed_again(tmp_path, monkeypatch):
    """nbgrader's listing costs ≈ 0.3 ms a submission, twice a second: is it asked again only when inbound/ changed
    (a new submission) or RELIST_SECONDS passed, and is a secret written meanwhile still seen?"""
    exchange, complete = tmp_path / "exchange", set()
    submitted(exchange, "s1", 1)
    late = submitted(exchange, "s2", 2, secret=None)
    inbox = folder_inbox(exchange)
    calls = []
    start = inbox.lister.start
    monkeypatch.setattr(inbox.lister, "start", lambda: calls.append(1) or start())
    assert list(inbox.newest([A], complete)) == [(A, "s1")] and len(calls) == 1
    (late / SECRET_FILE).write_text("f" * 128)  # nbgrader submit finishes s2's folder: inbound/ itself unchanged
    assert sorted(inbox.newest([A], complete)) == [(A, "s1"), (A, "s2")] and len(calls) == 1
    submitted(exchange, "s3", 3)
    assert len(inbox.newest([A], complete)) == 3 and len(calls) == 2, "a new submission should be listed at once"
    monkeypatch.setattr(inbox_module.time, "monotonic", lambda: inbox._listed_at + inbox_module.RELIST_SECONDS + 1)
    inbox.newest([A], complete)
    assert len(calls) == 3, f"expected a listing after {inbox_module.RELIST_SECONDS} s even with nothing changed"

"""What has been submitted (coursekit.service.inbox): the folder exchange read through coursekit.inbound, another
exchange through its configured lister; complete, acceptable submissions only, the refused ones said."""
import os

import pytest
from nbgrader.exchange.abc import ExchangeList
from traitlets import Bool

from coursekit.service import inbox as inbox_module
from coursekit.service.inbox import SECRET_FILE, Inbox, InboxUnreadable, folder_config, parse_name
from support.exchange_rows import arrival

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
    assert inbox.describe().startswith("coursekit.inbound at ")
    found = inbox.newest([A])
    assert list(found) == [(A, "s1")], f"expected s1's submission of 10:00:03 only, got {found}"
    assert found[(A, "s1")].folder == newest and found[(A, "s1")].timestamp == arrival(newest)  # never the name's
    assert inbox.secret((A, "s1"), found[(A, "s1")].timestamp) == "f" * 128
    assert folder_inbox(tmp_path / "missing").newest([A]) == {}, "no inbound folder yet should mean: nothing submitted"


def test_complete_folders_are_read_once(tmp_path):
    """Does a folder found complete stay complete without its secret being read again?"""
    exchange = tmp_path / "exchange"
    folder = submitted(exchange, "s1", 1)
    inbox = folder_inbox(exchange)
    assert inbox.newest([A])
    (folder / SECRET_FILE).unlink()
    assert inbox.newest([A])
    assert not folder_inbox(exchange).newest([A])


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


def test_an_exchange_plug_in_is_what_the_inbox_asks(tmp_path, monkeypatch):
    """With c.ExchangeFactory.list set to a plug-in (ngshare's), are its submissions the ones found, with no folder
    examined and no student's file opened (a server's exchange keeps none the service could read)?"""
    for name in ("examine", "read_secret"):
        monkeypatch.setattr(inbox_module.inbound, name, lambda *args: pytest.fail("a student's file was looked at"))
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
    """Examining inbound/ costs ≈ 0.1 ms a submission, twice a second: is it done again only when inbound/ changed
    (a new submission) or RELIST_SECONDS passed, and is a secret written meanwhile still seen?"""
    exchange = tmp_path / "exchange"
    submitted(exchange, "s1", 1)
    late = submitted(exchange, "s2", 2, secret=None)
    inbox = folder_inbox(exchange)
    calls = []
    examine = inbox_module.inbound.examine
    monkeypatch.setattr(inbox_module.inbound, "examine", lambda *args: calls.append(1) or examine(*args))
    assert list(inbox.newest([A])) == [(A, "s1")] and len(calls) == 1
    (late / SECRET_FILE).write_text("f" * 128)  # nbgrader submit finishes s2's folder: inbound/ itself unchanged
    assert sorted(inbox.newest([A])) == [(A, "s1"), (A, "s2")] and len(calls) == 1
    submitted(exchange, "s3", 3)
    assert len(inbox.newest([A])) == 3 and len(calls) == 2, "a new submission should be listed at once"
    monkeypatch.setattr(inbox_module.time, "monotonic", lambda: inbox._listed_at + inbox_module.RELIST_SECONDS + 1)
    inbox.newest([A])
    assert len(calls) == 3, f"expected a listing after {inbox_module.RELIST_SECONDS} s even with nothing changed"


@pytest.mark.timeout(10)  # a pipe opened by mistake would block the poll: fail, do not hang
def test_are_hostile_folders_refused_and_everyone_else_found(tmp_path):
    """A FIFO secret, a secret linked to /dev/zero, a notebook linked to the master: each refused with its reason
    (kept in inbox.refused), never opened, while every other student's submission is found, as are their secrets."""
    exchange = tmp_path / "exchange"
    fifo, zero, master = (submitted(exchange, s, k, secret=None) for k, s in enumerate(("f1", "z1", "m1"), 1))
    os.mkfifo(fifo / SECRET_FILE)
    (zero / SECRET_FILE).symlink_to("/dev/zero")
    (master / SECRET_FILE).write_text("f" * 128)
    (master / f"{A}.ipynb").symlink_to(tmp_path / "source.ipynb")
    honest = [submitted(exchange, f"s{k}", 10 + k) for k in range(3)]
    inbox = folder_inbox(exchange)
    found = inbox.newest([A])
    assert sorted(found) == [(A, "s0"), (A, "s1"), (A, "s2")] and sorted(f.folder for f in found.values()) == honest
    assert inbox.secret((A, "s1"), found[(A, "s1")].timestamp) == "f" * 128
    assert {name.split("+")[0]: refusal.reason for name, refusal in inbox.refused.items()} == {
        "f1": f"{SECRET_FILE} is a named pipe (FIFO): only regular files and folders leave inbound/, and no link is "
              "followed",
        "z1": f"{SECRET_FILE} is a symbolic link: only regular files and folders leave inbound/, and no link is followed",
        "m1": f"{A}.ipynb is a symbolic link: only regular files and folders leave inbound/, and no link is followed"}


@pytest.mark.timeout(10)
def test_is_a_secret_swapped_for_a_pipe_after_listing_refused_not_waited_on(tmp_path):
    """The race: the folder passed examination, then its secret became a FIFO before the poll read it."""
    exchange = tmp_path / "exchange"
    folder = submitted(exchange, "s1", 1, secret=None)
    inbox = folder_inbox(exchange)
    assert inbox.newest([A]) == {} and inbox.refused == {}
    os.mkfifo(folder / SECRET_FILE)  # inbound/ itself unchanged: the listing is not done again
    assert inbox.newest([A]) == {}
    assert inbox.refused[folder.name].kind == "file" and "named pipe" in inbox.refused[folder.name].reason

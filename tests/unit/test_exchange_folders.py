"""Does the course's collect (coursekit.exchange.CheckedCollect) take each student's newest acceptable folder,
refuse the rest with a warning and go on with the class; and does its inbound listing (CheckedList) leave out what
it refuses? nbgrader's own exchange classes, in-process, on a throw-away exchange; the CLI: test_exchange.py."""
import logging

import pytest
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from coursekit.exchange import CheckedCollect, CheckedList
from support.exchange_rows import BY_NAME, Course, build

pytestmark = pytest.mark.timeout(20)
A, COURSE_ID = "ch04_attention", "c1"


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.setattr(CheckedCollect, "_duedate", lambda self: None)  # nbgrader's gradebook: 1.2 s to make; no due date
    config = Config()
    config.Exchange.root = str(tmp_path / "exchange")
    config.CourseDirectory.root = str(tmp_path / "course")
    config.CourseDirectory.course_id, config.CourseDirectory.assignment_id = COURSE_ID, A
    config.CourseDirectory.db_url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    master = tmp_path / "course" / "source" / A / f"{A}.ipynb"
    master.parent.mkdir(parents=True)
    master.write_text("the master")
    (tmp_path / "exchange").mkdir(mode=0o777)
    inbound = tmp_path / "exchange" / COURSE_ID / "inbound"
    return config, inbound, Course(master, master, A, 5), tmp_path / "course" / "submitted"


def _run(kind, config, caplog, **traits):
    step = kind(coursedir=CourseDirectory(config=config), authenticator=Authenticator(config=config), config=config,
                log=logging.getLogger("exchange-test"), **traits)
    with caplog.at_level(logging.INFO, "exchange-test"):
        return step, step.start()


def test_does_collect_take_the_newest_acceptable_folder_and_go_on_past_the_rest(world, caplog):
    config, inbound, course, submitted = world
    build(BY_NAME["honest"], inbound, "s1", course, b"first", second=1)
    build(BY_NAME["link_to_master"], inbound, "s1", course, b"later", second=2)  # s1's newest: refused
    build(BY_NAME["fifo_notebook"], inbound, "s2", course, b"", second=3)
    (inbound / f"s3+{A}+not a time+x").mkdir()  # nbgrader's own collect stops the class here
    build(BY_NAME["honest"], inbound, "s4", course, b"fourth", second=4)
    step, _ = _run(CheckedCollect, config, caplog, update=True)
    assert sorted(p.name for p in submitted.iterdir()) == ["s1", "s4"]
    assert (submitted / "s1" / A / f"{A}.ipynb").read_bytes() == b"first"
    assert sorted((r.student, r.kind) for r in step.refused) == [("", "name"), ("s1", "kind"), ("s2", "kind")]
    assert step.copy_refused == {}
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 3 and all(w.startswith("Refused, never collected: inbound/") for w in warned), warned
    assert any(f"{A}.ipynb is a symbolic link" in w for w in warned)


def test_does_update_replace_a_collection_only_with_a_newer_acceptable_one(world, caplog):
    config, inbound, course, submitted = world
    build(BY_NAME["honest"], inbound, "s1", course, b"first", second=1)
    _run(CheckedCollect, config, caplog, update=True)
    build(BY_NAME["huge_sparse_file"], inbound, "s1", course, b"second", second=2)
    _run(CheckedCollect, config, caplog, update=True)
    assert (submitted / "s1" / A / f"{A}.ipynb").read_bytes() == b"first"
    build(BY_NAME["honest"], inbound, "s1", course, b"third", second=3)
    _run(CheckedCollect, config, caplog, update=False)
    assert (submitted / "s1" / A / f"{A}.ipynb").read_bytes() == b"first", "without --update nothing is replaced"
    _run(CheckedCollect, config, caplog, update=True)
    assert (submitted / "s1" / A / f"{A}.ipynb").read_bytes() == b"third"


def test_does_the_inbound_listing_leave_out_what_collect_would_refuse(world, caplog):
    config, inbound, course, _ = world
    honest = build(BY_NAME["honest"], inbound, "s1", course, b"{}", second=1)
    fifo = build(BY_NAME["fifo_secret"], inbound, "s2", course, b"{}", second=2)
    _, listed = _run(CheckedList, config, caplog, inbound=True)
    assert [s["path"] for a in listed for s in a["submissions"]] == [str(honest)]
    assert any(fifo.name in r.getMessage() and "named pipe" in r.getMessage() for r in caplog.records)


def test_does_the_service_collect_through_coursekit_on_any_folder_exchange(tmp_path):
    """The service's collect step: the course's CheckedCollect on nbgrader's folder exchange whatever the config names
    (plain nbgrader's included), an exchange plug-in's own class elsewhere (ngshare's)."""
    from nbgrader.exchange import ExchangeFactory
    from nbgrader.exchange.abc import ExchangeCollect as AnyCollect
    from nbgrader.exchange.default import ExchangeCollect as FolderCollect

    from coursekit.service.steps import _collect_class

    class ServerCollect(AnyCollect):
        pass

    for configured, used in ((None, CheckedCollect), (FolderCollect, CheckedCollect), (CheckedCollect, CheckedCollect),
                             (ServerCollect, ServerCollect)):
        config = Config()
        if configured is not None:
            config.ExchangeFactory.collect = configured
        assert _collect_class(ExchangeFactory(config=config)) is used, configured

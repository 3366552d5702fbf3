"""Does anything leave the exchange's inbound/ but what coursekit.inbound accepts, and is every hostile folder of the
exchange table (tests/support/exchange_rows.py) refused with its reason, never read, without holding anyone up?

Real folders on disk: links to the course's master and grader and to /dev/zero, FIFOs, hard links, sparse files,
folders made by another Unix user (root only, as CI runs).
"""
import datetime
import json
import os
import pathlib
import pwd
import stat
import tempfile

import pytest

from coursekit import inbound
from coursekit.inbound import Limits, Refused, utc
from coursekit.upstream.nbgrader import SECRET_FILE
from support.exchange_rows import BY_NAME, IMPOSTOR, ROWS, Course, arrival, build, require_root, submission_name

pytestmark = pytest.mark.timeout(10)  # a pipe opened by mistake would block: fail, do not hang
A = "ch04_attention"
NOTEBOOK = json.dumps({"cells": [{"cell_type": "code", "source": "answer = 42"}]}).encode()
MASTER_TEXT, GRADER_TEXT = "the master's solutions", "the grader's hidden checks"
LIMITS = Limits(max_files=20)  # the many-files row makes one more than this (the default, 200, costs 0.1 s)


@pytest.fixture
def course(tmp_path) -> Course:
    master = tmp_path / "course" / "source" / A / f"{A}.ipynb"
    master.parent.mkdir(parents=True)
    master.write_text(MASTER_TEXT)
    grader = tmp_path / "course" / "grader" / "checks.py"
    grader.parent.mkdir()
    grader.write_text(GRADER_TEXT)
    return Course(master, grader, A, LIMITS.max_files)


def _inbound(tmp_path) -> pathlib.Path:
    return tmp_path / "exchange" / "c1" / "inbound"


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_is_each_row_of_the_exchange_table_decided_as_it_says(tmp_path, course, row):
    """Honest: accepted and collected byte for byte. Hostile: refused with the kind and the words the row names,
    never collected, and a classmate's own earlier folder still the one that counts."""
    if row.impostor:
        require_root()
    where = _inbound(tmp_path)
    genuine = build(BY_NAME["honest"], where, "s2", course, NOTEBOOK, second=1) if row.impostor else None
    folder = build(row, where, "s2" if row.impostor else "s1", course, NOTEBOOK, second=2)
    accepted, refused = inbound.examine(where, LIMITS, A)
    if not row.refused:
        assert [f.name for f in accepted] == [folder.name] and refused == []
        dest = tmp_path / "submitted" / "s1" / A
        copied = inbound.collect(accepted[0], dest, LIMITS)
        assert copied == len([p for p in folder.rglob("*") if p.is_file()]) and \
            (dest / f"{A}.ipynb").read_bytes() == NOTEBOOK
        _is_only_names_and_bytes(folder, dest)
        return
    assert [(r.folder, r.kind) for r in refused] == [(folder.name, row.refused)], refused
    assert row.names in refused[0].reason, refused[0].reason
    assert [f.path for f in accepted] == ([genuine] if genuine else [])


def _is_only_names_and_bytes(folder: pathlib.Path, dest: pathlib.Path) -> None:
    """What collect made of ``folder``: its time when it arrived (what nbgrader's autograde records), never what its
    name or timestamp.txt claim; every file 0644 and folder 0755, all dated then: no bit the student chose."""
    when = arrival(folder)
    assert (dest / "timestamp.txt").read_text() == when != (folder / "timestamp.txt").read_text()
    assert when not in folder.name
    microseconds = (utc(when) - utc("1970-01-01 00:00:00 UTC")) // datetime.timedelta(microseconds=1)
    for path in [dest, *dest.rglob("*")]:
        info = path.stat()
        assert stat.S_IMODE(info.st_mode) == (0o755 if path.is_dir() else 0o644), path
        assert info.st_mtime_ns // 1000 == microseconds, path
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == \
        sorted(str(p.relative_to(dest)) for p in dest.rglob("*"))


SWAPS = {"pipe": lambda p, master: os.mkfifo(p), "link to the master": lambda p, master: p.symlink_to(master),
         "grown": lambda p, master: p.write_bytes(b"x" * 2000)}


def _swapper(notebook: pathlib.Path, how: str, course: Course):
    """What swaps ``notebook`` (when a file of its name is about to be opened) the way ``how`` says."""
    def swap(name):
        if name == notebook.name:
            notebook.unlink()
            SWAPS[how](notebook, course.master)
    return swap


@pytest.mark.parametrize("how", SWAPS)
@pytest.mark.parametrize("when", ["after examine", "between lstat and open"])
def test_is_a_file_swapped_after_it_was_checked_refused_and_the_last_collection_kept(tmp_path, course, monkeypatch,
                                                                                      how, when):
    """A notebook swapped for a pipe, a link to the master, or one grown past the cap, after examine() or inside
    collect() just before the file is opened (the race): refused, never read, and submitted/ keeps what it held."""
    where, dest, limits = _inbound(tmp_path), tmp_path / "submitted" / "s1" / A, Limits(max_bytes=1500)
    build(BY_NAME["honest"], where, "s1", course, NOTEBOOK, second=1)
    inbound.collect(inbound.examine(where, limits, A)[0][0], dest, limits)
    second = build(BY_NAME["honest"], where, "s1", course, b"{}", second=2)
    folder = max(inbound.examine(where, limits, A)[0], key=lambda f: f.when)
    swap = _swapper(second / f"{A}.ipynb", how, course)
    if when == "after examine":
        swap(f"{A}.ipynb")
    else:
        monkeypatch.setattr(inbound, "open_regular", lambda name, *args, real=inbound.open_regular: (
            swap(name), real(name, *args))[1])
    with pytest.raises(Refused, match=f"{A}.ipynb") as refused:
        inbound.collect(folder, dest, limits)
    if when != "after examine":
        assert refused.value.refusal.kind == "file" and "was refused as it was read" in str(refused.value)
    assert (dest / f"{A}.ipynb").read_bytes() == NOTEBOOK and not list(dest.parent.glob(".*"))


@pytest.mark.parametrize("secret, expected", [
    (None, ""), ("ab" * 10, ""), ("ab" * 64, "ab" * 64), ("ab" * 64 + "\n", "ab" * 64)],
    ids=["not yet", "half written", "whole", "with a newline"])
def test_is_a_secret_read_once_whole_and_only_then(tmp_path, course, secret, expected):
    where = _inbound(tmp_path)
    folder = build(BY_NAME["honest"], where, "s1", course, NOTEBOOK)
    (folder / SECRET_FILE).unlink()
    if secret is not None:
        (folder / SECRET_FILE).write_text(secret)
    assert inbound.read_secret(inbound.examine(where, Limits())[0][0]) == expected


@pytest.mark.parametrize("swap", [os.mkfifo, lambda p: p.symlink_to("/dev/zero"), lambda p: p.write_text("z" * 128)],
                         ids=["fifo", "dev zero", "not hex"])
def test_is_a_secret_swapped_after_examine_refused_without_blocking(tmp_path, course, swap):
    where = _inbound(tmp_path)
    folder = build(BY_NAME["honest"], where, "s1", course, NOTEBOOK)
    examined = inbound.examine(where, Limits())[0][0]
    (folder / SECRET_FILE).unlink()
    swap(folder / SECRET_FILE)
    with pytest.raises(Refused, match=SECRET_FILE):
        inbound.read_secret(examined)


def test_are_names_nbgrader_cannot_parse_refused_not_fatal(tmp_path, course):
    """nbgrader's collect stops the whole class on a name it cannot parse (parse_utc raises): here it is refused."""
    where = _inbound(tmp_path)
    honest = build(BY_NAME["honest"], where, "s1", course, NOTEBOOK)
    (where / f"s2+{A}+not a time+x").mkdir()
    (where / f"s3+{A}+garbage").write_text("a file, not a folder")
    accepted, refused = inbound.examine(where, Limits(), A)
    assert [f.path for f in accepted] == [honest]
    assert sorted((r.folder, r.kind) for r in refused) == [(f"s2+{A}+not a time+x", "name"),
                                                             (f"s3+{A}+garbage", "name")]


def test_is_only_the_assignment_and_student_asked_for_examined(tmp_path, course):
    where = _inbound(tmp_path)
    mine = build(BY_NAME["honest"], where, "s1", course, NOTEBOOK)
    build(BY_NAME["fifo_secret"], where, "s2", course, NOTEBOOK)
    (where / submission_name("s1", "other", 3)).mkdir()
    (where / submission_name(f"s1+{A}+x", A, 4)).mkdir()  # student "s1+ch04_attention+x", whom s1's glob matches
    assert inbound.examine(where, Limits(), A, "s1") == \
        ([inbound.Folder(mine, "s1", A, mine.name.split("+")[2], arrival(mine))], [])


def test_are_excluded_entries_left_out_of_the_copy_and_their_contents_too(tmp_path, course):
    """nbgrader's CourseDirectory.ignore (.ipynb_checkpoints, __pycache__ …) as collect applies it."""
    where, dest = _inbound(tmp_path), tmp_path / "submitted" / "s1" / A
    folder = build(BY_NAME["honest"], where, "s1", course, NOTEBOOK)
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "old.ipynb").write_text("{}")
    (folder / "data").mkdir()
    (folder / "data" / "x.csv").write_text("1,2")
    copied = inbound.collect(inbound.examine(where, Limits())[0][0], dest, Limits(),
                             lambda name, is_file, size: name == ".ipynb_checkpoints")
    assert copied == 4 and sorted(str(p.relative_to(dest)) for p in dest.rglob("*")) == \
        ["ch04_attention.ipynb", "data", "data/x.csv", SECRET_FILE, "timestamp.txt"]


def test_is_a_missing_inbound_nothing_and_an_unreadable_one_an_error(tmp_path):
    assert inbound.examine(tmp_path / "nowhere", Limits()) == ([], [])
    (tmp_path / "inbound").write_text("not a folder")
    with pytest.raises(NotADirectoryError):
        inbound.examine(tmp_path / "inbound", Limits())


def test_is_a_folder_made_by_its_own_student_accepted_and_one_of_nobody_refused(tmp_path, course):
    """Owners where the exchange can know them: the student the name claims (accepted), a uid no user has
    (refused: whose it is cannot be known), a file inside owned by someone else (refused); owner checks off
    (nbgrader's c.ExchangeCollect.check_owner): the impostor's folder too is accepted."""
    require_root()
    where, user = _inbound(tmp_path), pwd.getpwnam(IMPOSTOR)
    own = build(BY_NAME["honest"], where, IMPOSTOR, course, NOTEBOOK, second=1)
    stranger = build(BY_NAME["honest"], where, "s2", course, NOTEBOOK, second=2)
    mixed = build(BY_NAME["honest"], where, IMPOSTOR, course, NOTEBOOK, second=3)
    for path in [own, *own.iterdir(), mixed, *mixed.iterdir()]:
        os.chown(path, user.pw_uid, user.pw_gid)
    os.chown(mixed / f"{A}.ipynb", 0, 0)  # the master's owner, say
    os.chown(stranger, 4_242_424, 4_242_424)
    accepted, refused = inbound.examine(where, Limits(), A)
    assert [f.path for f in accepted] == [own]
    assert {r.folder: (r.kind, r.reason) for r in refused} == {
        stranger.name: ("stranger", "named for s2 but owned by uid 4242424 (no user of this machine): "
                                    "whose it is cannot be known"),
        mixed.name: ("other_owner", f"{A}.ipynb belongs to root (uid 0), not to the folder's owner")}
    assert len(inbound.examine(where, Limits(check_owner=False), A)[0]) == 3


def _as_nobody(work) -> dict:
    """``work()``'s result (a dict of str) as computed by a child process running as the Unix user nobody."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(pwd.getpwnam(IMPOSTOR).pw_gid)
            os.setuid(pwd.getpwnam(IMPOSTOR).pw_uid)
            os.write(write, json.dumps(work()).encode())
        except BaseException as error:  # noqa: B036 -- said to the parent, whatever it was
            os.write(write, json.dumps({"the child failed": repr(error)}).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        said = fh.read()
    os.waitpid(pid, 0)
    return json.loads(said)


def test_is_what_the_reader_may_not_read_refused_as_the_students_not_the_machines(course):
    """A service that runs as the instructor meets a student's subfolder or secret of mode 000: that folder is refused
    (its student's doing), not an error that stops everyone (nbgrader's listing failed on it: the machine's fault)."""
    require_root()
    with tempfile.TemporaryDirectory() as top:  # pytest's own folders are closed to other users
        os.chmod(top, 0o755)
        _check_unreadable_refused(pathlib.Path(top) / "inbound", course)


def _check_unreadable_refused(where: pathlib.Path, course: Course) -> None:
    private = build(BY_NAME["honest"], where, "s1", course, NOTEBOOK, second=1)
    (private / "notes").mkdir(mode=0)
    sealed = build(BY_NAME["honest"], where, "s2", course, NOTEBOOK, second=2)
    (sealed / SECRET_FILE).chmod(0)

    def look() -> dict:
        accepted, refused = inbound.examine(where, LIMITS)
        said = {r.folder: f"{r.kind}: {r.reason}" for r in refused}
        for folder in accepted:
            try:
                said[folder.name] = inbound.read_secret(folder)
            except Refused as secret_refused:
                said[folder.name] = f"{secret_refused.refusal.kind}: {secret_refused.refusal.reason}"
        return said

    assert _as_nobody(look) == {
        private.name: "unreadable: notes cannot be read: Permission denied",
        sealed.name: f"file: {SECRET_FILE} was refused as it was read: cannot open it as a regular file (Permission denied)"}

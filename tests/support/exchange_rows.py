"""The exchange table: hostile folders in the exchange's ``inbound/``, and what must happen to each.

nbgrader's folder exchange lets every student write into ``inbound/``, and the instructor's processes read
it (coursekit.inbound decides what may leave it). Each row is one folder a hostile student can make there:
how to build it (an honest submission, then :attr:`ExchangeRow.plant` changes it) and what must happen
(:attr:`ExchangeRow.refused`: the kind of refusal, :data:`coursekit.inbound.REASONS`; "" for the honest
control, which is collected byte for byte). A refused folder is never collected, the class goes on, and
the refusal names what was wrong (:attr:`ExchangeRow.names`).

``tests/unit/test_inbound.py`` runs every row against the module on real files (FIFOs, links, sparse files,
folders of another uid); ``tests/integration/test_exchange.py`` runs :data:`REPRESENTATIVE` through the real
``nbgrader collect`` with the course's config, and a class holding them through the real grading service.
A new hostile folder is one new row.
"""
import dataclasses
import datetime
import os
import pathlib
import pwd
import secrets
import typing

import pytest
from nbgrader.utils import parse_utc

from coursekit.upstream.nbgrader import SECRET_FILE

__all__ = ["ExchangeRow", "Course", "ROWS", "BY_NAME", "REPRESENTATIVE", "IMPOSTOR", "require_root", "build",
           "submission_name", "later", "arrival"]

IMPOSTOR = "nobody"  # the Unix user who makes a folder named for a classmate (any uid but the reader's and root)


@dataclasses.dataclass(frozen=True)
class Course:
    """What the attacks aim at: the course's master notebook and grader, the assignment, the limits in force."""
    master: pathlib.Path
    grader: pathlib.Path
    assignment: str
    max_files: int


@dataclasses.dataclass(frozen=True)
class ExchangeRow:
    name: str
    plant: typing.Callable  # plant(folder, course): turns an honest submission folder into this row's
    refused: str            # the kind of refusal expected; "" for a folder that is collected
    names: str              # what the refusal must name (a file, a student), in its reason
    impostor: bool = False  # named for a classmate, made by another Unix user (IMPOSTOR): needs root
    claims: str = ""        # the time its name and timestamp.txt claim (a collected folder: never its time)


def _notebook(folder, course) -> pathlib.Path:
    return folder / f"{course.assignment}.ipynb"


def _replace(path: pathlib.Path, make) -> None:
    path.unlink(missing_ok=True)
    make(path)


def _many_files(folder, course) -> None:
    extra = folder / "data"
    extra.mkdir()
    for k in range(course.max_files):
        (extra / f"{k}.txt").touch()


BACKDATED = "2025-12-31 23:00:00.000000 UTC"  # before any due date of the course: 0 s late, were it believed


def _marked(folder, course) -> None:
    """Data in what the seed does not cover: mode bits of every file and folder, and chosen times (issue 54)."""
    (folder / "data").mkdir()
    (folder / "data" / "notes.txt").write_text("my notes")
    for path, mode in ((_notebook(folder, course), 0o751), (folder / "data", 0o701), (folder / "data" / "notes.txt", 0o602)):
        path.chmod(mode)
    os.utime(_notebook(folder, course), ns=(1_234_567_890_123_456_789, 987_654_321_000_000_001))


def _sparse(folder, course) -> None:
    with open(folder / "weights.bin", "wb") as fh:
        fh.truncate(1 << 34)  # 16 GiB that take no disk: what matters is what a copy would write


ROWS = [
    ExchangeRow("honest", lambda folder, course: None, "", ""),
    ExchangeRow("link_to_master", lambda f, c: _replace(_notebook(f, c), lambda p: p.symlink_to(c.master)),
                "kind", "ch04_attention.ipynb is a symbolic link"),
    ExchangeRow("link_to_grader", lambda f, c: (f / "notes.txt").symlink_to(c.grader), "kind",
                "notes.txt is a symbolic link"),
    ExchangeRow("link_to_dev_zero", lambda f, c: (f / "data.npy").symlink_to("/dev/zero"), "kind",
                "data.npy is a symbolic link"),
    ExchangeRow("fifo_secret", lambda f, c: _replace(f / SECRET_FILE, os.mkfifo), "kind",
                f"{SECRET_FILE} is a named pipe (FIFO)"),
    ExchangeRow("dev_zero_secret", lambda f, c: _replace(f / SECRET_FILE, lambda p: p.symlink_to("/dev/zero")),
                "kind", f"{SECRET_FILE} is a symbolic link"),
    ExchangeRow("fifo_notebook", lambda f, c: _replace(_notebook(f, c), os.mkfifo), "kind",
                "ch04_attention.ipynb is a named pipe (FIFO)"),
    ExchangeRow("hard_link_to_master", lambda f, c: _replace(_notebook(f, c), lambda p: os.link(c.master, p)),
                "hard_link", "ch04_attention.ipynb has 2 names"),
    ExchangeRow("folder_is_a_link", lambda f, c: None, "kind", "is a symbolic link"),  # build() makes the link
    ExchangeRow("named_for_a_classmate", lambda f, c: None, "impersonation", "SUSPECTED IMPERSONATION: named for ",
                impostor=True),
    ExchangeRow("many_files", _many_files, "files", "c.CourseKit.max_submission_files"),
    ExchangeRow("huge_sparse_file", _sparse, "bytes", "weights.bin included"),
    # collected, but only names and bytes: its time is when it arrived, every mode and time the course's
    ExchangeRow("backdated", lambda f, c: None, "", "", claims=BACKDATED),
    ExchangeRow("mode_bits", _marked, "", ""),
]
BY_NAME = {row.name: row for row in ROWS}
# through the real nbgrader collect and the real service: a link to the master, a FIFO and a /dev/zero secret, a
# classmate's name, an oversized folder, beside honest students
REPRESENTATIVE = ("link_to_master", "fifo_secret", "dev_zero_secret", "named_for_a_classmate", "huge_sparse_file")


def submission_name(student: str, assignment: str, second: int = 0, timestamp: str = "") -> str:
    """An inbound folder's name as ``nbgrader submit`` makes it, submitted at ``timestamp`` (as nbgrader writes one),
    or at ``second`` past 10:00 on a day of the course."""
    timestamp = timestamp or f"2026-12-01 10:00:{second:02d}.000000 UTC"
    return f"{student}+{assignment}+{timestamp}+{secrets.token_hex(4)}"


def arrival(folder: pathlib.Path) -> str:
    """When ``folder`` reached inbound/, as the course must say it: the newest change time of the folder and all it
    holds (a clock nobody but the kernel sets), as nbgrader writes a time."""
    newest = max(path.lstat().st_ctime_ns for path in [folder, *folder.rglob("*")])
    moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(microseconds=newest // 1000)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def later(timestamp: str, seconds: float) -> str:
    """nbgrader's ``timestamp`` plus ``seconds``, written as nbgrader writes it."""
    moment = parse_utc(timestamp) + datetime.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def build(row: ExchangeRow, inbound: pathlib.Path, student: str, course: Course, notebook: bytes,
          second: int = 1, timestamp: str = "") -> pathlib.Path:
    """``row``'s folder in ``inbound``, named for ``student`` (made by :data:`IMPOSTOR` when the row is an
    impostor's) with ``notebook`` as its notebook, ``nbgrader submit``'s files beside it, submitted at
    ``timestamp`` (or ``second``: :func:`submission_name`); its path."""
    name = submission_name(student, course.assignment, second, timestamp or row.claims)
    folder = inbound / (f".{name}.target" if row.name == "folder_is_a_link" else name)
    folder.mkdir(parents=True)
    _notebook(folder, course).write_bytes(notebook)
    (folder / "timestamp.txt").write_text(name.split("+")[2])
    (folder / SECRET_FILE).write_text(secrets.token_hex(64))
    row.plant(folder, course)
    if row.name == "folder_is_a_link":
        (inbound / name).symlink_to(folder)
        return inbound / name
    if row.impostor:
        _chown_tree(folder, pwd.getpwnam(IMPOSTOR))
    return folder


def _chown_tree(folder: pathlib.Path, user) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, user.pw_uid, user.pw_gid, follow_symlinks=False)


def require_root() -> None:
    """Skip (fail under CI=true) unless root: only root can make a folder another Unix user owns."""
    if os.geteuid() == 0:
        return
    reason = "not root: a folder made by another Unix user needs root to build (run as root, as CI does)"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


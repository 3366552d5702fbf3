"""What may leave the exchange's ``inbound/``: the one module every reader of a student's submission folder asks.

nbgrader's folder exchange lets every student write into ``<exchange>/<course>/inbound/`` (mode 733), and the
instructor's processes read it: the grading service's inbox (:mod:`coursekit.service.inbox`), ``nbgrader
collect`` and ``nbgrader list --inbound`` (the course's :mod:`coursekit.exchange`, which the service
collects with too). A student chooses what lies there: a symbolic link to the master or the grader, a named pipe
that blocks whoever opens it, a link to ``/dev/zero``, a sparse file of terabytes, a million empty files, a
folder named for a classmate. So a folder leaves ``inbound/`` only through here:

* :func:`examine` looks at every entry without opening a file (``lstat``) and refuses a folder that holds anything
  but regular files and folders (a link is never followed), a file with several names (a hard link), a file
  another user owns, more than ``max_files`` entries or ``max_bytes`` bytes, or whose owner is not the student its
  name claims (:func:`owner_refusal`, through :mod:`coursekit.identity`). A refused folder is never collected and
  never hides the same student's other folders: each student's newest *acceptable* one is what counts.
* :func:`read_secret` and :func:`collect` open files only with ``O_NOFOLLOW | O_NONBLOCK`` from descriptors of
  folders opened so too, check what they opened (``fstat``) and read with a cap (:mod:`coursekit.student_files`),
  so a file swapped for a link or a pipe after :func:`examine` is refused then, never read. :func:`collect` copies
  into a staging folder and replaces ``submitted/…`` only once the whole copy succeeded.

**When a submission arrived** is the course's to say, never the student's: the name's timestamp and
``timestamp.txt`` are what their own ``nbgrader submit`` (or anything else) wrote. :func:`arrived` reads it from the
folder itself: the newest change time (``ctime``, which the kernel sets to its own clock at every change and nobody
can set back) of the folder and everything in it, i.e. when the last byte of it reached ``inbound/``. Touching the
folder later only makes it later. :attr:`Folder.arrived` holds it; :func:`collect` writes it as nbgrader writes a
time into ``submitted/…/timestamp.txt`` (the student's own is never copied), so ``nbgrader autograde`` records it
as the submission's timestamp in the gradebook, the time every late rule reads.

**Nothing but bytes and names leaves**: :func:`collect` writes every file 0644 and every folder 0755, each dated
at the arrival, so that no mode bit or time the student chose reaches their code at grading (the seed,
:mod:`coursekit.seeds`, covers names and bytes only).

A refusal is a :class:`Refusal`: the folder, a kind, and the instructor's words (:data:`REASONS`, the one table),
printed with every control character escaped (:mod:`coursekit.printable`).
"""
import contextlib
import dataclasses
import datetime
import fnmatch
import functools
import os
import pathlib
import shutil
import stat

from nbgrader.utils import parse_utc

from .assignments import CourseKit
from .identity import owner_of
from .printable import printable
from .settings import MAX_SUBMISSION_BYTES, MAX_SUBMISSION_FILES
from .student_files import UnreadableFile, copy_capped, kind_of, open_regular, read_capped
from .upstream.nbgrader import SECRET_FILE, SECRET_LENGTH, parse_submission_name

__all__ = ["REASONS", "TIMESTAMP_FILE", "Limits", "Folder", "Refusal", "Refused",
           "limits_of", "examine", "owner_refusal", "read_secret", "collect", "arrived", "utc"]

TOP = "the folder"  # how a refusal names the submission folder itself
TIMESTAMP_FILE = "timestamp.txt"  # nbgrader's: when the submission was made; written by collect, never copied
FILE_MODE, FOLDER_MODE = 0o644, 0o755  # every collected file and folder: no mode bit the student chose
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

REASONS = {
    "name": "not a submission: nbgrader submit names one <student>+<assignment>+<timestamp>+<random>",
    "kind": "{file} is {what}: only regular files and folders leave inbound/, and no link is followed",
    "hard_link": "{file} has {links} names (a hard link, perhaps to another user's file)",
    "files": "more than {limit} files and folders (c.CourseKit.max_submission_files)",
    "bytes": "more than {limit} bytes (c.CourseKit.max_submission_bytes), {file} included",
    "impersonation": "SUSPECTED IMPERSONATION: named for {student} but made by {owner}",
    "stranger": "named for {student} but owned by {owner}: whose it is cannot be known",
    "other_owner": "{file} belongs to {owner}, not to the folder's owner",
    "secret": "{file} is not a submission's secret of {length} hex digits",
    "unreadable": "{file} cannot be read: {error}",
    "file": "{file} was refused as it was read: {problem}",
}


@functools.lru_cache(maxsize=100_000)
def utc(timestamp: str) -> datetime.datetime:
    """nbgrader's ``parse_utc``, once per timestamp: dateutil takes ≈ 0.5 ms, and each listing meets every folder."""
    return parse_utc(timestamp)


@dataclasses.dataclass(frozen=True)
class Limits:
    """What a submission folder may hold (``c.CourseKit.max_submission_*``) and whether its owner is checked
    (nbgrader's own ``c.ExchangeCollect.check_owner``)."""
    max_bytes: int = MAX_SUBMISSION_BYTES
    max_files: int = MAX_SUBMISSION_FILES
    check_owner: bool = True


def limits_of(config, check_owner: bool = None) -> Limits:
    """The course's :class:`Limits` from an nbgrader ``config`` (``check_owner``: a collect's own setting, when known)."""
    kit = CourseKit(config=config)
    if check_owner is None:
        check_owner = bool(config.get("ExchangeCollect", {}).get("check_owner", True))
    return Limits(kit.max_submission_bytes, kit.max_submission_files, check_owner)


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A folder (or entry) of ``inbound/`` that may not leave it, and why (in :data:`REASONS`' words)."""
    folder: str
    kind: str
    reason: str
    student: str = ""     # as its name claims ("" when it names none)
    assignment: str = ""
    timestamp: str = ""

    def __str__(self) -> str:
        """One line for a terminal or a log: the folder's name and the files' are the student's to choose."""
        return printable(f"inbound/{self.folder}: {self.reason}", one_line=True)


class Refused(Exception):
    """Raised with the :class:`Refusal` of a folder that may not leave ``inbound/``."""

    def __init__(self, refusal: Refusal):
        super().__init__(str(refusal))
        self.refusal = refusal


@dataclasses.dataclass(frozen=True)
class Folder:
    """A submission folder of ``inbound/`` that passed :func:`examine`."""
    path: pathlib.Path
    student: str
    assignment: str
    timestamp: str    # what its name claims, as nbgrader writes one: "2026-12-01 15:30:01.123456 UTC"
    arrived: str = ""  # when it reached inbound/ (:func:`arrived`), written so too: the submission's time

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def when(self) -> datetime.datetime:
        """When it arrived: what every choice of "newest" and every due date compares."""
        return utc(self.arrived)


def arrived(changed_ns: int) -> str:
    """The arrival of a folder whose newest change time (of itself and all it holds) is ``changed_ns``, written as
    nbgrader writes a timestamp (to the microsecond, UTC)."""
    moment = _EPOCH + datetime.timedelta(microseconds=changed_ns // 1000)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def owner_refusal(student: str, uid: int, limits: Limits):
    """Why a folder named for ``student`` and owned by ``uid`` may not be theirs: (kind, owner's name), or None.

    Where the owner cannot say whose it is, nothing is refused: owner checks off; a folder owned by the reader
    itself or root (a course on one Unix account, as on a laptop or in the hub's demo mode: nothing else can
    make a file of theirs); a shared account (:func:`coursekit.identity.student_id`)."""
    if not limits.check_owner or uid in (os.geteuid(), 0):
        return None
    owner = owner_of(uid)
    if not owner.known:
        return "stranger", owner.name
    if owner.student is None or owner.student == student:
        return None
    return "impersonation", owner.name


def examine(inbound, limits: Limits, assignment: str = None, student: str = None) -> tuple:
    """``([Folder], [Refusal])``: every folder of ``inbound`` named for ``assignment`` and ``student`` (all when
    None or ``*``, as nbgrader's glob ``<student>+<assignment>+*`` picks them, the name read from the right as its
    collect reads it), accepted or refused; ``([], [])`` while there is no ``inbound``. Any other OSError of
    ``inbound`` itself is raised: the exchange cannot be read."""
    try:
        fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return [], []
    accepted, refused = [], []
    try:
        for name, parsed in _named_for(os.listdir(fd), assignment, student):
            try:
                accepted.append(_examine_one(pathlib.Path(inbound), fd, name, parsed, limits))
            except Refused as refusal:
                refused.append(refusal.refusal)
            except FileNotFoundError:  # taken away while it was looked at: nothing to collect, nothing to refuse
                pass
    finally:
        os.close(fd)
    return accepted, refused


def _named_for(names, assignment: str, student: str):
    """``(name, what it claims or None)`` of each of ``names`` nbgrader's glob picks for ``assignment`` and ``student``,
    in order, but those its ``*`` matched across a ``+`` (another student's name, read from the right)."""
    student, assignment = (None if part in ("", "*") else part for part in (student, assignment))  # nbgrader's "all"
    pattern = f"{student or '*'}+{assignment or '*'}+*"
    for name in sorted(n for n in names if not n.startswith(".") and fnmatch.fnmatchcase(n, pattern)):
        parsed = parse_submission_name(name, utc)
        if parsed is None or (student or parsed[0], assignment or parsed[1]) == parsed[:2]:
            yield name, parsed


@dataclasses.dataclass(frozen=True)
class _Visit:
    """One folder of ``inbound/`` being examined or copied: its name, what the name claims, the limits, its owner."""
    name: str
    parsed: tuple  # (student, assignment, timestamp)
    limits: Limits
    owner: int = -1  # the folder's uid, once opened

    def refused(self, kind: str, **facts) -> Refused:
        return Refused(Refusal(self.name, kind, REASONS[kind].format(**facts), *self.parsed))


def _examine_one(inbound: pathlib.Path, inbound_fd: int, name: str, parsed, limits: Limits) -> Folder:
    if parsed is None:
        raise Refused(Refusal(name, "name", REASONS["name"]))
    visit = _Visit(name, parsed, limits)
    with _opened_folder(visit, inbound_fd, name, TOP) as (fd, info):
        visit = _owned(visit, info.st_uid)
        changed = max([info.st_ctime_ns, *(entry.st_ctime_ns for *_, entry in _walk(visit, fd))])
        changed = max(changed, os.fstat(fd).st_ctime_ns)  # an entry added or removed while it was walked
    return Folder(inbound / name, *parsed, arrived=arrived(changed))


def _owned(visit: _Visit, uid: int) -> _Visit:
    """``visit`` with its folder's owner, once that owner may have made it (Refused else)."""
    found = owner_refusal(visit.parsed[0], uid, visit.limits)
    if found:
        kind, owner = found
        raise visit.refused(kind, student=visit.parsed[0], owner=owner)
    return dataclasses.replace(visit, owner=uid)


def _open_folder(visit: _Visit, dir_fd: int, name: str, shown: str) -> int:
    """A descriptor of the folder ``name`` under ``dir_fd`` (``shown``: its path in a refusal), opened without
    following a link or waiting; Refused when it is anything but a folder it may read (FileNotFoundError: gone)."""
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise _not_a_folder(visit, dir_fd, name, shown, error) from None


def _not_a_folder(visit: _Visit, dir_fd: int, name: str, shown: str, error: OSError) -> Refused:
    """Why ``name`` could not be opened as a folder: what it is instead, or the error."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        mode = stat.S_IFDIR
    if stat.S_ISDIR(mode):
        return visit.refused("unreadable", file=shown, error=error.strerror)
    return visit.refused("kind", file=shown, what=kind_of(mode))


@contextlib.contextmanager
def _opened_folder(visit: _Visit, dir_fd: int, name: str, shown: str):
    """:func:`_open_folder` as ``with``: ``(fd, fstat)``, closed at the end."""
    fd = _open_folder(visit, dir_fd, name, shown)
    try:
        yield fd, os.fstat(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _submission(folder: Folder, limits: Limits):
    """``(visit, fd)`` of an examined ``folder``, opened again as :func:`examine` opened it, its owner checked again."""
    visit = _Visit(folder.name, (folder.student, folder.assignment, folder.timestamp), limits)
    parent = os.open(folder.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with _opened_folder(visit, parent, folder.name, TOP) as (fd, info):
            yield _owned(visit, info.st_uid), fd
    finally:
        os.close(parent)


def _walk(visit: _Visit, top: int):
    """Every entry under the open folder ``top``, depth first, as it is met: ``(is_folder, its folder's fd, name,
    path in the submission, lstat)``. Nothing is opened but folders; Refused at the first entry that may not leave
    ``inbound/`` (:func:`_checked`), or once the entries outnumber ``max_files`` or outweigh ``max_bytes``."""
    pending, current, count, total = [(top, "")], None, 0, 0
    try:
        while pending:
            current, prefix = pending.pop()
            with os.scandir(current) as entries:
                for entry in entries:
                    path, count = prefix + entry.name, count + 1
                    info = _checked(visit, entry, path)
                    if count > visit.limits.max_files:
                        raise visit.refused("files", limit=visit.limits.max_files)
                    if stat.S_ISDIR(info.st_mode):
                        pending.append((_open_folder(visit, current, entry.name, path), path + "/"))
                    elif (total := total + info.st_size) > visit.limits.max_bytes:
                        raise visit.refused("bytes", limit=visit.limits.max_bytes, file=path)
                    yield stat.S_ISDIR(info.st_mode), current, entry.name, path, info
            _close(current, top)
            current = None
    finally:
        for fd in [current, *(fd for fd, _ in pending)]:
            _close(fd, top)


def _close(fd, top: int) -> None:
    if fd is not None and fd != top:
        os.close(fd)


def _checked(visit: _Visit, entry: os.DirEntry, path: str) -> os.stat_result:
    """The ``lstat`` of ``entry``, once it is a regular file of one name or a folder, the folder owner's."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError as error:
        raise visit.refused("unreadable", file=path, error=error.strerror) from None
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        raise visit.refused("kind", file=path, what=kind_of(info.st_mode))
    _check_file(visit, info, path)
    return info


def _check_file(visit: _Visit, info: os.stat_result, path: str) -> None:
    """Refused when the regular file or folder ``info`` has several names, or another owner than its folder's."""
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        raise visit.refused("hard_link", file=path, links=info.st_nlink)
    if visit.limits.check_owner and info.st_uid != visit.owner:
        raise visit.refused("other_owner", file=path, owner=owner_of(info.st_uid).name)


def read_secret(folder: Folder) -> str:
    """``folder``'s ``submission_secret.txt`` once ``nbgrader submit`` has written it whole (it writes it last);
    "" until then. Refused when it is anything but a prefix of a secret of hex digits."""
    try:
        with _submission(folder, Limits(check_owner=False)) as (visit, fd):
            return _secret(visit, fd)
    except FileNotFoundError:  # the folder taken away: nothing arrived
        return ""


def _secret(visit: _Visit, fd: int) -> str:
    try:
        os.stat(SECRET_FILE, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return ""
    try:
        text = read_capped(SECRET_FILE, SECRET_LENGTH + 2, dir_fd=fd).decode("ascii", "replace").strip()
    except UnreadableFile as error:
        raise visit.refused("file", file=SECRET_FILE, problem=error.problem) from None
    if len(text) > SECRET_LENGTH or text.strip("0123456789abcdefABCDEF"):
        raise visit.refused("secret", file=SECRET_FILE, length=SECRET_LENGTH)
    return text if len(text) == SECRET_LENGTH else ""


def collect(folder: Folder, dest, limits: Limits, leave_out=None) -> int:
    """Copy the examined ``folder`` into ``dest`` (its parent made if needed), replacing what ``dest`` held only once
    the whole copy succeeded; the number of files written (``timestamp.txt``, its arrival, included).
    ``leave_out(name, is_file, size)``: whether nbgrader's settings leave an entry out (a folder left out, all it
    holds too). Refused, ``dest`` as it was, when anything met may not leave ``inbound/``: each file is checked again
    on the descriptor it is copied from. The arrival written is the copy's own: the newest change of what it read."""
    dest = pathlib.Path(dest)
    staging = dest.with_name(f".{dest.name}.collecting")
    _remove(staging)
    staging.mkdir(parents=True)
    try:
        with _submission(folder, limits) as (visit, fd):
            copied, changed = _copy_all(visit, fd, staging, leave_out or (lambda *_: False))
            changed = max(changed, os.fstat(fd).st_ctime_ns)
        (staging / TIMESTAMP_FILE).write_text(arrived(changed), encoding="utf-8")
        _normalised(staging, changed)
    except BaseException:
        _remove(staging)
        raise
    _swap(staging, dest)
    return copied + 1


def _copy_all(visit: _Visit, fd: int, staging: pathlib.Path, leave_out) -> tuple:
    """(files copied, the newest change time met) of the submission open at ``fd``, copied into ``staging``."""
    budget, copied, left, changed = visit.limits.max_bytes, 0, [], 0
    for is_folder, dir_fd, name, path, info in _walk(visit, fd):
        changed = max(changed, info.st_ctime_ns)
        if path == TIMESTAMP_FILE or any(path.startswith(prefix) for prefix in left) or \
                leave_out(name, not is_folder, info.st_size):
            left.append(path + "/")
        elif is_folder:
            (staging / path).mkdir()
        else:
            size, now = _copy_file(visit, dir_fd, name, path, staging / path, budget)
            budget, copied, changed = budget - size, copied + 1, max(changed, now)
    return copied, changed


def _copy_file(visit: _Visit, dir_fd: int, name: str, path: str, target: pathlib.Path, budget: int) -> tuple:
    """Copy the file ``name`` of ``dir_fd`` (``path`` in the submission) to ``target``, at most ``budget`` bytes:
    (bytes copied, its change time once copied)."""
    try:
        fd, info = open_regular(name, budget, dir_fd)
    except UnreadableFile as error:
        raise visit.refused("file", file=path, problem=error.problem) from None
    try:
        _check_file(visit, info, path)
        with open(target, "xb") as out:
            copied = copy_capped(fd, out, budget, path)
        return copied, os.fstat(fd).st_ctime_ns
    except UnreadableFile as error:
        raise visit.refused("file", file=path, problem=error.problem) from None
    finally:
        os.close(fd)


def _normalised(staging: pathlib.Path, changed_ns: int) -> None:
    """Every file under ``staging`` 0644 and every folder 0755, all dated ``changed_ns``: only names and bytes of
    what the student made go on (the folders last, after their files)."""
    for root, folders, files in os.walk(staging, topdown=False):
        for name in files:
            os.chmod(os.path.join(root, name), FILE_MODE, follow_symlinks=False)
            os.utime(os.path.join(root, name), ns=(changed_ns, changed_ns), follow_symlinks=False)
        os.chmod(root, FOLDER_MODE)
        os.utime(root, ns=(changed_ns, changed_ns))


def _swap(staging: pathlib.Path, dest: pathlib.Path) -> None:
    """``staging`` becomes ``dest``, the old ``dest`` removed after."""
    old = dest.with_name(f".{dest.name}.replaced")
    _remove(old)
    if dest.exists() or dest.is_symlink():
        os.rename(dest, old)
    os.rename(staging, dest)
    _remove(old)


def _remove(path: pathlib.Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)

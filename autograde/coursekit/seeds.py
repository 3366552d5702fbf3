"""The seed a submission's hidden inputs are drawn from: the course's secret and the submission itself, mixed.

A grader's hidden checks draw their arrays from this seed (the chapter's: ``grader/inputs.py``). It is the
HMAC-SHA256, keyed with the course's secret, of every regular file of the submission's folder (its path and
bytes, in order), so

* the same submission always gets the same seed: a regrade, ``make grade`` and serial ``nbgrader autograde``, or a
  replay of a disputed grade (the record keeps the seed) draw the same inputs and give the same grade;
* a submission differing in any byte gets another, which nobody can compute without the secret: inputs seen in
  one feedback are useless to any other submission, however it was built.

The secret (:data:`SECRET_FILE` beside the grader's package, i.e. in the course folder, 32 random bytes, mode 600) is
made by the first grading that needs it and never leaves the trusted side: the grading process computes the seed and sends only the seed to the
grader process; no kernel ever sees the course folder. Files are read as hostile (:mod:`coursekit.student_files`):
no link followed, nothing but regular files, a cap on their number and size.
"""
import errno
import hashlib
import hmac
import os
import pathlib
import secrets
import stat
import time

from .student_files import UnreadableFile, read_capped

__all__ = ["SECRET_FILE", "course_secret", "submission_seed"]

SECRET_FILE = ".grading-secret"
MAX_FILES = 200  # a submission folder's files taken into the seed; beyond, their names still count
MAX_FILE_BYTES = 64 * 1024 ** 2


def course_secret(course) -> bytes:
    """The course's secret, made at the first call (by whichever grading process comes first)."""
    path = pathlib.Path(course) / SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read_secret(path)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32))
    return _read_secret(path)


def _read_secret(path: pathlib.Path, wait: float = 5.0) -> bytes:
    """The secret as another process wrote it (it may still be writing 64 hex digits: wait for them)."""
    deadline = time.monotonic() + wait
    while True:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 or info.st_uid != os.geteuid():
            raise PermissionError(errno.EPERM, f"{path} must be a regular file of this user's, mode 600 "
                                               f"(found mode {stat.filemode(info.st_mode)}, uid {info.st_uid})")
        text = read_capped(path, 64).decode("ascii", "replace").strip()
        if len(text) == 64:
            return bytes.fromhex(text)
        if time.monotonic() > deadline:
            raise ValueError(f"{path} holds no secret of 64 hex digits: remove it, the next grading makes one")
        time.sleep(0.01)


def submission_seed(secret: bytes, folder) -> str:
    """The seed of the submission in ``folder`` (64 hex digits)."""
    folder, mac = pathlib.Path(folder), hmac.new(secret, digestmod=hashlib.sha256)
    for count, path in enumerate(_files(folder)):
        name = path.relative_to(folder).as_posix().encode("utf-8", "surrogateescape")
        mac.update(len(name).to_bytes(4, "little") + name)
        if count < MAX_FILES:
            mac.update(_content_digest(path))
    return mac.hexdigest()


def _files(folder: pathlib.Path) -> list:
    """Every entry under ``folder`` that is not a folder, in a stable order, without following any link."""
    found = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs.sort()
        found += [pathlib.Path(root) / name for name in sorted(files)]
    return sorted(found)


def _content_digest(path: pathlib.Path) -> bytes:
    """SHA-256 of a regular file's bytes; of what it is instead for anything else (a link, a pipe, a huge file)."""
    try:
        return hashlib.sha256(read_capped(path, MAX_FILE_BYTES)).digest()
    except UnreadableFile as refused:  # noqa: F841 -- its kind is what counts
        return hashlib.sha256(b"unread: " + type(refused).__name__.encode()).digest()  # the same wherever the folder is

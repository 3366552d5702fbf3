"""Reading a file a student wrote (the exchange's ``inbound/``, ``submitted/``, ``autograded/``) as data that may be hostile.

A student chooses what lies in their submission folder: a symbolic link to the instructor's files, a
named pipe that blocks whoever opens it, a file of gigabytes. :func:`open_regular` opens a path without
following a link and without waiting (``O_NOFOLLOW | O_NONBLOCK``), then refuses anything that is not a
regular file, or is bigger than asked, by what the open descriptor is (``fstat``), so nothing swapped in
between a check and the open is ever read. :func:`read_capped` reads such a file up to a cap,
:func:`copy_capped` copies one so, and :func:`read_notebook` parses a notebook's JSON. Every refusal is an
:class:`UnreadableFile` naming the file and what was expected. Standard library only.
"""
import json
import os
import stat

__all__ = ["MAX_NOTEBOOK_BYTES", "UnreadableFile", "open_regular", "read_capped", "copy_capped", "read_notebook",
           "kind_of"]

# nbgrader's graded notebooks keep at most 1.2 MB of output (coursekit.kernel.output_cap); the source is small.
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024
CHUNK = 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class UnreadableFile(ValueError):
    """A student's file that was not read: not a regular file, too big, or (a notebook) not a notebook's JSON.
    ``path``: the file as it was named; ``problem``: what was wrong, in words."""

    def __init__(self, path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words ("a named pipe (FIFO)"); "a regular file" for one."""
    return next((words for test, words in _KINDS if test(mode)), "a regular file")


def open_regular(path, max_bytes: int = None, dir_fd: int = None) -> tuple:
    """(an open descriptor, its ``fstat``) of the regular file at ``path`` (relative to ``dir_fd`` when given), at most
    ``max_bytes`` long; an :class:`UnreadableFile` naming the file when it is a link, not a regular file, or too big."""
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as error:  # ELOOP: a symbolic link; ENXIO: a socket
        raise UnreadableFile(path, f"cannot open it as a regular file ({error.strerror})") from None
    info = os.fstat(fd)
    problem = "" if stat.S_ISREG(info.st_mode) else f"expected a regular file, found {kind_of(info.st_mode)}"
    if not problem and max_bytes is not None and info.st_size > max_bytes:
        problem = f"{info.st_size} bytes, more than the {max_bytes} expected"
    if problem:
        os.close(fd)
        raise UnreadableFile(path, problem)
    return fd, info


def _chunks(fd: int, limit: int):
    """The bytes of ``fd`` from where it stands, in chunks, ``limit`` at most: the one loop that reads a student's file."""
    while limit > 0:
        chunk = os.read(fd, min(CHUNK, limit))
        if not chunk:
            return
        limit -= len(chunk)
        yield chunk


def read_capped(path, max_bytes: int, dir_fd: int = None) -> bytes:
    """At most ``max_bytes`` + 1 bytes of the regular file at ``path`` (more than ``max_bytes`` only when it grew
    while read); an :class:`UnreadableFile` naming the file when it is a link, not a regular file, or too big."""
    fd, _ = open_regular(path, max_bytes, dir_fd)
    try:
        return b"".join(_chunks(fd, max_bytes + 1))
    finally:
        os.close(fd)


def copy_capped(fd: int, out, max_bytes: int, name) -> int:
    """Copy the open file ``fd`` into the binary file object ``out``, at most ``max_bytes``; the bytes copied. An
    :class:`UnreadableFile` naming ``name`` when it holds more (it grew after it was opened)."""
    copied = 0
    for chunk in _chunks(fd, max_bytes + 1):
        copied += len(chunk)
        if copied > max_bytes:
            raise UnreadableFile(name, f"grew past the {max_bytes} bytes expected while it was copied")
        out.write(chunk)
    return copied


def read_notebook(path, max_bytes: int = MAX_NOTEBOOK_BYTES) -> dict:
    """The notebook at ``path`` as plain JSON (no validation): a dict with a list of ``cells``."""
    data = read_capped(path, max_bytes)
    if len(data) > max_bytes:
        raise UnreadableFile(path, f"grew past the {max_bytes} bytes a notebook may have while it was read")
    try:
        nb = json.loads(data)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError; nesting past the parser's
        raise UnreadableFile(path, f"not a notebook's JSON ({type(error).__name__}: {error})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise UnreadableFile(path, "expected a notebook, a JSON object with a list of cells")
    return nb

"""Reading a file a student wrote (``submitted/``, ``autograded/``) as data that may be hostile.

A student chooses what lies in their submission folder: a symbolic link to the instructor's files, a
named pipe that blocks whoever opens it, a file of gigabytes. :func:`read_capped` opens the path without
following a link, refuses anything that is not a regular file before reading a byte and reads at most
``max_bytes``; :func:`read_notebook` reads a notebook so and parses its JSON. Every refusal is an
:class:`UnreadableFile` naming the file and what was expected. Standard library only.
"""
import json
import os
import stat

__all__ = ["MAX_NOTEBOOK_BYTES", "UnreadableFile", "read_capped", "read_notebook"]

# nbgrader's graded notebooks keep at most 1.2 MB of output (coursekit.plugins.output_cap); the source is small.
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024


class UnreadableFile(ValueError):
    """A student's file that was not read: not a regular file, too big, or (a notebook) not a notebook's JSON."""


def read_capped(path, max_bytes: int) -> bytes:
    """At most ``max_bytes`` + 1 bytes of the regular file at ``path`` (more than ``max_bytes`` only when it grew
    while read); an :class:`UnreadableFile` naming the file when it is a link, not a regular file, or too big."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:  # ELOOP: a symbolic link
        raise UnreadableFile(f"{path}: cannot open it as a regular file ({error.strerror})") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{path}: expected a regular file, found another kind of file")
        if info.st_size > max_bytes:
            raise UnreadableFile(f"{path}: {info.st_size} bytes, more than the {max_bytes} expected")
        return fh.read(max_bytes + 1)


def read_notebook(path, max_bytes: int = MAX_NOTEBOOK_BYTES) -> dict:
    """The notebook at ``path`` as plain JSON (no validation): a dict with a list of ``cells``."""
    data = read_capped(path, max_bytes)
    if len(data) > max_bytes:
        raise UnreadableFile(f"{path}: grew past the {max_bytes} bytes a notebook may have while it was read")
    try:
        nb = json.loads(data)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError; nesting past the parser's
        raise UnreadableFile(f"{path}: not a notebook's JSON ({type(error).__name__}: {error})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise UnreadableFile(f"{path}: expected a notebook, a JSON object with a list of cells")
    return nb

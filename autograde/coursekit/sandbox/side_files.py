"""Files a graded notebook writes next to itself, brought back out of the sandbox: new regular files only, capped.

nbgrader runs a notebook in its autograded folder, so a file the notebook writes there (``open("out.txt", "w")``)
stays in ``autograded/<student>/<assignment>/``. A sandboxed kernel works in a copy of that folder, in a tmpfs of
its own that vanishes with it. Before the kernel is shut down, the grading process asks the runner for the files
that were not there when it started (:func:`collect`, in the kernel: only names and bytes, sent as data) and writes
them into the real folder (:func:`write`, in the grading process), checking everything again, since the kernel is
the student's: regular files only (no link, device or fifo is followed or made), no notebook (another notebook of the
submission could be replaced before it is graded), never over a file that exists, never outside the folder, at most
:data:`MAX_FILES` files and :data:`MAX_BYTES` bytes in all; what is left out is named in the log.
"""
import base64
import binascii
import os
import stat

__all__ = ["MAX_BYTES", "MAX_FILES", "collect", "snapshot", "write"]

MAX_FILES = 20
MAX_BYTES = 2 * 1024 ** 2
SKIPPED_DIRS = {"__pycache__", ".ipynb_checkpoints"}


def _allowed(path: str) -> bool:
    parts = path.split("/")
    return (bool(path) and not path.startswith("/") and "\0" not in path and not path.endswith(".ipynb")
            and all(part not in ("", ".", "..") for part in parts) and not SKIPPED_DIRS & set(parts[:-1]))


def snapshot(root: str = ".") -> set:
    """Relative paths of everything under ``root`` now (links not followed)."""
    found = set()
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return found


def collect(before: set, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES, root: str = ".") -> dict:
    """In the kernel: ``{"files": [{"path", "data" (base64)}], "left_out": [path]}`` for the regular files under
    ``root`` that are not in ``before``, within the caps."""
    files, left_out, used = [], [], 0
    for path in sorted(snapshot(root) - before):
        full = os.path.join(root, path)
        try:
            info = os.lstat(full)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or not _allowed(path):
            continue
        if len(files) >= max_files or used + info.st_size > max_bytes:
            left_out.append(path)
            continue
        try:
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(max_bytes - used + 1)
        except OSError:
            continue
        if used + len(data) > max_bytes:
            left_out.append(path)
            continue
        used += len(data)
        files.append({"path": path, "data": base64.b64encode(data).decode("ascii")})
    return {"files": files, "left_out": left_out}


def _decoded(entry, left: int):
    """(path, bytes) of one entry the kernel sent, or None when it is not one this module would have made."""
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not isinstance(entry.get("data"), str):
        return None
    if not _allowed(entry["path"]) or len(entry["data"]) > 4 * (left // 3 + 1):
        return None
    try:
        return entry["path"], base64.b64decode(entry["data"], validate=True)
    except (binascii.Error, ValueError):
        return None


def _folder_for(dest: str, path: str):
    """The real folder (created as needed, never through a link) that ``path`` goes into under ``dest``, or None."""
    folder = dest
    for part in path.split("/")[:-1]:
        folder = os.path.join(folder, part)
        try:
            os.mkdir(folder, 0o755)
        except FileExistsError:
            pass
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return None
    return folder


def write(sent, dest: str, log, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES) -> list:
    """In the grading process: the files the kernel ``sent`` (what :func:`collect` returned there) written into
    ``dest``, each checked again; the relative paths written."""
    if not isinstance(sent, dict) or not isinstance(sent.get("files"), list):
        log.warning("the kernel's files could not be read back: none of them kept")
        return []
    written, refused, used = [], [p for p in sent.get("left_out", []) if isinstance(p, str)][:50], 0
    for entry in sent["files"]:
        decoded = _decoded(entry, max_bytes - used)
        if decoded is None or len(written) >= max_files or used + len(decoded[1]) > max_bytes:
            refused.append(str(entry.get("path", "?"))[:200] if isinstance(entry, dict) else "?")
            continue
        path, data = decoded
        folder = _folder_for(dest, path)
        try:
            if folder is None:
                raise FileExistsError(path)
            fd = os.open(os.path.join(folder, path.split("/")[-1]), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o644)
        except OSError:
            refused.append(path)
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        used += len(data)
        written.append(path)
    if refused:
        log.warning("files the graded notebook wrote that were not kept (over %d files or %d bytes, or not regular "
                    "new files): %s", max_files, max_bytes, ", ".join(refused))
    return written

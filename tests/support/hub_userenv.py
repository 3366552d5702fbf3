"""The hub tests' user environment: built once into ``.state/``, hard-linked into each test hub's folder.

The hub's servers run a shared user environment (:mod:`hub.userenv`) that every student must
reach, while the repository, and so ``.state/``, is closed to them during the tests. Building one
takes minutes (pip installs JupyterLab, nbgrader and the rest), so the tests keep one made by
:func:`hub.userenv.ensure` in :data:`CACHE`, brought up to date as ``make hub`` brings its own, and
:func:`session_copy` gives each hub a copy of it in the hub's own temporary folder, removed with it:
the tree hard-linked (one file on disk, its mode 644/755 as the build left it), the few files
that name the environment's folder (``bin/`` scripts, ``pyvenv.cfg``, the build stamp) written
anew for the copy's folder. :func:`hub.userenv.ensure` then finds the copy up to date.
"""
import os
import pathlib
import subprocess

from coursekit.paths import REPO
from hub import userenv

__all__ = ["CACHE", "session_copy"]

CACHE = REPO / ".state" / "hub-env"  # <CACHE>/user: the venv; <CACHE>/python: its base, when copied


def session_copy(dest) -> pathlib.Path:
    """The cached environment, made or updated first, copied to the new folder ``dest``; the copy's prefix."""
    userenv.ensure(CACHE / "user")
    dest = pathlib.Path(dest)
    linked = subprocess.run(["cp", "-al", str(CACHE), str(dest)], capture_output=True, text=True)
    if linked.returncode:  # another filesystem: no hard links
        subprocess.run(["cp", "-a", str(CACHE), str(dest)], check=True)
    for path in _naming_the_folder(dest):
        _rename_inside(path, str(CACHE), str(dest))
    return dest / "user"


def _naming_the_folder(root: pathlib.Path) -> list:
    """The files a venv writes its own folder into: its scripts' first lines, its config, the stamp."""
    files = [root / "user" / "pyvenv.cfg", root / "user" / userenv.STAMP]
    return files + sorted(p for p in (root / "user" / "bin").iterdir())


def _rename_inside(path: pathlib.Path, old: str, new: str) -> None:
    """``old`` → ``new`` in a symlink's target or a text file, as a new file (the old one is a hard link)."""
    if path.is_symlink():
        target = os.readlink(path)
        if target.startswith(old):
            path.unlink()
            path.symlink_to(new + target[len(old):])
        return
    data = path.read_bytes()
    if old.encode() not in data:
        return
    mode = path.stat().st_mode & 0o7777
    path.unlink()
    path.write_bytes(data.replace(old.encode(), new.encode()))
    path.chmod(mode)

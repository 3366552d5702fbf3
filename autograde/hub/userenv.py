"""The Python every hub user's server and kernels run: the project's .venv, reachable by other Unix users.

The repository's ``.venv`` may be built on an interpreter other users cannot execute (pyenv
under ``/root``, mode 700). ``user_python`` then copies that interpreter's core (binary, shared
library, standard library; not its site-packages or tests) into a folder everyone can read, adds
one ``.pth`` line pointing at the .venv's site-packages (editable ``attnkit`` included), and links
the .venv's Jupyter data and config (nbgrader's lab and server extensions) into it. The same
CPython build, not merely the same minor version: Debian's 3.11.2, for one, mis-compiles the
possessive regexes soupsieve uses when nbgrader writes HTML feedback.
"""
import os
import pathlib
import shutil
import stat
import sys
import sysconfig

# Commands the users' servers and terminals need (nbgrader itself runs `alembic`): thin wrappers
# around `python -m`, since the .venv's own scripts start the interpreter other users cannot run.
COMMANDS = {"alembic": "alembic", "jupyter": "jupyter", "nbgrader": "nbgrader"}
_STDLIB_SKIP = shutil.ignore_patterns("site-packages", "test", "idlelib", "tkinter", "turtledemo",
                                      "ensurepip", "config-*", "lib2to3")
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


def world_reachable(path) -> bool:
    """Can any user open ``path``: every parent folder searchable by others, the file readable?"""
    path = pathlib.Path(path).resolve()
    if not path.exists() or not path.stat().st_mode & stat.S_IROTH:
        return False
    return all(parent.stat().st_mode & stat.S_IXOTH for parent in path.parents)


def library_env(python) -> dict:
    """Environment a copied interpreter needs: its libpython is beside it, not where it was built."""
    lib = pathlib.Path(python).parent.parent / "lib"
    return {"LD_LIBRARY_PATH": str(lib)} if list(lib.glob("libpython*.so*")) else {}


def _copy_interpreter(folder: pathlib.Path) -> pathlib.Path:
    base = pathlib.Path(sys.base_prefix)
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    python = folder / "bin" / VERSION
    shutil.copy2(base / "bin" / VERSION, python)
    for library in (base / "lib").glob("libpython*.so*"):
        shutil.copy2(library, folder / "lib" / library.name, follow_symlinks=True)
    shutil.copytree(base / "lib" / VERSION, folder / "lib" / VERSION, ignore=_STDLIB_SKIP, dirs_exist_ok=True)
    (folder / "lib" / VERSION / "site-packages").mkdir(exist_ok=True)
    return python


def _link_project(folder: pathlib.Path, python: pathlib.Path, site_packages: pathlib.Path) -> None:
    (folder / "lib" / VERSION / "site-packages" / "_attn_project_venv.pth").write_text(
        f"import site; site.addsitedir({str(site_packages)!r})\n")
    for sub in ("share/jupyter", "etc/jupyter"):
        link = folder / sub
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(pathlib.Path(sys.prefix) / sub)
    exports = "".join(f'export {k}="{v}"\n' for k, v in library_env(python).items())
    for command, module in COMMANDS.items():
        script = folder / "bin" / command
        script.write_text(f'#!/bin/sh\n{exports}exec "{python}" -m {module} "$@"\n')
        script.chmod(0o755)


def user_python(folder: pathlib.Path) -> pathlib.Path:
    """An interpreter any Unix user can run that sees this venv's packages; ``sys.executable`` if it already is one."""
    site_packages = pathlib.Path(sysconfig.get_paths()["purelib"])
    if not world_reachable(site_packages):
        raise RuntimeError(f"{site_packages} is not readable by other users: clone the repository "
                           "into a folder every user can enter (e.g. /srv or /opt), then `make hub`")
    if world_reachable(os.path.realpath(sys.executable)):
        return pathlib.Path(sys.executable)
    folder = pathlib.Path(folder)
    python = folder / "bin" / VERSION
    if not python.exists():
        (folder / "lib").mkdir(parents=True, exist_ok=True)
        python = _copy_interpreter(folder)
    _link_project(folder, python, site_packages)
    return python

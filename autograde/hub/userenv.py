"""The hub users' Python: one shared environment, as TLJH's ``/opt/tljh/user``, holding the chapter's packages and never the course.

:func:`ensure` makes ``prefix`` a venv of :func:`hub.interpreter.base_python` with

* the project **as a package**: a wheel of ``attnkit`` and ``coursekit`` built from a copy of
  exactly their sources (:data:`SOURCES`), never an editable install, so nothing in it points
  back into the repository, and checked to hold those two packages only (no master, grader or
  rubric: they stay in the instructor's course);
* its dependencies and the ``course`` extra (JupyterLab, nbgrader, ``jupyterhub-singleuser``,
  the marking page's renderers), at the versions of the project's own ``.venv`` (its
  ``pip freeze`` as constraints), so the hub runs what the tests ran.

Folders 755, files 644: every user reads it, only root writes it, and its bytecode is compiled
when it is built (users cannot write ``__pycache__``: without it every server and kernel start
compiles what it imports, seconds each). ``<prefix>/attention-hub.json`` says what was built and
how long each phase took: the environment is made again when the base interpreter, the installer
or the dependencies change, and only the project is reinstalled when only its sources change.

**Copied, not linked, from the installer's cache.** uv links files out of its cache when told to
(``--link-mode hardlink``): a hard link is the same file under two names, so the users'
environment would share every file with root's cache and with every other environment linked
from it (the project's own ``.venv`` among them, which uv fills with links by default). An edit in
place in any of them (a patched module while debugging, a tool rewriting a file) would change what
every student's server runs, and the modes set here would change the cache's files. ``make hub``
therefore copies. The hub tests' throw-away environments link (``link_from_cache=True``): they live
for one test run in a folder removed after it, their files stay root's and mode 644, so the
students of the test hub still cannot write them. Linking saves copying ≈ 650 MB, and, since the
linked modules are the very files of the project's ``.venv``, compiling them again: their bytecode
is linked from there (:func:`_compile_linked`). Together ≈ 8 s instead of ≈ 25–40 s on 2 busy cores.
"""
import contextlib
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile

from hub import interpreter
from hub.build_lock import build_lock

__all__ = ["SOURCES", "source_digest", "build_wheel", "ensure", "remove"]

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "attnkit", "autograde/coursekit")  # what the wheel is built from
PACKAGES = ("attnkit", "coursekit")  # the only top-level folders the wheel may hold (with its .dist-info)
LAB_EXTENSIONS = "share/jupyter/labextensions/"  # the only data files: the students' Lab extension
STAMP = "attention-hub.json"
_SKIP = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "*.pyc")


def _source_files(repo: pathlib.Path) -> list:
    files = []
    for name in SOURCES:
        path = repo / name
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        files += [p for p in found if "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts
                  and p.suffix != ".pyc"]
    return files


def source_digest(repo=REPO) -> str:
    """SHA-256 over the wheel's sources (relative paths and contents): the project's version for the hub."""
    repo = pathlib.Path(repo)
    digest = hashlib.sha256()
    for path in _source_files(repo):
        digest.update(str(path.relative_to(repo)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_wheel(out_dir, repo=REPO) -> pathlib.Path:
    """The project's wheel, built from a copy of :data:`SOURCES` (the repository gets no build/ folder)."""
    repo, out_dir = pathlib.Path(repo), pathlib.Path(out_dir)
    with tempfile.TemporaryDirectory(prefix="attn-wheel-") as tmp:
        src = pathlib.Path(tmp) / "src"
        for name in SOURCES:
            if (repo / name).is_dir():
                shutil.copytree(repo / name, src / name, ignore=_SKIP)
            else:
                (src / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(repo / name, src / name)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                        "--wheel-dir", str(out_dir), str(src)], check=True, capture_output=True, text=True)
    (wheel,) = out_dir.glob("attnkit-*.whl")
    check_wheel(wheel)
    return wheel


def check_wheel(wheel) -> None:
    """Refuse a wheel that holds anything but attnkit, coursekit, its own metadata and Lab extensions."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    allowed = "|".join((*(f"{p}/" for p in PACKAGES), r"attnkit-[^/]+\.dist-info/",
                        rf"attnkit-[^/]+\.data/data/{LAB_EXTENSIONS}"))
    stray = [n for n in names if not re.match(allowed, n) or n.startswith(("coursekit/grader", "coursekit/source"))]
    if stray:
        raise RuntimeError(f"{wheel} holds files that are not the packages {PACKAGES} or {LAB_EXTENSIONS}: "
                           f"{stray[:5]} — the hub's environment is readable by every student; "
                           "fix [tool.setuptools] in pyproject.toml")


def _constraints() -> str:
    """The project's .venv as pins (``pip freeze``), without the project itself or direct references."""
    frozen = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], check=True,
                            capture_output=True, text=True).stdout.splitlines()
    return "\n".join(line for line in frozen if line and " @ " not in line
                     and not line.lower().startswith(("attnkit", "-e"))) + "\n"


def _dependencies_digest(constraints: str, repo: pathlib.Path) -> str:
    """What the dependencies depend on: the interpreter's version, the project's requirements, the pins
    (the base's path is a stamp field of its own, so a copy of the environment elsewhere stays valid)."""
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["course"]]
    text = json.dumps([sys.version, wanted, constraints])
    return hashlib.sha256(text.encode()).hexdigest()


def _pip_env() -> dict:
    """This process's environment without what would point pip or Python at the project's .venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, "PATH": os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])}


def _uv():
    """uv beside this Python (``make venv`` puts it there), or None."""
    uv = pathlib.Path(sys.executable).with_name("uv")
    return uv if uv.is_file() and os.access(uv, os.X_OK) else None


def _new_venv(base: pathlib.Path, prefix: pathlib.Path) -> None:
    """An empty venv of ``base`` at ``prefix``; with pip only when its own pip is to fill it (without uv):
    nothing else in it runs pip (users cannot install into it), and ensurepip took 3-10 s of the build."""
    without_pip = ["--without-pip"] if _uv() else []
    subprocess.run([str(base), "-m", "venv", "--clear", *without_pip, str(prefix)], check=True, env=_pip_env())


def _install(prefix: pathlib.Path, *args, reinstall=False, link_from_cache=False) -> None:
    """Install ``args`` into ``prefix``: with uv's pip interface when it sits beside this Python (the same
    packages as pip, ≈ 9 s instead of ≈ 46 s), otherwise with ``prefix``'s own pip.

    uv copies out of its cache and compiles the bytecode, as pip does: users cannot write ``__pycache__``
    here. With ``link_from_cache`` (the tests' throw-away hubs only: the module's docstring says why) it
    links instead, and leaves the bytecode to :func:`_compile_linked`.
    """
    python, uv = str(prefix / "bin" / "python"), _uv()
    if uv:
        how = ["--link-mode", "hardlink"] if link_from_cache else ["--link-mode", "copy", "--compile-bytecode"]
        command = [str(uv), "pip", "install", "--quiet", "--python", python, *how,
                   *(["--reinstall"] if reinstall else [])]
    else:
        command = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                   *(["--force-reinstall"] if reinstall else [])]
    done = subprocess.run([*command, *args], env=_pip_env(), capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"installing into the hub's user environment {prefix} failed:\n{done.stderr[-3000:]}")


def _site_packages(prefix) -> pathlib.Path:
    return pathlib.Path(prefix) / "lib" / interpreter.VERSION / "site-packages"


def _compile_linked(prefix: pathlib.Path, log) -> None:
    """The bytecode of an environment whose packages uv linked from its cache: each module there is the very
    file the project's ``.venv`` holds (``make venv`` lets uv link too), so the bytecode ``.venv`` compiled
    for it is linked first; ``compileall`` (one process per core) then checks every module's bytecode
    against its source and compiles what is missing or stale (the project's wheel, at least)."""
    site = _site_packages(prefix)
    _link_same_files_bytecode(_site_packages(sys.prefix), site)
    done = subprocess.run([str(prefix / "bin" / "python"), "-m", "compileall", "-q", "-j", "0", str(site)],
                          env=_pip_env(), capture_output=True, text=True)
    if done.returncode == 1:  # a file that is not valid Python: importing it fails anyway, as after uv's compile
        log(f"not compiled in {site}: {done.stdout.strip()[-1000:]}")
    elif done.returncode:
        raise RuntimeError(f"compiling the hub's user environment {prefix} failed:\n{done.stderr[-3000:]}")


def _link_same_files_bytecode(donor: pathlib.Path, site: pathlib.Path) -> None:
    """Hard-link ``donor``'s bytecode into ``site`` for each module that is the same file in both."""
    for cache in donor.rglob("__pycache__"):
        package = cache.parent.relative_to(donor)
        for compiled in cache.glob("*.pyc"):
            source = package / f"{compiled.name.split('.', 1)[0]}.py"
            with contextlib.suppress(OSError):  # no such module here
                if os.path.samefile(donor / source, site / source):
                    (site / package / "__pycache__").mkdir(exist_ok=True)
                    os.link(compiled, site / package / "__pycache__" / compiled.name)


def _read_stamp(prefix: pathlib.Path) -> dict:
    try:
        return json.loads((prefix / STAMP).read_text())
    except (OSError, ValueError):
        return {}


class _Phases(dict):
    """Seconds of each phase of a build, in order."""

    @contextlib.contextmanager
    def timed(self, name: str):
        start = time.monotonic()
        try:
            yield
        finally:
            self[name] = round(time.monotonic() - start, 1)

    def __str__(self) -> str:
        return f"{round(sum(self.values()), 1)} s ({', '.join(f'{k} {v}' for k, v in self.items())})"


def ensure(prefix, repo=REPO, log=print, link_from_cache=False) -> pathlib.Path:
    """Bring the user environment at ``prefix`` up to this repository's version; its ``bin/python``.
    ``link_from_cache``: hard-link the packages from uv's cache instead of copying them (tests only)."""
    prefix, repo = pathlib.Path(prefix), pathlib.Path(repo)
    with build_lock(prefix):  # make hub, the hub tests of another work tree ...
        phases = _Phases()
        with phases.timed("interpreter"):
            base = interpreter.base_python(prefix.parent)
        constraints = _constraints()
        wanted = {"base": str(base), "installer": "uv" if _uv() else "pip",
                  "dependencies": _dependencies_digest(constraints, repo), "project": source_digest(repo)}
        stamp = _read_stamp(prefix)
        if {k: stamp.get(k) for k in wanted} == wanted:
            return prefix / "bin" / "python"
        fresh = any(stamp.get(k) != wanted[k] for k in ("base", "installer", "dependencies"))
        log(f"{'building' if fresh else 'updating the project in'} the hub's user environment {prefix} ...")
        _build(prefix, base, repo, constraints, fresh, link_from_cache, phases, log)
        (prefix / STAMP).write_text(json.dumps({**wanted, "fresh": fresh, "seconds": phases}, indent=1))
        (prefix / STAMP).chmod(0o644)
        log(f"hub user environment ready in {phases}: {prefix}")
        return prefix / "bin" / "python"


def _build(prefix, base, repo, constraints: str, fresh: bool, link_from_cache: bool, phases: _Phases, log) -> None:
    """A new venv with the wheel and its pinned dependencies (``fresh``), or only the wheel again; modes."""
    with tempfile.TemporaryDirectory(prefix="attn-hub-env-") as tmp:
        with phases.timed("wheel"):
            wheel = build_wheel(tmp, repo)
        if fresh:
            with phases.timed("venv"):
                _new_venv(base, prefix)
            (pathlib.Path(tmp) / "constraints.txt").write_text(constraints)
            with phases.timed("install"):
                _install(prefix, "--constraint", str(pathlib.Path(tmp) / "constraints.txt"), f"{wheel}[course]",
                         link_from_cache=link_from_cache)
        else:
            with phases.timed("install"):
                _install(prefix, "--no-deps", str(wheel), reinstall=True, link_from_cache=link_from_cache)
    if link_from_cache:
        with phases.timed("bytecode"):
            _compile_linked(prefix, log)
    with phases.timed("modes"):
        interpreter.make_readable(prefix)


def remove(prefix) -> list:
    """Delete the environment at ``prefix``, its lock and the interpreter installed beside it (with
    any copy an interrupted build left); what was removed."""
    prefix = pathlib.Path(prefix)
    unfinished = sorted(prefix.parent.glob(f"{interpreter.UNFINISHED}*"))
    removed = [p for p in (prefix, prefix.parent / interpreter.INSTALLED, *unfinished) if p.exists()]
    for path in removed:
        shutil.rmtree(path)
    (prefix.parent / f".{prefix.name}.lock").unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        prefix.parent.rmdir()  # only when nothing else is left in it
    return [str(p) for p in removed]

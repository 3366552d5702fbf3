"""The students' Lab extension, built from its TypeScript source (``make labextension``).

The source is ``autograde/coursekit/labextension/`` (``package.json``, ``package-lock.json``,
``tsconfig.json``, ``rspack.config.js``, ``src/index.ts``), laid out as JupyterLab's extension
template lays one out. The build is the package's own ``npm run build``: ``tsc`` into ``lib/``,
then JupyterLab's builder (``jupyter-builder build``, which ``jupyter labextension build`` runs
since JupyterLab 4.6) into ``jupyterlab.outputDir``, ``attention-feedback/``: ``package.json``
and ``static/`` with content-hashed file names. That folder is committed and is what Lab loads
(``make venv`` links it, the wheel ships it).

The build runs in a copy of the source under ``.state/labextension/`` (or ``--work``), so that
``node_modules/`` (≈ 200 MB) and ``lib/`` never land in ``autograde/coursekit/``, which the hub
copies and hashes. npm installs exactly ``package-lock.json`` (``npm ci``) from its cache in
``.state/npm``, asking the registry only for what the cache lacks.

    python scripts/build_labextension.py                  # -> autograde/coursekit/labextension/attention-feedback/
    python scripts/build_labextension.py --out DIR        # elsewhere (tests/integration/test_labextension_build.py)
    python scripts/build_labextension.py --update-lock    # after editing package.json's dependencies
"""
import argparse
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
SOURCE = REPO / "autograde" / "coursekit" / "labextension"
SOURCES = ("package.json", "package-lock.json", "tsconfig.json", "rspack.config.js", "src")
WORK = REPO / ".state" / "labextension"
NPM_CACHE = REPO / ".state" / "npm"
INSTALLED = ".installed-lock"  # in node_modules/: the SHA-256 of the package-lock.json it was installed from
NPM_QUIET = ("--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")


class BuildError(RuntimeError):
    """The build cannot run here (no node/npm, too old a node) or one of its steps failed."""


def output_dir_name(source=SOURCE) -> str:
    """package.json's ``jupyterlab.outputDir``: the built folder's name beside the source."""
    return json.loads((pathlib.Path(source) / "package.json").read_text())["jupyterlab"]["outputDir"]


def node_problem():
    """Why the build cannot run here (no node or npm, or a node too old for the builder's bundler,
    rspack: package.json's engines), in one line; None when it can."""
    if not (shutil.which("node") and shutil.which("npm")):
        return "node and npm are needed to build the Lab extension: apt-get install nodejs npm"
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    major, minor = (int(part) for part in re.match(r"v(\d+)\.(\d+)", version).groups())
    if (major == 20 and minor >= 19) or (major, minor) >= (22, 12):
        return None
    engines = json.loads((SOURCE / "package.json").read_text())["engines"]["node"]
    return f"node {version} is too old to build the Lab extension (needs {engines}): install a newer nodejs"


def _run(command, cwd, step) -> None:
    env = dict(os.environ, npm_config_cache=os.environ.get("npm_config_cache", str(NPM_CACHE)))
    env["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # jupyter-builder of this venv
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"{step} failed ({' '.join(command)} in {cwd}, exit {done.returncode}):\n"
                         f"{done.stdout[-3000:]}{done.stderr[-3000:]}")


def stage(work: pathlib.Path, update_lock=False) -> None:
    """A fresh copy of the source in ``work``; its node_modules/ is kept, everything built before is not."""
    work.mkdir(parents=True, exist_ok=True)
    for name in ("src", "lib", output_dir_name()):
        shutil.rmtree(work / name, ignore_errors=True)
    for name in SOURCES:
        if update_lock and name == "package-lock.json":
            (work / name).unlink(missing_ok=True)  # npm install resolves package.json afresh and writes it
            continue
        if not (SOURCE / name).exists():
            hint = " (write it: --update-lock)" if name == "package-lock.json" else ""
            raise BuildError(f"{SOURCE / name} is missing{hint}")
        if (SOURCE / name).is_dir():
            shutil.copytree(SOURCE / name, work / name)
        else:
            shutil.copy2(SOURCE / name, work / name)


def install(work: pathlib.Path, update_lock=False) -> None:
    """node_modules/ exactly as package-lock.json says (npm ci), unless already installed from this very lock.
    With ``update_lock``: npm install resolves package.json afresh, and its lock is copied back to the source."""
    if update_lock:
        _run(["npm", "install", *NPM_QUIET], work, "npm install")
        shutil.copy2(work / "package-lock.json", SOURCE / "package-lock.json")
    lock = hashlib.sha256((work / "package-lock.json").read_bytes()).hexdigest()
    stamp = work / "node_modules" / INSTALLED
    if stamp.exists() and stamp.read_text() == lock:
        return
    _run(["npm", "ci", *NPM_QUIET], work, "npm ci")
    stamp.write_text(lock)


def publish(built: pathlib.Path, out: pathlib.Path) -> list:
    """``out`` made to hold exactly the files of ``built`` (the folder itself is kept: Lab's link points at it)."""
    out.mkdir(parents=True, exist_ok=True)
    for entry in out.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    shutil.copytree(built, out, dirs_exist_ok=True)
    return sorted(str(path.relative_to(out)) for path in out.rglob("*") if path.is_file())


def build(out=None, work=WORK, update_lock=False) -> list:
    """Build the extension from source into ``out`` (default: the committed folder); the files written."""
    problem = node_problem()
    if problem:
        raise BuildError(problem)
    work = pathlib.Path(work)
    stage(work, update_lock)
    install(work, update_lock)
    _run(["npm", "run", "build"], work, "npm run build (tsc, then jupyter-builder build)")
    name = output_dir_name()
    return publish(work / name, pathlib.Path(out) if out else SOURCE / name)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="where the built extension goes (default: the committed folder)")
    parser.add_argument("--work", default=str(WORK), help="the build folder: source copy, node_modules, lib")
    parser.add_argument("--update-lock", action="store_true", help="resolve package.json again and rewrite the lock")
    args = parser.parse_args(argv)
    start = time.monotonic()
    try:
        written = build(args.out, args.work, args.update_lock)
    except BuildError as error:
        print(f"build_labextension: {error}", file=sys.stderr)
        return 1
    out = args.out or SOURCE / output_dir_name()
    print(f"built the Lab extension in {time.monotonic() - start:.1f} s into {out}: {', '.join(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

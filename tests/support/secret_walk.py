"""What one Unix account can read of the course's secrets, anywhere on the machine.

:func:`fingerprints` turns the course's secret parts into text to look for: every line (24+
characters) of the master's solution and hidden-test regions and reference answers, of the
grader's source and of the rubrics, that appears neither in anything students are given (the
released notebook, the attnkit and coursekit sources) nor in any Python file of the project's
own environment and standard library (lines such as ``from IPython import get_ipython`` prove
nothing); each also as it is written inside a notebook's JSON and in HTML; the names only the
hidden regions use (``_attn_grader``), which survive a highlighted HTML page; and nbgrader's
region markers (:data:`MARKERS`), the sign of any master, except in nbgrader's own package.

:func:`walk` runs as that account (its uid and gid, no other groups): ``find -readable`` lists
every regular file it may open under the given folders, each on its own filesystem only (so
``/proc``, ``/sys``, ``/dev`` and other pseudo or foreign filesystems are never entered), and
``grep -F`` reads them for the fingerprints, which reach it through an anonymous memory file,
never a path it could find. Every file under the folders of the set-up being tested (``own``) is
read; elsewhere, with ``since`` given, only files changed since then (what a running hub could
have written), while older ones are the machine's own: whole course copies among them (a
developer's clone, a colleague's experiment) are listed by name. Files over :data:`MAX_BYTES`
and compressed archives (plain text cannot be seen in them) are not read.
"""
import bisect
import dataclasses
import html
import json
import os
import pathlib
import pwd
import re
import subprocess
import sys
import sysconfig
import time

from coursekit.paths import CONFIG_FILE

__all__ = ["MAX_BYTES", "Walk", "fingerprints", "walk"]

MAX_BYTES = 16 * 2**20
MIN_LINE = 24
COMPRESSED = (".whl", ".zip", ".gz", ".tgz", ".xz", ".bz2", ".zst", ".deb", ".jar", ".pack", ".7z", ".lz4")
_REGION = re.compile(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{7,}")
# nbgrader's region markers: any master carries them, this course's or another's. nbgrader's own
# documentation and tests in the shared environment carry them too, and there they mark nothing.
MARKERS = ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS")
NBGRADER_OWN = "/site-packages/nbgrader/"


@dataclasses.dataclass
class Walk:
    user: str
    files_listed: int
    files_read: int
    seconds: float
    hits: dict            # {path: [fingerprints found]}: what the account can read and must not
    other_copies: list    # whole course copies outside the folders under test (read only if changed since ``since``)


# ---------- what to look for ----------

def _secret_lines(course: pathlib.Path) -> tuple:
    """(lines, hidden-region lines) of the secret parts of every source notebook (each edition's: the master and the
    English one written from it), the grader and the rubrics."""
    lines, hidden = [], []
    for path in sorted((course / "source").glob("*/*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown" and cell["metadata"].get("nbgrader", {}).get("solution"):
                lines += source.splitlines()  # a reference answer
                continue
            region = None
            for line in source.splitlines():
                marker = _REGION.search(line)
                if marker:
                    region = marker.group(2) if marker.group(1) == "BEGIN" else None
                elif region:
                    (hidden if region == "HIDDEN TESTS" else lines).append(line)
    for path in sorted((course / "grader").rglob("*.py")) + sorted((course / "rubrics").glob("*.toml")):
        lines += path.read_text(encoding="utf-8").splitlines()
    return lines + hidden, hidden


def _public_text(repo: pathlib.Path) -> str:
    """What students are given or may read anyway: each edition's release and the two packages' sources."""
    parts = [(repo / "notebooks").rglob("*.ipynb"), (repo / "attnkit").rglob("*.*"),
             (repo / "autograde" / "coursekit").rglob("*.*")]
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for group in parts for p in group
                     if p.is_file() and "__pycache__" not in p.parts)


def _generic(candidates: set) -> set:
    """The candidates found in some Python file of this interpreter's environment or standard library."""
    folders = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"]}
    fd = _memory_file("\n".join(sorted(candidates)))
    # One grep per core; --line-buffered keeps their lines whole in the shared pipe.
    found = subprocess.run(f"find {' '.join(sorted(folders))} -name '*.py' -print0 | "
                           f"xargs -0 -r -P {os.cpu_count() or 1} -n 2000 "
                           f"grep --line-buffered -hoF -f /proc/self/fd/{fd} --", shell=True,
                           pass_fds=(fd,), capture_output=True, text=True, errors="replace").stdout
    os.close(fd)
    return set(found.splitlines())


def fingerprints(course, repo) -> list:
    """The strings that mark a file as holding the course's secrets (see the module's docstring)."""
    lines, hidden = _secret_lines(pathlib.Path(course))
    public = _public_text(pathlib.Path(repo))
    candidates = {line.strip() for line in lines if len(line.strip()) >= MIN_LINE} - {""}
    candidates = {line for line in candidates if line not in public}
    names = {n for line in hidden for n in _NAME.findall(line) if n not in public}
    generic = _generic(candidates | names)  # one pass over the environment for both
    candidates -= generic
    names -= generic
    written = set(names) | set(MARKERS)
    for line in candidates:
        written |= {line, json.dumps(line, ensure_ascii=False)[1:-1], json.dumps(line)[1:-1], html.escape(line)}
    return sorted(written)


# ---------- the walk, as the account ----------

def _memory_file(text: str) -> int:
    """An anonymous file holding ``text``: another account opens it through /proc/self/fd, never by a path."""
    fd = os.memfd_create("fingerprints", 0)
    os.write(fd, text.encode())
    return fd


def _as(user: str, command, timeout, **kwargs):
    entry = pwd.getpwnam(user)
    return subprocess.run(command, user=entry.pw_uid, group=entry.pw_gid, extra_groups=[], cwd="/",
                          env={"PATH": "/usr/bin:/bin", "LANG": "C"}, capture_output=True, timeout=timeout, **kwargs)


def _readable(user: str, roots, timeout) -> dict:
    """{path: ctime} of every regular file ``user`` may open under ``roots``, each root on its own filesystem."""
    script = ("for root; do find \"$root\" -xdev -type f -readable -size -%dc -printf '%%C@ %%p\\0' 2>/dev/null; done"
              % (MAX_BYTES + 1))
    listed = _as(user, ["sh", "-c", script, "walk", *map(str, roots)], timeout).stdout
    entries = (e.split(" ", 1) for e in listed.decode(errors="surrogateescape").split("\0") if " " in e)
    return {path: float(ctime) for ctime, path in entries}


def _under(path: str, folders) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _course_copies(files: list) -> list:
    """Folders among ``files`` (sorted) holding an nbgrader_config.py beside source/ or grader/, or the
    checkout (pyproject.toml beside) that holds such a folder."""
    present = set(files)

    def holds(prefix):  # the first path at or after prefix tells
        index = bisect.bisect_left(files, prefix)
        return index < len(files) and files[index].startswith(prefix)

    roots = set()
    for path in files:
        if path.endswith("/" + CONFIG_FILE):
            folder = path[: -len(CONFIG_FILE) - 1]
            if holds(folder + "/source/") or holds(folder + "/grader/"):
                parent = os.path.dirname(folder)
                roots.add(parent if f"{parent}/pyproject.toml" in present else folder)
    return sorted(roots)


def walk(user: str, roots, prints, own=("/",), since=None, timeout=600) -> Walk:
    """As ``user``: the readable files under ``roots`` searched for ``prints``: all of them under ``own``,
    elsewhere those changed since ``since`` (all when ``since`` is None)."""
    started = time.monotonic()
    own = [str(f) for f in own]
    listed = _readable(user, roots, timeout)
    files = sorted(listed)
    fresh = [p for p in files if _under(p, own) or since is None or listed[p] >= since]
    others = [c for c in _course_copies(files) if not _under(c, own)]
    to_read = [p for p in fresh if not p.endswith(COMPRESSED) and "/.git/objects/" not in p]
    fd = _memory_file("\n".join(prints))
    try:
        found = _as(user, ["xargs", "-0", "-r", "-n", "500", "-P", str(os.cpu_count() or 1),
                           "grep", "-lsF", "-f", f"/proc/self/fd/{fd}", "--"], timeout,
                    input="\0".join(to_read).encode(errors="surrogateescape"), pass_fds=(fd,))
    finally:
        os.close(fd)
    hits = {path: _which(path, prints) for path in found.stdout.decode(errors="surrogateescape").splitlines()}
    hits = {path: seen for path, seen in hits.items() if not (NBGRADER_OWN in path and set(seen) <= set(MARKERS))}
    return Walk(user, len(files), len(to_read), round(time.monotonic() - started, 1), hits, others)


def _which(path: str, prints) -> list:
    """The fingerprints in ``path`` (read by the caller, root): markers last, at most three others."""
    try:
        text = pathlib.Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ["(gone before it could be named)"]
    seen = [p for p in prints if p in text and p not in MARKERS][:3]
    return seen + [m for m in MARKERS if m in text]


if __name__ == "__main__":  # python -m support.secret_walk USER ROOT... (from tests/): every file, by hand
    from coursekit.paths import COURSE, REPO

    result = walk(sys.argv[1], sys.argv[2:] or ["/"], fingerprints(COURSE, REPO))
    print(json.dumps(dataclasses.asdict(result), ensure_ascii=False, indent=1))

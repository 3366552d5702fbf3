"""The chapter's figures under grading, drawn once by trusted code, so that sandboxed kernels only read them.

Part of the chapter's plug-in for the course toolkit (:mod:`attnkit.course`, its ``prepare``); run by the
grading process, never in a student's kernel.

Under nbgrader the chapter's demo cells show cached PNGs (:mod:`attnkit.static`): the first notebook
draws them, every later one reads them. A sandboxed kernel sees the cache read-only — a student
must not be able to plant pictures in it — so it could never fill a cold cache and every student
would pay the drawing (seconds each). Before the first sandboxed kernel of a process, :func:`warm`
therefore runs the course's *release* notebook (the instructor's own: stubs, no student code)
outside the sandbox with ``NBGRADER_EXECUTION=autograde`` and the real cache, and leaves a mark
for that release and that attnkit; later runs find the mark and start at once. The diagnosis
picture of a wrong function depends on the student, so it is still drawn in the sandbox — with
matplotlib's font list made here too (``<cache>/matplotlib``, copied into each sandbox's /tmp), so
that no kernel rebuilds it (seconds, and ``fc-list`` complaining on stderr).
"""
import fcntl
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

from coursekit.upstream.nbclient import keep_signal_handlers

__all__ = ["warm"]

TIMEOUT = 300  # seconds for the whole release notebook (the loops-vs-matmul timing cell is the slowest)


def _mark(cache: pathlib.Path, releases: list) -> pathlib.Path:
    from .static import _code_version

    digest = hashlib.sha256(f"{_code_version()} fonts".encode())  # the mark covers the font list too
    for path in releases:
        digest.update(path.read_bytes())
    return cache / f"warm-{digest.hexdigest()[:24]}"


async def warm(course, cache, log=None) -> None:
    """Fill ``cache`` with the figures of ``course``'s release, once per release and attnkit version."""
    if not cache:
        return
    releases = sorted(pathlib.Path(course).glob("release/*/*.ipynb"))
    if not releases:
        return  # nothing generated yet (validating the master): the kernel draws for itself
    cache = pathlib.Path(cache)
    cache.mkdir(parents=True, exist_ok=True)
    mark = _mark(cache, releases)
    if mark.exists():
        return
    with open(cache / ".warming.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be warming the same cache right now
        if mark.exists():
            return
        env = dict(os.environ, NBGRADER_EXECUTION="autograde", ATTNKIT_CACHE_DIR=str(cache),
                   MPLCONFIGDIR=str(cache / "matplotlib"))
        for release in releases:
            if log:
                log.info("drawing the chapter's figures for grading, once: %s", release)
            with tempfile.TemporaryDirectory() as folder:
                nb = nbformat.read(release, as_version=4)
                client = NotebookClient(nb, timeout=TIMEOUT, allow_errors=True, kernel_name="python3",
                                        kernel_manager_class=AsyncKernelManager, resources={"metadata": {"path": folder}})
                with keep_signal_handlers():
                    await client.async_execute(env=env)
        fonts = subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, capture_output=True)
        if fonts.returncode == 0:
            for path in (cache / "matplotlib").rglob("*"):
                path.chmod(path.stat().st_mode | 0o044 | (0o011 if path.is_dir() else 0))  # readable by sandbox uids
            mark.touch()

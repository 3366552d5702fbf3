"""Under nbgrader, the chapter's demo figures are static PNGs, cached on disk (no matplotlib needed).

nbgrader sets ``NBGRADER_EXECUTION`` in the kernel's environment: ``"autograde"`` in
``nbgrader autograde`` and ``"validate"`` in ``nbgrader validate`` / the Validate button
(nbgrader 0.9: ``converters/autograde.py``, ``validator.py``). The demos are for reading;
under grading they buy nothing, yet a class re-draws the same figures for every student.
Validate draws nothing at all (:func:`validating`): nbgrader's Validator runs the notebook in memory and keeps
only its verdict, so a picture drawn there is never seen, and drawing the chapter's five into an empty cache
cost the student's first Validate ≈ 1.3 s on an idle machine (3 s on the test hub; benchmarks/bench_hub.py).
For autograde, :func:`cached_png` keys each picture by what it shows (the figure's name, its parameters,
arrays by content, and the language its words are in) and by the code and library versions that
draw it, and renders it once per cache folder: every later student's kernel reads the bytes back.

The cache folder is ``$ATTNKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/attnkit``, else
``~/.cache/attnkit``; a folder that cannot be written just means rendering every time.
Files are written to a temporary name and renamed, so parallel graders never read half a PNG.
Only numpy and the standard library here: :mod:`attnkit.figures` imports matplotlib
(through :mod:`attnkit.plotting`) only when it has to draw.
"""
import functools
import hashlib
import os
import pathlib
import tempfile
from importlib import metadata

import numpy as np

from .language import resolve

__all__ = ["GRADING_MODES", "under_grading", "validating", "cache_dir", "cache_key", "cached_png"]

GRADING_MODES = ("autograde", "validate")  # the values nbgrader gives NBGRADER_EXECUTION
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PACKAGE = pathlib.Path(__file__).resolve().parent


def under_grading() -> bool:
    """True when nbgrader runs this kernel (autograde or validate), False for a student's own run."""
    return os.environ.get("NBGRADER_EXECUTION") in GRADING_MODES


def validating() -> bool:
    """True under nbgrader's Validate, whose outputs nobody sees (it keeps only which cells passed)."""
    return os.environ.get("NBGRADER_EXECUTION") == "validate"


def cache_dir() -> pathlib.Path:
    if os.environ.get("ATTNKIT_CACHE_DIR"):
        return pathlib.Path(os.environ["ATTNKIT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "attnkit"


@functools.lru_cache(maxsize=None)
def _code_version() -> str:
    """The drawing code and libraries: any edit to attnkit or a new matplotlib renders afresh."""
    digest = hashlib.sha256()
    for source in sorted(PACKAGE.glob("*.py")):
        digest.update(source.name.encode() + source.read_bytes())
    for library in ("matplotlib", "numpy", "pylopdf-fonts-zh-cn"):
        digest.update(f"{library}={metadata.version(library)}".encode())
    return digest.hexdigest()


def _feed(digest, value) -> None:
    if isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value)
        digest.update(f"array {array.dtype.str} {array.shape}".encode() + array.tobytes())
    elif isinstance(value, dict):
        for key in sorted(value):
            digest.update(f"key {key!r}".encode())
            _feed(digest, value[key])
    elif isinstance(value, (list, tuple)):
        digest.update(f"seq {len(value)}".encode())
        for item in value:
            _feed(digest, item)
    else:
        digest.update(f"value {value!r}".encode())


def cache_key(name: str, params: dict, *, lang: str | None = None) -> str:
    """A file name for figure ``name`` drawn from ``params`` (arrays hashed by dtype, shape and bytes) with its
    words in ``lang`` (the notebook's language by default): each edition has its own picture."""
    digest = hashlib.sha256(_code_version().encode())
    _feed(digest, {"figure": name, "params": params, "language": resolve(lang)})
    return f"{name}-{digest.hexdigest()[:32]}.png"


def _read(path: pathlib.Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if data.startswith(PNG_MAGIC) else None  # a truncated or foreign file: render again


def _write(path: pathlib.Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
            handle.write(data)
        os.chmod(handle.name, 0o644)  # a picture for every kernel, sandboxed ones (another uid) included
        os.replace(handle.name, path)
    except OSError:
        pass  # read-only home: the figure is still shown, just not cached


def cached_png(name: str, params: dict, render, *, lang: str | None = None) -> bytes:
    """The PNG of figure ``name`` for ``params`` in ``lang``: from the cache, else ``render()`` and stored."""
    path = cache_dir() / cache_key(name, params, lang=lang)
    data = _read(path)
    if data is None:
        data = render()
        _write(path, data)
    return data

"""The bytecode of the tests' hub environments, whose packages uv linked from its cache
(``hub.userenv._compile_linked``): every module compiled at build time, since users cannot write
``__pycache__``, the project's .venv's bytecode linked where a module is the very same file, and never
written through that link. Small stand-in environments in a temp folder."""
import importlib.util
import os
import pathlib
import py_compile
import struct
import sys

import pytest

from hub import interpreter, userenv


def _site(prefix: pathlib.Path) -> pathlib.Path:
    site = prefix / "lib" / interpreter.VERSION / "site-packages"
    site.mkdir(parents=True)
    return site


@pytest.fixture
def envs(tmp_path, monkeypatch):
    """(donor site-packages, the hub's site-packages): a donor standing in for the project's .venv (sys.prefix),
    a hub environment whose bin/python is this interpreter."""
    donor, hub = _site(tmp_path / "venv"), _site(tmp_path / "hub")
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    (tmp_path / "hub" / "bin").mkdir()
    (tmp_path / "hub" / "bin" / "python").symlink_to(sys.executable)
    return donor, hub


def _module(site: pathlib.Path, name: str, text: str) -> pathlib.Path:
    path = site / "pkg" / f"{name}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def _pyc(path: pathlib.Path) -> pathlib.Path:
    return pathlib.Path(importlib.util.cache_from_source(str(path)))


def _accepted(path: pathlib.Path) -> bool:
    """Would Python take the bytecode of ``path`` as up to date (its header: the source's mtime and size)?"""
    header, stat = _pyc(path).read_bytes()[8:16], path.stat()
    return header == struct.pack("<II", int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)


def test_bytecode_is_linked_only_for_the_very_same_file(envs):
    donor, hub = envs
    shared = _module(donor, "shared", "x = 1\n")
    (hub / "pkg").mkdir()
    os.link(shared, hub / "pkg" / "shared.py")
    other = _module(donor, "other", "y = 2\n")
    _module(hub, "other", "y = 2\n")  # equal text, another file
    py_compile.compile(str(shared))
    py_compile.compile(str(other))
    userenv._link_same_files_bytecode(donor, hub)
    assert _pyc(hub / "pkg" / "shared.py").samefile(_pyc(shared))
    assert not _pyc(hub / "pkg" / "other.py").exists()


def test_every_module_gets_bytecode_and_the_donors_is_never_written(envs):
    donor, hub = envs
    (hub / "pkg").mkdir()
    stale = _module(donor, "stale", "z = 3\n")
    py_compile.compile(str(stale))
    before = _pyc(stale).read_bytes()
    os.link(stale, hub / "pkg" / "stale.py")
    os.utime(stale, (1, 1))  # the source changed after the donor compiled it: its bytecode is stale
    _module(hub, "fresh", "w = 4\n")
    userenv._compile_linked(hub.parents[2], log=print)
    assert all(_accepted(path) for path in hub.rglob("*.py"))
    assert _pyc(stale).read_bytes() == before and not _pyc(hub / "pkg" / "stale.py").samefile(_pyc(stale))


def test_a_module_that_is_not_python_is_named_not_fatal(envs):
    _, hub = envs
    _module(hub, "broken", "def (:\n")
    said = []
    userenv._compile_linked(hub.parents[2], log=said.append)
    assert len(said) == 1 and "broken.py" in said[0] and str(hub) in said[0]

"""Which tool fills the hub's user environment (``hub.userenv._install``): uv beside the project's Python
when ``make venv`` put it there, copying (never linking users' files to the instructor's cache, but in the
tests' throw-away hubs) and compiling the bytecode users cannot write; the environment's own pip otherwise.
Stand-in tools log their arguments."""
import re
import stat
import sys

import pytest

from hub import userenv

LOGGER = """#!/bin/sh
echo "$0 $*" >> "$TOOL_LOG"
"""


def _tool(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(LOGGER)
    path.chmod(stat.S_IRWXU)


@pytest.fixture
def project_python(tmp_path, monkeypatch):
    """A stand-in for the project's .venv/bin/python (only its folder matters) and the prefix's pip."""
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    monkeypatch.setattr(sys, "executable", str(venv_bin / "python"))
    monkeypatch.setenv("TOOL_LOG", str(tmp_path / "tools.log"))
    prefix = tmp_path / "hub-env"
    _tool(prefix / "bin" / "python")  # `python -m pip install …` logs as the prefix's python
    return venv_bin, prefix, tmp_path / "tools.log"


def test_uv_beside_the_project_python_installs_copied_and_compiled(project_python):
    venv_bin, prefix, log = project_python
    _tool(venv_bin / "uv")
    userenv._install(prefix, "--no-deps", "the.whl", reinstall=True)
    line = log.read_text().strip()
    assert line.startswith(f"{venv_bin / 'uv'} pip install ")
    words = line.split()
    assert words[words.index("--python") + 1] == str(prefix / "bin" / "python")
    assert words[words.index("--link-mode") + 1] == "copy" and "--compile-bytecode" in words
    assert "--reinstall" in words and words[-2:] == ["--no-deps", "the.whl"]


def test_the_tests_hubs_link_from_uvs_cache(project_python):
    venv_bin, prefix, log = project_python
    _tool(venv_bin / "uv")
    userenv._install(prefix, "the.whl", link_from_cache=True)
    words = log.read_text().split()
    assert words[words.index("--link-mode") + 1] == "hardlink"
    assert "--compile-bytecode" not in words  # _compile_linked links .venv's bytecode first


def test_without_uv_the_environments_own_pip_installs(project_python):
    venv_bin, prefix, log = project_python
    userenv._install(prefix, "the.whl", reinstall=True)
    words = log.read_text().split()
    assert words[:4] == [str(prefix / "bin" / "python"), "-m", "pip", "install"]
    assert "--force-reinstall" in words and "--reinstall" not in words and words[-1] == "the.whl"


def test_a_failed_install_names_the_environment(project_python):
    venv_bin, prefix, _ = project_python
    (venv_bin / "uv").write_text("#!/bin/sh\necho 'no such package' >&2\nexit 1\n")
    (venv_bin / "uv").chmod(stat.S_IRWXU)
    with pytest.raises(RuntimeError, match=f"{re.escape(str(prefix))} failed:\n.*no such package"):
        userenv._install(prefix, "missing.whl")

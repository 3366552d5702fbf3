"""Does a course grade in the sandbox whatever layout its Python has, as courses meet them?

Each layout grades one student (a correct submission) with the real ``make grade`` (``python -m
coursekit.grading``) started through that layout's interpreter, and must give the full marks:

* a venv whose ``python`` links to Debian's ``/usr/bin/python3``, reached through a symlinked folder
  (one environment linked into each course folder): before, bubblewrap bound the venv where it
  really lies but started it by the linked name, and every kernel of the class failed ("bwrap: execvp
  …/.venv/bin/python: No such file or directory"). One grading run for both: each breaks it alone;
* a venv whose ``python`` is a copy of the interpreter, not a link (``venv --copies``: a real binary
  inside the environment, as conda's environments have, its library found beside its base prefix).

The project's own ``.venv`` (a venv linking to a CPython installed in a home folder, as uv's and
pyenv's are) grades every other test; the hub's user environment (a copy of an interpreter patched to
find its library by run-path) is graded on the hub in tests/integration/test_hub.py. A conda or
uv-downloaded CPython cannot be made here (no internet but the package indexes).
The environments are built outside /tmp (which every kernel replaces), uv hard-linking the packages
from its cache (≈ 3–8 s each): on the project's own interpreter at the versions of requirements.lock;
on Debian's CPython 3.11.2 at the newest versions it allows (the lock's soupsieve needs 3.11.5).
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

import nbformat
import pytest

from coursekit.paths import REPO
from coursekit.sandbox import missing_tool
from support.classes import generated_course
from support.course_tools import ASSIGNMENT, POINTS, gradebook_scores, isolated_env, released
from support.mistakes import BY_NAME, submission

def _uv() -> str:
    """The project venv's uv (make venv installs it beside its Python)."""
    uv = pathlib.Path(sys.executable).parent / "uv"
    if not uv.exists():
        pytest.skip("uv is not beside this Python (make venv installs it)")
    return str(uv)


def _environment(folder, base: str, copies: bool):
    """A venv in ``folder`` on the interpreter ``base`` (``copies``: the binary copied, not linked), with the project."""
    if copies:
        subprocess.run([base, "-m", "venv", "--copies", "--without-pip", str(folder)], check=True)
    else:
        subprocess.run([_uv(), "venv", "-q", "--python", base, str(folder)], check=True)
    python = folder / "bin" / "python"
    locked = ["--constraint", str(REPO / "requirements.lock")] if base == sys._base_executable else []
    done = subprocess.run([_uv(), "pip", "install", "-q", "--link-mode", "hardlink", "--python", str(python),
                           *locked, "-e", f"{REPO}[course]"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return python


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    if missing_tool():
        pytest.skip(missing_tool())
    course = generated_course(tmp_path_factory.mktemp("layouts"))
    folder = course / "submitted" / "ok_dot" / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(submission(released(course), *BY_NAME["ok_dot"].code), folder / f"{ASSIGNMENT}.ipynb")
    return course


@pytest.fixture(scope="module")
def outside_tmp():
    (REPO / ".state").mkdir(exist_ok=True)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="layouts-", dir=REPO / ".state"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _layout(name, course, outside_tmp):
    """The interpreter of layout ``name``, started by the path a user would type."""
    if name == "venv with its own binary":
        return _environment(outside_tmp / "copies", sys._base_executable, copies=True)
    if not shutil.which("/usr/bin/python3"):
        pytest.skip("no /usr/bin/python3 (Debian's python3)")
    venv = _environment(outside_tmp / "debian", "/usr/bin/python3", copies=False).parents[1]
    link = course.parent / "linked" / ".venv"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(venv)
    return link / "bin" / "python"


@pytest.mark.parametrize("name", ["venv linking to /usr/bin/python3, through a symlinked folder",
                                  "venv with its own binary"])
def test_does_the_class_grade_in_the_sandbox(name, course, outside_tmp, tmp_path):
    python = _layout(name, course, outside_tmp)
    copy = shutil.copytree(course, tmp_path / "course", symlinks=True)
    env = isolated_env(tmp_path / "home")
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run([str(python), "-m", "coursekit.grading", "--course", str(copy), "--workers", "1"],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    expected = dict(zip(POINTS, BY_NAME["ok_dot"].points))
    assert gradebook_scores(copy, "ok_dot") == pytest.approx({**expected, "total": sum(expected.values())})

"""Can a student's Unix account read the course's secrets anywhere on the machine, after the whole course loop?

The session's hub (autograde/hub) once the loop has run (test_hub.py in Chromium, or the CLI loop
when this module runs alone): the chapter released, submitted, graded, reported, its feedback
released. As student 1's uid and gid (no other groups), :mod:`support.secret_walk` lists every
file they may open and searches it for the master's solutions and hidden tests, the grader's
source and the rubrics:

* ``make hub``'s layout: the folders the Filesystem Hierarchy Standard gives to local data, homes,
  add-on software, services and temporary files (:data:`ROOTS`, each on its own filesystem:
  ``/proc``, ``/sys``, ``/dev`` are never entered) and the hub's own folders (its state, the users'
  homes, the shared user environment, the repository, private while the hub runs). Everything in
  the hub's folders is read; elsewhere what changed since the hub started.
* the TLJH recipe of docs/deploy-hub.md: its commands, as written there, run under a temporary
  prefix (``/opt/tljh`` → ``<prefix>/opt/tljh`` …; TLJH itself is not installed), then filled with
  the state the loop left (exchange, course, homes); every file under the prefix is read. With the
  course folder opened to all, the same walk finds the master: the recipe's ``chmod`` is what keeps it.

A control: as the instructor, the walk finds the master and the grader in their own course.
"""
import importlib.metadata
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from coursekit.paths import COURSE, REPO, copy_course
from hub import accounts
from support import secret_walk
from support.hub_tools import loop_by_cli

ROOTS = ("/etc", "/home", "/opt", "/root", "/run", "/srv", "/tmp", "/usr/local", "/var", "/dev/shm")
DOCS = REPO / "docs" / "deploy-hub.md"
RECIPE_MARK = "<!-- tljh-recipe -->"


@pytest.fixture(scope="module")
def hub(course_hub_plan):
    plan = course_hub_plan
    if not any(pathlib.Path(plan.exchange, plan.course_id, "feedback").glob("*")):  # the loop has not run yet
        loop_by_cli(plan, until="release_feedback")
    return plan


@pytest.fixture(scope="module")
def prints():
    return secret_walk.fingerprints(COURSE, REPO)


def hub_folders(plan) -> list:
    env = pathlib.Path(plan.python).parents[1]  # <root>/user/bin/python → <root>: the environment and its base
    return sorted({plan.state, *plan.homes.values(), str(env.parent), str(REPO)})


def _report(walk) -> str:
    copies = "".join(f"\n  not the hub's, left unread: {c}" for c in walk.other_copies)
    return (f"{walk.user}: {walk.files_listed} readable files, {walk.files_read} read, {walk.seconds} s;"
            f" course copies elsewhere on this machine: {len(walk.other_copies)}{copies}")


def test_can_a_student_read_no_secret_on_the_make_hub_machine(hub, prints):
    """As student 1: no readable file anywhere holds a line of the master's solutions or hidden tests, the grader or the rubrics?"""
    started = (pathlib.Path(hub.state) / "hub" / "plan.json").stat().st_mtime - 1
    own = hub_folders(hub)
    walk = secret_walk.walk(hub.students[0], [*ROOTS, *own], prints, own=own, since=started)
    print("\n" + _report(walk))
    assert walk.files_read > 1000, _report(walk)  # the shared environment alone holds tens of thousands
    assert walk.hits == {}


def test_does_the_walk_find_the_secrets_where_the_instructor_reads_them(hub, prints):
    """Control: as the instructor, in their own home: the master and the grader's checks are found?"""
    home = hub.homes[hub.instructor]
    walk = secret_walk.walk(hub.instructor, [home], prints, own=[home])
    found = set(walk.hits)
    assert f"{home}/course/source/ch04_attention/ch04_attention.ipynb" in found
    assert f"{home}/course/grader/checks.py" in found
    assert f"{home}/course/rubrics/ch04_attention.toml" in found


# ---------- the TLJH recipe, under a prefix ----------

def recipe() -> str:
    """The shell block after ``<!-- tljh-recipe -->`` in docs/deploy-hub.md, as an administrator pastes it."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(re.escape(RECIPE_MARK) + r"\s*```bash\n(.*?)```", text, re.S)
    assert block, f"{DOCS} has no ```bash block after {RECIPE_MARK}"
    return block.group(1)


def under_prefix(script: str, prefix: pathlib.Path, instructor: str, wheel: pathlib.Path) -> str:
    """The recipe with its machine paths moved under ``prefix``, the session's instructor, and the
    project installed from its wheel with ``--prefix`` (a TLJH user environment is not here)."""
    script = re.sub(r"^INSTRUCTOR=\S+", f"INSTRUCTOR={instructor}", script, count=1, flags=re.M)
    script = re.sub(r"(?<![\w/.$])/(opt/tljh|srv/nbgrader|home|root/attention-chapter)\b", rf"{prefix}/\1", script)
    # --ignore-installed: with --prefix alone, pip first uninstalls the project from the environment
    # it runs in (the .venv's editable attnkit), then installs under the prefix.
    script = re.sub(r"^\S+/pip install .*$", f"{sys.executable} -m pip install --quiet --no-deps --no-index "
                    f"--ignore-installed --prefix {prefix}/opt/tljh/user {wheel}", script, count=1, flags=re.M)
    commands = re.sub(r"(^|\s)#.*$", "", script, flags=re.M)  # comments name paths but touch none
    outside = [p for p in re.findall(r"(?<![\w/.$\"])/[\w.-]+(?:/[\w.$-]+)*", commands)
               if not p.startswith((str(prefix), "/bin/", "/usr/bin/", sys.executable, str(wheel)))]
    assert not outside, f"the recipe in {DOCS} names paths outside the prefix: {outside}"
    return script


@pytest.fixture(scope="module")
def tljh(hub, tmp_path_factory):
    """The recipe's layout under a prefix every user may enter, holding the loop's state; removed afterwards."""
    prefix = pathlib.Path(tempfile.mkdtemp(prefix="attn-tljh-"))
    prefix.chmod(0o755)
    try:
        clone = prefix / "root" / "attention-chapter"
        copy_course(clone / "autograde", COURSE)
        (prefix / "root").chmod(0o700)
        (prefix / "home").mkdir(mode=0o755)
        wheel = _wheel(tmp_path_factory.mktemp("tljh-wheel"))
        script = under_prefix(recipe(), prefix, hub.instructor, wheel)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True)
        assert done.returncode == 0, f"the recipe failed under {prefix}:\n{done.stderr[-3000:]}"
        kept = {d.metadata["Name"] for d in importlib.metadata.distributions()}
        assert "attnkit" in kept, "the recipe's pip, run with the test's interpreter, removed the project from it"
        _fill_with_the_loop(hub, prefix)
        yield prefix
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


def _wheel(folder):
    sys.path.insert(0, str(REPO / "autograde"))
    from hub import userenv

    return userenv.build_wheel(folder)


def _fill_with_the_loop(plan, prefix: pathlib.Path) -> None:
    """The exchange, the instructor's course and the students' homes as the session's loop left them
    (owners and modes kept), in the recipe's places; TLJH's homes as Ubuntu 20.04 makes them (755)."""
    subprocess.run(["cp", "-a", f"{plan.exchange}/.", f"{prefix}/srv/nbgrader/exchange/"], check=True)
    course = prefix / "home" / plan.instructor / "course"
    subprocess.run(["cp", "-a", f"{plan.course_dir()}/.", f"{course}/"], check=True)
    course.chmod(0o700)  # cp -a gave it the source's mode: the recipe's is the one under test
    for student in plan.students:
        subprocess.run(["cp", "-a", plan.homes[student], f"{prefix}/home/{student}"], check=True)
    for user in plan.users:
        (prefix / "home" / user).chmod(0o755)


def test_does_the_tljh_recipe_write_the_settings_the_hub_uses(tljh, hub):
    """The recipe's settings files are the ones make hub writes (frame policy, terminal shell, quiet Lab, exchange)?"""
    import json

    etc = tljh / "opt" / "tljh" / "user" / "etc" / "jupyter"
    assert json.loads((etc / accounts.SERVER_CONFIG_FILE).read_text()) == accounts.SERVER_CONFIG
    assert json.loads((etc / accounts.LAB_OVERRIDES_FILE).read_text()) == accounts.LAB_OVERRIDES
    assert 'c.Exchange.root = "/srv/nbgrader/exchange"' in recipe()
    site = list((tljh / "opt" / "tljh" / "user" / "lib").glob("python3*/site-packages"))
    assert site and {p.name for p in site[0].iterdir()} >= {"attnkit", "coursekit"}
    assert not [p for p in site[0].rglob("*") if p.name in ("grader", "source", "rubrics")]


def test_can_a_student_read_no_secret_in_the_tljh_recipes_layout(tljh, hub, prints):
    """As student 1, every file under the prefix: none holds a secret, though their classmates' homes are open (755)?"""
    walk = secret_walk.walk(hub.students[0], [tljh], prints, own=[tljh])
    print("\n" + _report(walk))
    assert walk.files_read > 100, _report(walk)
    assert walk.hits == {}


def test_would_the_walk_see_the_master_if_the_recipe_left_the_course_open(tljh, hub, prints):
    """The same walk with the course folder at 755 (the recipe's chmod skipped): the master is found?"""
    course = tljh / "home" / hub.instructor / "course"
    course.chmod(0o755)
    try:
        walk = secret_walk.walk(hub.students[0], [course], prints, own=[course])
    finally:
        course.chmod(0o700)
    assert str(course / "source" / "ch04_attention" / "ch04_attention.ipynb") in walk.hits
    assert os.stat(course).st_mode & 0o777 == 0o700

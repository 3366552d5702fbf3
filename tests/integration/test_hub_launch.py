"""Does the hub's launcher prepare the right files, and say so when it runs in demo mode?

Unit tests of autograde/hub (accounts, interpreter, userenv) on temp folders, and one real hub in
demo mode (every hub user is the current account), which needs node/npm but not root.
"""
import json
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tarfile
import urllib.request
import zipfile

import pytest
from nbgrader.api import Gradebook
from traitlets.config.loader import PyFileConfigLoader

from coursekit.paths import REPO, copy_course
from hub import accounts, interpreter, launch, userenv
from hub import plan as hub_plan
from support.course_tools import course_copy
from support.hub_tools import ARTEFACTS, start_servers
from support.service_tools import wait_for


def _plan(tmp_path, **changes):
    fields = dict(state=str(tmp_path), unix_users=False, instructor="teacher", students=["s1"],
                  passwords={}, homes={}, exchange="/srv/exchange", python="python",
                  proxy="chp", port=1, hub_port=2, proxy_api_port=3, api_token="x")
    return hub_plan.HubPlan(**{**fields, **changes})


def test_does_the_instructors_nbgrader_config_load_the_course_and_point_at_the_exchange(tmp_path):
    """~/.jupyter/nbgrader_config.py: the course's own settings, its root, the shared exchange and course id?"""
    course = course_copy(tmp_path)
    accounts.write_user_settings(tmp_path / "home", _plan(tmp_path), course)
    config = PyFileConfigLoader("nbgrader_config.py", str(tmp_path / "home" / ".jupyter")).load_config()
    assert config.CourseDirectory.root == str(course)
    assert config.Exchange.root == "/srv/exchange" and config.CourseDirectory.course_id == "attention-ch04"
    assert config.CourseKit.assignments["ch04_attention"]["plugin"] == "attnkit.course"  # from the course's config


def test_are_the_settings_every_server_reads_system_wide_and_a_students_home_left_alone(tmp_path):
    """One folder for all (exchange, course id, frame policy, terminal shell, quiet Lab), readable by others;
    a student's home gets no settings of its own?"""
    plan = _plan(tmp_path)
    accounts.write_system_settings(plan)
    accounts.write_user_settings(tmp_path / "home", plan)
    config = PyFileConfigLoader("nbgrader_config.py", str(plan.settings)).load_config()
    assert "root" not in config.CourseDirectory and config.Exchange.root == "/srv/exchange"
    assert config.CourseDirectory.course_id == "attention-ch04"
    server = json.loads((plan.settings / accounts.SERVER_CONFIG_FILE).read_text())["ServerApp"]
    assert server["tornado_settings"]["headers"]["Content-Security-Policy"] == "frame-ancestors 'self'"
    assert server["terminado_settings"]["shell_command"] == ["/bin/bash"]  # not a login shell: PATH kept
    assert "fetchNews" in (plan.settings / accounts.LAB_OVERRIDES_FILE).read_text()
    assert all(p.stat().st_mode & stat.S_IROTH for p in plan.settings.rglob("*"))
    assert not (tmp_path / "home").exists()


def test_does_the_hub_refuse_a_repository_that_other_users_can_enter(tmp_path):
    """A course folder others may enter stops the hub with the folder's name and the fix; a mode-700 parent is enough?"""
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    if accounts.reachable_by_others(open_folder):  # pytest's own base folder may already be private
        with pytest.raises(RuntimeError, match=f"{open_folder} can be entered by every user.*chmod o-rwx"):
            accounts.require_private(open_folder, "the master")
    tmp_path.chmod(0o700)
    accounts.require_private(open_folder, "the master")


def test_does_the_wheel_hold_the_two_packages_and_nothing_of_the_course(tmp_path):
    """The hub's wheel: attnkit and coursekit (marking page and assets included), no master, grader or rubric?"""
    wheel = userenv.build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    tops = {name.split("/")[0] for name in names}
    name = wheel.name.split('-py3')[0]
    assert tops == {"attnkit", "coursekit", f"{name}.dist-info", f"{name}.data"}
    data = sorted(n for n in names if n.startswith(f"{name}.data/"))  # the students' Lab extension only
    built = REPO / "autograde" / "coursekit" / "labextension" / "attention-feedback"  # exactly what the build wrote
    extension = f"{name}.data/data/share/jupyter/labextensions/attention-feedback"
    assert data == sorted(f"{extension}/{path.relative_to(built)}" for path in built.rglob("*") if path.is_file())
    assert any(n.startswith(f"{extension}/static/remoteEntry.") for n in data)
    assert {"coursekit/marking/static/marking.js", "attnkit/assets/explorer.js"} <= set(names)
    assert not [n for n in names if "grader" in n.split("/")[:-1] or "source" in n.split("/") or n.endswith(".toml")]
    assert not list(tmp_path.glob("build")) and not (REPO / "build").exists()


def test_does_a_wheel_with_a_stray_folder_get_refused(tmp_path):
    """A wheel that would carry the grader into the students' environment is refused, naming it?"""
    wheel = tmp_path / "attnkit-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("attnkit/__init__.py", "")
        archive.writestr("grader/checks.py", "")
    with pytest.raises(RuntimeError, match=r"grader/checks\.py"):
        userenv.check_wheel(wheel)


def test_does_a_wheel_with_stray_data_files_get_refused(tmp_path):
    """Data files outside share/jupyter/labextensions/ (here: the grader installed into the prefix) are
    refused, and the same wheel without them passes?"""
    allowed = {"attnkit/__init__.py": "", "attnkit-0.1.0.dist-info/METADATA": "",
               "attnkit-0.1.0.data/data/share/jupyter/labextensions/attention-feedback/package.json": "{}"}
    for name, extra in (("clean", {}), ("stray", {"attnkit-0.1.0.data/data/share/course/grader/checks.py": ""})):
        wheel = tmp_path / name / "attnkit-0.1.0-py3-none-any.whl"
        wheel.parent.mkdir()
        with zipfile.ZipFile(wheel, "w") as archive:
            for entry, text in {**allowed, **extra}.items():
                archive.writestr(entry, text)
        if extra:
            with pytest.raises(RuntimeError, match=r"share/course/grader/checks\.py"):
                userenv.check_wheel(wheel)
        else:
            userenv.check_wheel(wheel)


def test_does_the_course_copy_leave_generated_files_behind(tmp_path):
    """source/ and nbgrader_config.py are copied; a gradebook, release/ or submitted/ never are?"""
    source = tmp_path / "autograde"
    for folder in ("source/ch04_attention", "release/ch04_attention", "submitted/s1"):
        (source / folder).mkdir(parents=True)
    for name in ("nbgrader_config.py", "gradebook.db", "source/ch04_attention/ch04_attention.ipynb"):
        (source / name).write_text("{}")
    copy_course(tmp_path / "course", source)
    copied = sorted(str(p.relative_to(tmp_path / "course")) for p in (tmp_path / "course").rglob("*"))
    assert copied == ["nbgrader_config.py", "source", "source/ch04_attention",
                      "source/ch04_attention/ch04_attention.ipynb"]


def test_does_world_reachable_notice_a_private_parent(tmp_path):
    """A readable file inside a mode-700 folder is not reachable by other users; /usr/bin/env is?"""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "file").write_text("x")
    (private / "file").chmod(0o644)
    assert not interpreter.world_reachable(private / "file")
    assert interpreter.world_reachable("/usr/bin/env")
    assert not interpreter.world_reachable(tmp_path / "missing")


def _node_or_skip():
    if shutil.which("node") and shutil.which("npm"):
        return
    message = "node/npm missing: the demo hub needs configurable-http-proxy (apt-get install nodejs npm)"
    pytest.fail(message) if os.environ.get("CI") == "true" else pytest.skip(message)


def test_does_demo_mode_announce_itself_and_keep_homes_in_the_state_folder(tmp_path):
    """Forced demo mode: the login page says DEMO MODE, no Unix user appears, a server starts with its home under state/?"""
    _node_or_skip()
    state = tmp_path / "state"
    plan = launch.make_plan(state, "demoteacher", ["demostudent"], unix_users=False)
    try:
        with launch.running_hub(plan, course_copy(tmp_path)):
            with urllib.request.urlopen(f"{plan.url}hub/login", timeout=30) as response:
                assert "DEMO MODE" in response.read().decode()
            start_servers(plan, ["demostudent"])
            home = pathlib.Path(plan.homes["demostudent"])
            assert home.parent == state.resolve() / "homes"
            assert (pathlib.Path(plan.settings) / "nbgrader_config.py").is_file()
            assert not accounts.unix_user_exists("demostudent")
            assert stat.S_IMODE((state / "hub").stat().st_mode) == 0o700
            # the hub started the grading service on the instructor's course (as the same account here)
            log = plan.course_dir() / "grading-logs" / "service.log"
            wait_for(lambda: log.exists() and "started (pid" in log.read_text(), 60, "the grading service")
    finally:
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        if (state / "hub" / "jupyterhub.log").exists():
            shutil.copy(state / "hub" / "jupyterhub.log", ARTEFACTS / "demo-jupyterhub.log")


def test_does_hub_remove_leave_a_running_hub_alone_and_keep_its_course_when_forced(tmp_path):
    """``make hub`` runs (demo mode). ``make hub-remove`` (no terminal, no FORCE=1): nothing changes, it says why.
    With FORCE=1: the hub, its proxy, servers and grading service stop first, the instructor's course is archived
    (its gradebook readable by nbgrader from the archive), then the hub's folder goes; no process of it is left?"""
    _node_or_skip()
    state, port, archives = tmp_path / "state", hub_plan.free_port(), tmp_path / "archives"
    command = [sys.executable, "-m", "hub", "--demo", "--state", str(state)]
    hub = subprocess.Popen([*command, "--port", str(port)], cwd=REPO / "autograde", stdout=subprocess.PIPE, text=True)
    try:
        lines = [hub.stdout.readline()]
        while lines[-1] and "Course hub running" not in lines[-1]:
            lines.append(hub.stdout.readline())
        url = f"http://127.0.0.1:{port}/hub/login"
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.status == 200, "".join(lines)
        again = subprocess.run([*command, "--port", str(hub_plan.free_port())], cwd=REPO / "autograde",
                               capture_output=True, text=True, timeout=60)
        assert again.returncode == 1 and f"a hub already runs on {state.resolve()}" in again.stderr
        course = hub_plan.load(state / "hub" / "plan.json").course_dir()
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            gradebook.add_student("s1")  # the term's work, in small
        remove = [*command, "--remove", "--archives", str(archives)]
        refused = subprocess.run(remove, cwd=REPO / "autograde", capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        assert refused.returncode == 1 and "nothing was removed" in refused.stderr and "FORCE=1" in refused.stderr
        assert hub.poll() is None and (course / "gradebook.db").exists() and not archives.exists()
        removed = subprocess.run([*remove, "--force"], cwd=REPO / "autograde", capture_output=True, text=True,
                                 timeout=120)
        assert removed.returncode == 0, removed.stderr
        assert f"(pid {hub.pid}): stopping it first" in removed.stdout and f"removed {state.resolve()}" in removed.stdout
        (kept,) = archives.glob("hub-course-*.tar.gz")
        assert str(kept) in removed.stdout and stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert hub.wait(timeout=10) == 0 and not state.exists()
        with tarfile.open(kept) as archive:
            archive.extractall(tmp_path / "opened", filter="data")
        with Gradebook(f"sqlite:///{tmp_path / 'opened' / 'course' / 'gradebook.db'}") as gradebook:
            assert [s.id for s in gradebook.students] == ["s1"]
        with pytest.raises(OSError):
            urllib.request.urlopen(url, timeout=5)
        assert launch._processes_of(str(state.resolve())) == []
    finally:
        hub.kill()
        hub.wait()

"""Does the sandbox build what it documents: what the template binds, how, the kernels' environment and identity?

The command line and the request only (coursekit.sandbox): nothing is started here. The sandbox at
work, with the red-team table, is tests/integration/test_redteam.py and test_sandbox_kernel.py.
"""
import os
import pathlib
import sys
import time

import pytest

from coursekit.assignments import World
from coursekit.sandbox import GRADERS, HOME, SHARED, Limits, parse_size
from coursekit.sandbox.bubblewrap import environment, interpreter, python_paths, template_command
from coursekit.sandbox.forkserver import ForkedKernel

NBGRADER_ENV = {"NBGRADER_EXECUTION": "autograde", "SECRET_TOKEN": "x", "OPENBLAS_CORETYPE": "Haswell",
                "LD_LIBRARY_PATH": "/srv/python/lib"}


def _command(tmp_path, privileged=True, **world):
    for folder in ("grader", "other-grader", "shared", "package"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    return template_command(tmp_path / "template", privileged=privileged, env=NBGRADER_ENV, world=World(
        graders=(str(tmp_path / "grader"), str(tmp_path / "other-grader")), **world))


def _pairs(command, option):
    return [tuple(command[i + 1:i + 3]) for i, arg in enumerate(command) if arg == option]


@pytest.mark.parametrize("text, size", [("2G", 2 * 1024 ** 3), ("64M", 64 * 1024 ** 2), ("300000", 300000),
                                        ("1.5g", int(1.5 * 1024 ** 3)), ("512MB", 512 * 1024 ** 2), (4096, 4096)])
def test_are_sizes_read_as_written(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "two gigs", "-1G", "0", True])
def test_is_a_bad_size_named_with_the_setting(text):
    with pytest.raises(ValueError, match=r"GradingKernelManager\.memory must be a positive size such as 2G"):
        parse_size(text, "GradingKernelManager.memory")


def test_is_only_what_the_kernels_need_bound_and_read_only(tmp_path):
    """Read-only: the system, the Python paths and the plug-ins' packages, each grader, the shared folder;
    read-write: only the template's own folder?"""
    command = _command(tmp_path, folders=(str(tmp_path / "package"),), shared=str(tmp_path / "shared"))
    read_only = dict((dest, src) for src, dest in _pairs(command, "--ro-bind"))
    assert read_only["/usr"] == "/usr" and read_only[f"{GRADERS}/0"] == str(tmp_path / "grader")
    assert read_only[f"{GRADERS}/1"] == str(tmp_path / "other-grader") and read_only[SHARED] == str(tmp_path / "shared")
    assert all(read_only[path] == path for path in python_paths([str(tmp_path / "package")]))
    assert read_only[str(tmp_path / "package")] == str(tmp_path / "package")
    assert _pairs(command, "--bind") == [(str(tmp_path / "template"), str(tmp_path / "template"))]
    assert "--remount-ro" in command and command[command.index("--remount-ro") + 1] == "/"
    assert str(tmp_path) not in read_only  # never the course folder itself


def test_does_the_template_start_its_python_by_the_folders_real_path(tmp_path, monkeypatch):
    """A venv reached through a symlink (linked into each course folder): bound and started where it really is?"""
    real = tmp_path / "shared" / "venv"
    (real / "bin").mkdir(parents=True)
    (real / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / ".venv").symlink_to(real)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "course" / ".venv" / "bin" / "python"))
    assert interpreter() == str(real / "bin" / "python")  # the folder resolved, the venv's own name kept
    command = _command(tmp_path)
    assert command[command.index("--") + 1] == str(real / "bin" / "python")


def test_does_a_kernel_get_a_clean_environment():
    """Only what is listed: grading's mode, the BLAS settings and the interpreter's own library folder
    (the hub's copied Python needs it) pass, a secret does not?"""
    env = environment(NBGRADER_ENV, f"{HOME}/ch04_attention", Limits())
    assert env["NBGRADER_EXECUTION"] == "autograde" and "SECRET_TOKEN" not in env
    assert env["OPENBLAS_CORETYPE"] == "Haswell" and env["LD_LIBRARY_PATH"] == "/srv/python/lib"
    assert env["HOME"] == HOME and env["ATTN_SANDBOX_MEMORY"] == "2 GB" and "ATTN_CALL_HOOK" not in env
    kernel = environment(NBGRADER_ENV, f"{HOME}/ch04_attention", Limits(), call_hook="m:f", shared_env="FIGURES")
    assert kernel["ATTN_CALL_HOOK"] == "m:f" and kernel["FIGURES"] == SHARED


def test_does_the_template_keep_only_what_it_needs_to_build_each_kernels_world(tmp_path):
    """As root: no user namespace, the few capabilities the forks drop; otherwise a user namespace of its own?"""
    command = _command(tmp_path / "root")
    assert "--unshare-user" not in command and "--unshare-all" not in command
    assert {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent"} <= set(command)
    assert {command[i + 1] for i, arg in enumerate(command) if arg == "--cap-add"} == {
        "CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_SETPCAP", "CAP_DAC_READ_SEARCH", "CAP_FOWNER"}
    other = _command(tmp_path / "other", privileged=False)
    assert "--unshare-all" in other and ("--uid", "0") == tuple(other[other.index("--uid"):other.index("--uid") + 2])


@pytest.mark.skipif(os.geteuid() != 0, reason="uids are handed out only when grading runs as root")
def test_do_two_kernels_at_once_get_different_uids():
    """Two identities held at once differ; a released one is handed out again?"""
    from coursekit.sandbox import acquire
    first, second = acquire(), acquire()
    try:
        assert first.uid != second.uid and first.privileged and second.privileged
        first.release()
        third = acquire()
        assert third.uid == first.uid
        third.release()
    finally:
        first.release()
        second.release()


@pytest.mark.skipif(os.geteuid() != 0, reason="uids are handed out only when grading runs as root")
def test_is_a_process_of_a_uid_nobody_holds_abandoned():
    """A process under a sandbox uid is listed while its uid's lock is free, not while a grader holds it?"""
    import fcntl
    import subprocess

    from coursekit.sandbox import abandoned, processes_of
    from coursekit.sandbox.identity import FIRST_UID, LOCKS, SLOTS

    uid = FIRST_UID + SLOTS - 1  # the last one: a grading run beside this test takes the lowest free uid
    LOCKS.mkdir(mode=0o700, exist_ok=True)
    lock = os.open(LOCKS / f"{uid}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)  # held, as a grading process holds it for its kernel's life
    sleeper = subprocess.Popen(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "sleep", "60"])
    try:
        for _ in range(50):  # until setpriv has changed the uid
            if processes_of(uid):
                break
            time.sleep(0.02)
        assert uid not in abandoned()
        os.close(lock)  # the grader is gone: its kernel's process is left behind
        assert abandoned().get(uid) == [sleeper.pid]
    finally:
        sleeper.kill()
        sleeper.wait()


def test_is_a_python_under_tmp_refused_with_what_to_do(monkeypatch):
    """An interpreter under /tmp or the kernel's home would be covered by each kernel's own tmpfs: refused, saying
    where to put it instead?"""
    from coursekit.sandbox import bubblewrap

    monkeypatch.setattr(bubblewrap, "python_paths", lambda folders=(): ["/usr", "/srv/venv/lib/python3.11/site-packages"])
    assert bubblewrap.private_python() == ""
    monkeypatch.setattr(bubblewrap, "python_paths", lambda folders=(): ["/usr", "/tmp/hub-env/lib/python3.11/site-packages"])
    assert "/tmp/hub-env/lib/python3.11/site-packages" in bubblewrap.private_python()
    assert "install the environment outside /tmp" in bubblewrap.private_python()


def test_does_a_forked_kernel_say_how_much_cpu_it_used():
    """ForkedKernel.cpu_seconds reads /proc as the kernel's own clock (here: this process, after burning some)?"""
    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass
    assert abs(ForkedKernel(os.getpid()).cpu_seconds() - time.process_time()) < 0.05
    assert ForkedKernel(2 ** 22 + 1).cpu_seconds() == 0.0  # gone (no such pid): nothing, no error


class _Vanishing(type(pathlib.Path())):
    """A template folder another grading process renames between our listing and our look at it."""

    def stat(self, **kwargs):
        raise FileNotFoundError(2, "No such file or directory", str(self))


def test_does_removing_leftovers_let_a_folder_being_made_elsewhere_vanish(tmp_path, monkeypatch):
    """Two grading processes start at once: the other one's half-made folder is renamed away while this one looks
    for leftovers. That is nobody's fault: nothing is removed and nothing is raised (it was read as the machine's)."""
    from coursekit.sandbox import forkserver

    killed = tmp_path / f"{forkserver.PREFIX}killed"  # a grading process killed: its lock is free
    killed.mkdir()
    (killed / "owner.lock").touch()
    making = _Vanishing(tmp_path / f".{forkserver.PREFIX}making")
    monkeypatch.setattr(forkserver, "FOLDERS", tmp_path)
    listed = {f".{forkserver.PREFIX}*": [making], f"{forkserver.PREFIX}*": [killed]}
    monkeypatch.setattr(type(tmp_path), "glob", lambda self, pattern: iter(listed[pattern]))
    assert forkserver.remove_leftovers() == [killed] and not killed.exists()


class _Stopped(Exception):
    """Raised where the kernel manager would fork its runner: what it said before is all there is to read."""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_does_a_kernel_without_the_sandbox_warn_in_the_courses_language(tmp_path, monkeypatch, caplog, lang):
    """c.GradingKernelManager.sandbox off: each kernel's warning in the log is the catalogue's, in the course's
    language (c.CourseKit.language), naming the switch?"""
    import asyncio
    import logging
    from types import SimpleNamespace

    from traitlets.config import Config

    from coursekit.kernel import manager
    from coursekit.settings import unsandboxed

    def stop(*args):
        raise _Stopped
    monkeypatch.setattr(manager, "for_notebook_folder", lambda folder, config: SimpleNamespace(grader="", get=dict().get))
    monkeypatch.setattr(manager, "world_of", lambda config: None)
    kernel = manager.GradingKernelManager(config=Config({"CourseKit": {"language": lang}}), sandbox=False)
    kernel.log = logging.getLogger("test.unsandboxed")
    monkeypatch.setattr(kernel, "_start_runner", stop)
    with caplog.at_level(logging.WARNING, "test.unsandboxed"), pytest.raises(_Stopped):
        asyncio.run(kernel.start_kernel(cwd=str(tmp_path)))
    assert [record.getMessage() for record in caplog.records] == [unsandboxed(lang)]
    assert "ATTN_SANDBOX=off" in unsandboxed(lang) and unsandboxed("zh") != unsandboxed("en")

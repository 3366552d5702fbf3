"""Does the sandbox build the command it documents: what is bound, how, with which limits and identity?

The command line only (coursekit.sandbox): nothing is started here. The sandbox at work, with the
red-team table, is tests/integration/test_redteam.py and test_sandbox_kernel.py.
"""
import os
import pathlib
import time

import pytest

from coursekit.sandbox import GRADER, HOME, SUBMISSION, Identity, Limits, kernel_command, parse_size
from coursekit.sandbox.bubblewrap import python_paths
from coursekit.sandbox.forkserver import ForkedKernel

KERNEL = ["/venv/bin/python", "-m", "ipykernel_launcher", "-f", "/tmp/attn-kernel-x/connection.json"]


def _command(tmp_path, privileged=True, **kw):
    identity = Identity(61007, privileged=privileged)
    (tmp_path / "grader").mkdir()
    (tmp_path / "ch04_attention").mkdir()
    args = dict(identity=identity, limits=Limits(), submission=tmp_path / "ch04_attention",
                ipc_dir=tmp_path / "ipc", grader=tmp_path / "grader", cache=None,
                env={"NBGRADER_EXECUTION": "autograde", "SECRET_TOKEN": "x", "OPENBLAS_CORETYPE": "Haswell",
                     "LD_LIBRARY_PATH": "/srv/python/lib"})
    return kernel_command(KERNEL, **{**args, **kw})


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


def test_are_the_limits_set_before_the_sandbox_starts(tmp_path):
    """prlimit first, with the address space, processes, file size, open files and no core dumps?"""
    command = _command(tmp_path)
    assert command[:6] == ["prlimit", f"--as={2 * 1024 ** 3}", "--nproc=64", f"--fsize={32 * 1024 ** 2}",
                           "--nofile=256", "--core=0"]


def test_is_only_what_the_kernel_needs_bound_and_read_only(tmp_path):
    """Read-only: the system, the Python paths, the grader, the submission; read-write: only the socket folder?"""
    command = _command(tmp_path)
    read_only = dict((dest, src) for src, dest in _pairs(command, "--ro-bind"))
    assert read_only["/usr"] == "/usr" and read_only[GRADER] == str(tmp_path / "grader")
    assert read_only[SUBMISSION] == str(tmp_path / "ch04_attention")
    assert all(read_only[path] == path for path in python_paths())
    assert _pairs(command, "--bind") == [(str(tmp_path / "ipc"), str(tmp_path / "ipc"))]
    assert "--remount-ro" in command and command[command.index("--remount-ro") + 1] == "/"
    assert str(tmp_path) not in read_only  # never the course folder itself


def test_are_home_and_tmp_private_and_capped(tmp_path):
    """A fresh tmpfs for /dev/shm (8 MiB), the home and /tmp (64 MiB each), before the socket folder is bound?"""
    command = _command(tmp_path, ipc_dir=pathlib.Path("/tmp/attn-kernel-x"))
    tmpfs = [command[i + 1] for i, arg in enumerate(command) if arg == "--tmpfs"]
    sizes = [command[i + 1] for i, arg in enumerate(command) if arg == "--size"]
    assert tmpfs == ["/dev/shm", HOME, "/tmp"]
    assert sizes == [str(8 * 1024 ** 2)] + [str(64 * 1024 ** 2)] * 2
    assert command.index("--tmpfs") < command.index("--bind")


def test_is_a_python_under_tmp_bound_on_top_of_the_private_tmp(tmp_path, monkeypatch):
    """An interpreter under /tmp (the hub tests' user environment): its bind comes after /tmp's tmpfs, not hidden by it?"""
    venv = "/tmp/attn-hub-x/env/user"
    monkeypatch.setattr("coursekit.sandbox.bubblewrap.python_paths", lambda: [venv])
    command = _command(tmp_path)
    private_tmp = next(i for i, arg in enumerate(command) if arg == "--tmpfs" and command[i + 1] == "/tmp")
    assert private_tmp < command.index(venv)


def test_does_the_kernel_get_a_clean_environment(tmp_path):
    """--clearenv, then only what is listed: grading's mode, the BLAS settings and the interpreter's own library
    folder (the hub's copied Python needs it) pass, a secret does not?"""
    command = _command(tmp_path)
    env = dict(_pairs(command, "--setenv"))
    assert "--clearenv" in command and env["NBGRADER_EXECUTION"] == "autograde"
    assert env["OPENBLAS_CORETYPE"] == "Haswell" and "SECRET_TOKEN" not in env
    assert env["LD_LIBRARY_PATH"] == "/srv/python/lib"
    assert env["ATTN_GRADER"] == f"{GRADER}/__init__.py" and env["HOME"] == HOME and env["ATTN_SANDBOX_MEMORY"] == "2 GB"


def test_does_root_drop_to_the_kernels_own_uid_with_no_capabilities(tmp_path):
    """As root: no user namespace, setpriv to the uid with every capability dropped, then the kernel as PID 1?"""
    command = _command(tmp_path)
    assert "--unshare-user" not in command and "--unshare-all" not in command
    assert {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--as-pid-1", "--die-with-parent"} <= set(command)
    drop = command.index("setpriv")
    assert command[drop + 1:drop + 7] == ["--reuid=61007", "--regid=61007", "--clear-groups", "--inh-caps=-all",
                                          "--bounding-set=-all", "--"]
    assert command[-len(KERNEL):] == KERNEL and "chown -R 61007:61007" in " ".join(command)


def test_does_another_user_keep_their_uid_in_a_user_namespace(tmp_path):
    """Not root: --unshare-all (user namespace included), no setpriv, no capability asked for?"""
    command = _command(tmp_path, privileged=False)
    assert "--unshare-all" in command and "setpriv" not in command and "--cap-add" not in command


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


def test_is_a_python_under_tmp_never_forked(monkeypatch):
    """An interpreter under /tmp or the kernel's home would be covered by the forked kernel's own tmpfs:
    such a Python is told apart (and gets kernels started by bubblewrap)?"""
    from coursekit.sandbox import bubblewrap

    monkeypatch.setattr(bubblewrap, "python_paths", lambda: ["/usr", "/srv/venv/lib/python3.11/site-packages"])
    assert not bubblewrap.python_in_private_folders()
    monkeypatch.setattr(bubblewrap, "python_paths", lambda: ["/usr", "/tmp/hub-env/lib/python3.11/site-packages"])
    assert bubblewrap.python_in_private_folders()


def test_does_a_forked_kernel_say_how_much_cpu_it_used():
    """ForkedKernel.cpu_seconds reads /proc as the kernel's own clock (here: this process, after burning some)?"""
    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass
    assert abs(ForkedKernel(os.getpid()).cpu_seconds() - time.process_time()) < 0.05
    assert ForkedKernel(2 ** 22 + 1).cpu_seconds() == 0.0  # gone (no such pid): nothing, no error

"""coursekit.sandbox.cgroups: is each kernel's memory and process count capped as a whole, in the control groups the
machine has (v2, v1, or none: per process only, said), and does a group over its memory lose a process of its own,
never one outside it?

The choice is made from the mount table and this process's groups, here written by hand beside folders that stand for
the cgroup file systems; then, as root on a machine with writable groups (this one: v1), a real group with real
processes.
"""
import os
import pathlib
import subprocess
import sys
import time

import pytest

from coursekit.sandbox import cgroups

V1 = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / {root}/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / {root}/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / {root}/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_OWN = "9:name=systemd:/\n8:pids:/\n4:memory:/jobs/42\n0::/\n"
V2 = "41 31 0:38 / {root} rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n"


def _tables(tmp_path, mounts: str, own: str):
    (tmp_path / "mountinfo").write_text(mounts.format(root=tmp_path / "fs"))
    (tmp_path / "cgroup").write_text(own)
    return tmp_path / "mountinfo", tmp_path / "cgroup"


def test_on_a_v1_machine_are_the_groups_made_under_this_process_own_ones(tmp_path):
    """memory and pids mounted (v2 without controllers beside them, as on this machine): v1, in this process's own
    group of each hierarchy?"""
    fs = tmp_path / "fs"
    for folder in (fs / "memory" / "jobs" / "42", fs / "pids", fs / "unified"):
        folder.mkdir(parents=True)
    (fs / "unified" / "cgroup.controllers").write_text("")
    groups = cgroups.find(*_tables(tmp_path, V1, V1_OWN))
    assert groups == cgroups.Groups(1, (fs / "memory" / "jobs" / "42" / "attn-grading", fs / "pids" / "attn-grading"))
    assert cgroups.describe(groups) == "cgroup v1"


def test_on_a_v2_machine_with_controllers_is_v2_chosen_and_enabled_below(tmp_path):
    fs = tmp_path / "fs"
    fs.mkdir()
    (fs / "cgroup.controllers").write_text("cpu io memory pids\n")
    (fs / "cgroup.subtree_control").write_text("cpu\n")
    groups = cgroups.find(*_tables(tmp_path, V2, "0::/\n"))
    assert groups == cgroups.Groups(2, (fs / "attn-grading",))
    assert (fs / "cgroup.subtree_control").read_text() == "+memory +pids"  # what the real file adds to "cpu"


@pytest.mark.parametrize("mounts, own, made", [
    (V2, "0::/\n", ["cgroup.controllers"]),  # v2 without memory and pids offered
    (V1, V1_OWN, ["memory/jobs/42"]),        # v1 with memory only
    ("", "", []),                            # no cgroup file system at all
], ids=["v2 without controllers", "v1 without pids", "none"])
def test_without_both_controllers_is_it_per_process_only_and_said(tmp_path, mounts, own, made):
    fs = tmp_path / "fs"
    fs.mkdir()
    for name in made:
        if name.startswith("cgroup."):
            (fs / name).write_text("cpu io\n")
        else:
            (fs / name).mkdir(parents=True)
    groups = cgroups.find(*_tables(tmp_path, mounts, own))
    assert groups == cgroups.Groups() and cgroups.describe(groups) == ""
    group = cgroups.KernelGroup(groups, 2 * 1024 ** 3, 64)
    group.admit(os.getpid())  # nothing to do: the rlimits are the caps
    group.remove()


def test_does_a_kernel_group_carry_the_caps_and_admit_the_kernel(tmp_path):
    """Folders standing for v1: the group made under one name in both, memory (and memory with swap) and processes
    written, the kernel's pid written to both, the group and then the empty parent removed at the end?"""
    memory, pids = tmp_path / "memory" / "attn-grading", tmp_path / "pids" / "attn-grading"
    for parent in (memory.parent, pids.parent):
        parent.mkdir()
    group = cgroups.KernelGroup(cgroups.Groups(1, (memory, pids)), 2 * 1024 ** 3, 64)
    name = group.folders[0].name
    assert name.startswith("kernel-") and [f.name for f in group.folders] == [name, name]
    assert (memory / name / "memory.limit_in_bytes").read_text() == str(2 * 1024 ** 3)
    assert (pids / name / "pids.max").read_text() == "64"
    group.admit(4242)
    assert (memory / name / "cgroup.procs").read_text() == "4242" == (pids / name / "cgroup.procs").read_text()
    for path in [*memory.rglob("*"), *pids.rglob("*")]:  # a real cgroup's files go with its folder
        if path.is_file():
            path.unlink()
    group.remove()
    assert not memory.exists() and not pids.exists()


def _real_groups():
    groups = cgroups.find()
    if os.geteuid() != 0 or not groups.version:
        reason = "no control group this user may write (root on a machine with cgroup v1 or v2 memory and pids)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return groups


HOLD = """
import os, sys, time
chunks = [b"x" * (16 * 1024 ** 2) for _ in range(int(sys.argv[1]))]
print("held", flush=True)
time.sleep(30)
"""


def test_are_two_processes_capped_together_the_cap_stopping_one_of_them():
    """A real group of 64 MB: two processes of 40 MB each, each under it, are over it together: one of the two is
    killed by the group's cap, and the process that made the group (outside it) lives on?"""
    group, started = cgroups.KernelGroup(_real_groups(), 64 * 1024 ** 2, 16), []
    try:
        for _ in range(2):
            process = subprocess.Popen([sys.executable, "-c", HOLD, "3"], stdout=subprocess.PIPE, text=True)
            group.admit(process.pid)  # before it allocates: Python's start-up is not what counts here
            started.append(process)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and all(p.poll() is None for p in started):
            time.sleep(0.05)
        assert sorted(p.poll() is None for p in started) == [False, True]
        assert [p.returncode for p in started if p.returncode is not None] == [-9] and group.oom_kills() >= 1
    finally:
        for process in started:
            process.kill()
            process.wait()
        group.remove()
    assert not any(folder.exists() for folder in group.folders)


def test_does_a_group_cap_the_processes_of_the_kernel_as_a_whole():
    """pids.max 3: the admitted process may start two more, the third fork fails with EAGAIN (the processes limit a
    graded call reports)?"""
    group = cgroups.KernelGroup(_real_groups(), 256 * 1024 ** 2, 3)
    forking = ("import os, time, errno\ntime.sleep(0.3)\nkids = []\nfor _ in range(3):\n"
               "    try:\n        pid = os.fork()\n    except OSError as e:\n        print(errno.errorcode[e.errno]); break\n"
               "    if pid == 0:\n        time.sleep(5); os._exit(0)\n    kids.append(pid)\nprint(len(kids))\n"
               "[os.kill(k, 9) for k in kids]\n")
    try:
        process = subprocess.Popen([sys.executable, "-c", forking], stdout=subprocess.PIPE, text=True)
        group.admit(process.pid)
        said = process.communicate(timeout=20)[0].split()
    finally:
        group.remove()
    assert said == ["EAGAIN", "2"]

"""What does a grading kernel see from inside its sandbox, and does grading stop cleanly without one?

One real kernel, started the way nbgrader starts it (nbgrader's Execute with the course's
GradingKernelManager, its config), forked from the template, runs a notebook that looks around: who it is, which folders
exist, what it may write, whether the network answers. Then the sandbox is made impossible (no
bubblewrap on PATH): ``make grade`` stops with one line saying what to install, before grading
anyone. ``ATTN_SANDBOX=off`` grading with a warning in the summary: tests/integration/test_redteam.py.
"""
import json
import os

import nbformat
import pytest
from nbgrader.preprocessors import Execute
from traitlets.config.loader import PyFileConfigLoader

from coursekit.paths import COURSE
from coursekit.sandbox import missing_tool
from coursekit.sandbox.bubblewrap import python_paths
from coursekit.grading.run import STATUS
from coursekit.kernel import GradingKernelManager
from support.classes import copy_graded, make_grade_target

LOOK = r"""
import json, os, socket
def can(action):
    try:
        action()
        return "yes"
    except OSError as e:
        return type(e).__name__
def writable():  # every folder mounted read-write, but those that hold no files (proc, devpts …; /dev/null is a node)
    found = []
    for line in open("/proc/self/mountinfo"):
        fields = line.split()
        after = fields[fields.index("-") + 1:]
        if "rw" in fields[5].split(",") and after[0] not in ("proc", "devpts", "mqueue", "sysfs", "cgroup", "cgroup2") \
                and os.path.isdir(fields[4]):
            sizes = [o[5:] for o in after[2].split(",") if o.startswith("size=")]
            found.append([fields[4], after[0], sizes[0] if sizes else None])
    return found
s = socket.socket(); s.settimeout(1)
print(json.dumps({
    "writable": writable(),
    "uid": os.getuid(), "pid": os.getpid(), "cwd": os.getcwd(), "files": sorted(os.listdir(".")),
    "root": sorted(os.listdir("/")), "course": os.path.exists(COURSE), "home": os.environ["HOME"],
    "grader": os.environ.get("ATTN_GRADER"), "grader folder": os.path.isdir("/run/attn/grader") and os.listdir("/run/attn/grader"),
    "read grader": can(lambda: open("/run/attn/grader/__init__.py").read(1)),
    "write here": can(lambda: open("mine.txt", "w").write("x")), "write /usr": can(lambda: open("/usr/x", "w")),
    "network": s.connect_ex(("1.1.1.1", 80)), "processes": len([p for p in os.listdir("/proc") if p.isdigit()]),
}))
"""


@pytest.fixture(scope="module")
def seen(tmp_path_factory):
    if missing_tool():
        if os.environ.get("CI") == "true":
            pytest.fail(missing_tool())
        pytest.skip(missing_tool())
    folder = tmp_path_factory.mktemp("submission")
    (folder / "data.txt").write_text("the student's own file")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(LOOK.replace("COURSE", repr(str(COURSE))))])
    Execute(config=config).preprocess(nb, {"metadata": {"path": str(folder)}})
    output = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    return json.loads(output), folder


def test_is_the_kernel_pid_1_of_its_own_world_with_nobodys_uid(seen):
    """PID 1, one process in its namespace, not root when grading runs as root?"""
    facts, _ = seen
    assert facts["pid"] == 1 and facts["processes"] == 1
    assert facts["uid"] != 0 or os.geteuid() != 0


def test_does_it_see_its_submission_copy_and_nothing_of_the_course(seen):
    """Its files in a private home, the course folder absent, the root holding only system folders?"""
    facts, folder = seen
    assert facts["files"] == ["data.txt"] and facts["cwd"].startswith(facts["home"])
    assert facts["course"] is False
    assert set(facts["root"]) <= {"bin", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "proc", "run",
                                  "sbin", "tmp", "usr", *{p.split("/")[1] for p in python_paths()}}
    assert (folder / "mine.txt").read_text() == "x"  # a new file it wrote next to itself comes back, as with nbgrader
    assert (folder / "data.txt").read_text() == "the student's own file"


def test_does_it_see_nothing_of_the_grader_and_write_only_its_own_copy(seen):
    """The grader lives in the grader process only: not named, not there, not readable; its own folder
    writable, /usr not?"""
    facts, _ = seen
    assert facts["grader"] is None and not facts["grader folder"] and facts["read grader"] == "FileNotFoundError"
    assert facts["write /usr"] != "yes" and facts["write here"] == "yes"


def test_is_every_file_system_it_may_write_one_of_its_capped_tmpfs(seen):
    """Its home, /tmp and /dev/shm, each a tmpfs of the sandbox's size, and nothing else read-write: not its kernel
    folder on the machine's /tmp (a cell once wrote 255 MB there, issue 54), not bubblewrap's uncapped /dev?"""
    facts, _ = seen
    limits = GradingKernelManager(config=PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()).limits()
    kib = lambda size: f"{size // 1024}k"  # noqa: E731 -- as the kernel's mount table writes a size
    assert sorted(map(tuple, facts["writable"]), key=repr) == sorted([
        (facts["home"], "tmpfs", kib(limits.scratch)), ("/tmp", "tmpfs", kib(limits.tmp)),
        ("/dev/shm", "tmpfs", kib(8 * 1024 ** 2))], key=repr), facts["writable"]


def test_is_there_no_network(seen):
    """No route anywhere (an errno, not 0)?"""
    assert seen[0]["network"] != 0


def test_does_make_grade_stop_in_one_line_without_bubblewrap(serial_class, tmp_path):
    """No bwrap on PATH: the course's make grade exits 2 (the module itself 3: the machine's), with one line naming
    bubblewrap and ATTN_SANDBOX=off, before anyone is graded?"""
    graded = copy_graded(serial_class, tmp_path / "class")
    tools = tmp_path / "bin"
    tools.mkdir()  # a PATH without bwrap
    env = dict(graded.env, PATH=str(tools))
    done = make_grade_target(graded.course, env, FORCE=1)
    said = [line for line in done.stderr.splitlines() if "bubblewrap" in line]
    assert done.returncode == 2 and done.stdout == "" and len(said) == 1 and "ATTN_SANDBOX=off" in said[0]
    assert f"Error {STATUS['machine']}" in done.stderr  # what make says of its recipe: the module's status

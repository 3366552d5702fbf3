"""The grading side of the kernel template: start it once per process, ask it for a kernel per student.

:class:`Template` starts :mod:`.template` (inside bubblewrap, :func:`.bubblewrap.template_command`, or
as a plain process when grading runs unsandboxed) in a private folder, and waits until it has
imported everything and listens. :meth:`Template.fork` sends one request — where the kernel's
folder is, its uid, limits, environment and the socket it must connect to — and returns the
kernel's pid as the template sees it; :class:`ForkedKernel` stands for that process, which is not
a child of the grading process.

One template serves a whole process — every student of a ``make grade`` worker, of a hand-run
``nbgrader autograde``, of a formgrader, for every assignment of the course (it is made for what they
all declare: :class:`coursekit.assignments.World`) — and is replaced when that changes, or a file of
a grader or of a plug-in's package does. It dies with the process that started it (bubblewrap's ``--die-with-parent``;
its PID namespace, and every kernel inside it, go with it). This module keeps it, as the process keeps an open
file: a kernel manager asks :func:`template` for it; the other modules only ask :func:`template_died`.
"""
import atexit
import contextlib
import fcntl
import json
import os
import pathlib
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from ..faults import TemplateDidNotStart
from ..language import PSEUDO_FROM, WORDS
from ..locks import held
from .bubblewrap import preload_args, template_command

__all__ = ["PREFIX", "Template", "template", "ForkedKernel", "remove_leftovers", "leftovers_said", "running",
           "template_died"]

PREFIX = "attn-template-"
# /tmp itself, whatever TMPDIR says: every kernel covers /tmp with a tmpfs of its own, keeping only its own folder
# there, and the control socket's path must stay short (108 bytes at most)
FOLDERS = pathlib.Path("/tmp")
_templates: dict = {}
_lock = threading.Lock()


class Template:
    """One kernel template, running; :meth:`fork` a kernel, :meth:`stop` it all.

    Its folder holds ``owner.lock``, locked for as long as the process that started the template
    lives: a folder whose lock is free was left by a grading process that was killed, and the next
    template removes it (:func:`remove_leftovers`). What the template and its kernels write to
    stderr before a kernel has a log of its own goes to ``template.log`` there.
    """

    def __init__(self, privileged: bool, world, env: dict, sandboxed: bool = True):
        for line in leftovers_said(remove_leftovers()):
            print(line, file=sys.stderr, flush=True)  # the grading log
        making = pathlib.Path(tempfile.mkdtemp(prefix=f".{PREFIX}", dir=FOLDERS))  # not yet a leftover's name
        self._owner = os.open(making / "owner.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._owner, fcntl.LOCK_EX)  # held before any other process can take the folder for a leftover
        self.folder = making.rename(FOLDERS / making.name[1:])
        self.folder.chmod(0o711)  # forked kernels (other uids) must reach their own folder below it
        if sandboxed:
            command = template_command(self.folder, privileged=privileged, world=world, env=env)
        else:
            command = [sys.executable, "-m", "coursekit.sandbox.template", str(self.folder), "--unsandboxed",
                       *preload_args(world)]
        with open(self.folder / "template.log", "ab") as log:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                            start_new_session=True)
        ready = self.process.stdout.readline()
        if ready.strip() != b"ready":
            status, said = self.process.wait(), self.log_tail()
            self.stop()
            raise TemplateDidNotStart(status, said)
        self.process.stdout.close()

    def log_tail(self, size: int = 2000) -> str:
        """The last lines the template (or a kernel still starting) wrote to its stderr, as one line."""
        try:
            text = (self.folder / "template.log").read_bytes()[-size:].decode("utf-8", "replace")
        except OSError:
            return ""
        return " | ".join(line.strip() for line in text.strip().splitlines()[-6:] if line.strip())

    def alive(self) -> bool:
        return self.process.poll() is None

    def kernel_folder(self) -> pathlib.Path:
        """A new folder for one kernel: its connection file, sockets and the copy of its submission."""
        return pathlib.Path(tempfile.mkdtemp(prefix="kernel-", dir=self.folder))

    def fork(self, request: dict, timeout: float = 30) -> int:
        """Ask for a kernel; its pid as the template sees it."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(self.folder / "control.sock"))
            conn.sendall(json.dumps(request).encode() + b"\n")
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = conn.recv(4096)
                if not chunk:
                    raise RuntimeError("the kernel template closed the connection without an answer")
                answer += chunk
        return json.loads(answer)["pid"]

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
        os.close(self._owner)


def remove_leftovers() -> list:
    """Remove the template folders of grading processes that were killed (their ``owner.lock`` is free); their paths.

    Such a folder may hold copies of students' submissions and kernel logs: nothing else ever removes it.
    """
    removed = []
    half_made = [f for f in FOLDERS.glob(f".{PREFIX}*") if _age(f) > 60]  # killed while it was made
    for folder in [*FOLDERS.glob(f"{PREFIX}*"), *half_made]:
        if held(folder / "owner.lock"):
            continue  # its grading process is alive; or not one of ours, or being made right now
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _age(folder: pathlib.Path) -> float:
    """Seconds since ``folder`` last changed; 0 if it is gone (another grading process, starting at the same
    moment, renamed the folder it was making: that is no leftover, and no reason to stop)."""
    try:
        return time.time() - folder.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def leftovers_said(removed, lang: str = PSEUDO_FROM) -> list:
    """One line per removed folder, for the instructor, in ``lang`` (the course's; a grading log's: English)."""
    return [WORDS.say(lang, "sandbox.leftover_removed", folder=folder) for folder in removed]


def template(privileged: bool, world, env: dict, sandboxed: bool = True) -> Template:
    """The process's template for these settings and this :class:`~coursekit.assignments.World`, started (or
    restarted) when needed."""
    key = (privileged, sandboxed, world, _version((*world.folders, *world.graders)))
    with _lock:
        current = _templates.get("current")
        if current is not None and (current[0] != key or not current[1].alive()):
            current[1].stop()
            current = None
        if current is None:
            current = (key, Template(privileged, world, env, sandboxed))
            _templates["current"] = current
        return current[1]


def running():
    """The template this process started last (alive or not), or None."""
    started = _templates.get("current")
    return None if started is None else started[1]


def template_died() -> bool:
    """Did the template this process started last die? Then every kernel forked from it died with it, whatever its
    notebook did (the callers of :func:`coursekit.faults.decide` tell it so)."""
    started = running()
    return started is not None and not started.alive()


def _version(folders) -> tuple:
    """When each Python file of ``folders`` last changed: a template that preloaded or shows them is outdated
    once one does."""
    return tuple((str(p), p.stat().st_mtime_ns) for folder in folders for p in sorted(pathlib.Path(folder).glob("*.py")))


@atexit.register
def _stop_all() -> None:
    for _, running in list(_templates.values()):
        running.stop()
    _templates.clear()


class ForkedKernel:
    """What jupyter_client needs of ``Popen`` for a kernel that is not a child of this process."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def poll(self):
        if self.returncode is None:
            try:
                state = pathlib.Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                state = "X"
            if state in ("Z", "X"):
                self.returncode = 0
        return self.returncode

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the kernel has used so far (it is not our child: getrusage never sees it)."""
        try:
            fields = pathlib.Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.01)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def wait_gone(self, timeout: float) -> None:
        """Until the process has exited (its pidfd becomes readable), at most ``timeout`` seconds."""
        try:
            pidfd = os.pidfd_open(self.pid)
        except OSError:  # gone already, or a Linux without pidfds: look every 2 ms
            self._poll_until(timeout)
            return
        try:
            select.select([pidfd], [], [], timeout)
        finally:
            os.close(pidfd)

    def _poll_until(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)

    def terminate(self) -> None:
        self.send_signal(signal.SIGKILL)  # the kernel is PID 1 of its namespace: a TERM it does not handle is lost

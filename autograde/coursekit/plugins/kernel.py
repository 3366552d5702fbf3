"""The kernel nbgrader starts to validate or autograde a notebook of this course: sandboxed.

``nbgrader_config.py`` makes nbgrader's executor start its kernels with
:class:`GradingKernelManager` (``c.Execute.kernel_manager_class``), so every way of grading
goes through it: ``nbgrader autograde`` and ``validate`` run by hand, the formgrader's buttons,
``make grade``'s workers. Each kernel runs in the sandbox of :mod:`coursekit.sandbox` (on by
default, ``ATTN_SANDBOX=off`` or ``c.GradingKernelManager.sandbox = False`` to grade a trusted
class without it, with a warning for every kernel). It talks to nbgrader over IPC sockets in a
private folder, since the sandbox has no network, and learns where the grader is from
``ATTN_GRADER``: the hidden region of each test cell loads it from there.
"""
import asyncio
import contextlib
import os
import pathlib
import select
import shutil
import signal
import socket
import struct
import tempfile
import time

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, DottedObjectName, Type, Unicode, default

import attnkit

from ..sandbox import (
    CACHE,
    HOME,
    Limits,
    SandboxUnavailable,
    acquire,
    kernel_command,
    missing_tool,
    parse_size,
    processes_of,
)
from ..sandbox.bubblewrap import environment, python_in_private_folders
from ..sandbox.bytecode import compile_bytecode
from ..sandbox.forkserver import FORK_PROVISIONER, ForkedKernel, template
from ..settings import sandbox_default, switched_on
from .figure_cache import warm

__all__ = ["GRADER_VARIABLE", "GradingKernelManager"]

GRADER_VARIABLE = "ATTN_GRADER"
# Every thread the kernel needs, started before any student code: a student who uses up the sandbox's
# process limit (a fork bomb) must not leave the kernel unable to send its output (pyzmq starts its
# garbage-collector thread on the first large message).
START_THREADS = "--IPKernelApp.exec_lines=['import zmq.utils.garbage as _zmq_gc; _zmq_gc.gc.start(); del _zmq_gc']"
UNSANDBOXED = ("GRADING WITHOUT A SANDBOX (ATTN_SANDBOX=off): this student's code runs with your rights and "
               "can read or change the grader, the gradebook and other students' work.")


def _children(pid: int) -> list:
    """The pids ``pid`` started (Linux: /proc/<pid>/task/*/children)."""
    found = []
    for task in pathlib.Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            found += [int(child) for child in task.read_text().split()]
    return found


class GradingKernelManager(AsyncKernelManager):
    """jupyter_client's AsyncKernelManager for grading kernels: sandboxed, told where the grader is.

    Asynchronous like nbclient's own default: with a blocking manager nbclient's client waits for
    output in a blocking poll, and neither the cell timeout nor a dead kernel is ever noticed.
    """

    client_class = DottedObjectName("coursekit.plugins.kernel_client.GradingKernelClient")  # ready at once
    client_factory = Type(klass="coursekit.plugins.kernel_client.GradingKernelClient")
    grader = Unicode("", help="The course's grader (…/grader/__init__.py); the kernel gets it as "
                              "ATTN_GRADER. Empty: the kernel inherits nbgrader's environment.").tag(config=True)
    sandbox = Bool(help="Run every grading kernel in the sandbox (coursekit.sandbox). Default: on, "
                        "unless the environment says ATTN_SANDBOX=off.").tag(config=True)
    memory = Unicode("2G", help="Address space of each process in the sandbox (e.g. 2G).").tag(config=True)
    processes = Unicode("64", help="Processes and threads the sandboxed kernel may have.").tag(config=True)
    scratch = Unicode("64M", help="Size of the private home holding the copy of the submission.").tag(config=True)
    tmp = Unicode("64M", help="Size of the sandbox's /tmp.").tag(config=True)
    file_size = Unicode("32M", help="Largest file the sandboxed kernel may write.").tag(config=True)
    figure_cache = Unicode(help="The chapter's cached figures, shown read-only to the kernel "
                                "(default: $ATTNKIT_CACHE_DIR or ~/.cache/attnkit).").tag(config=True)
    fork = Bool(help="Fork each sandboxed kernel from a pre-imported template (coursekit.sandbox.template) "
                     "instead of starting a new Python. Default: on, unless ATTN_FORK=off.").tag(config=True)

    @default("fork")
    def _fork_default(self):
        return switched_on("ATTN_FORK")

    @default("sandbox")
    def _sandbox_default(self):
        return sandbox_default()

    @default("figure_cache")
    def _figure_cache_default(self):
        from attnkit.static import cache_dir
        return str(cache_dir())

    def limits(self) -> Limits:
        return Limits(memory=parse_size(self.memory, "GradingKernelManager.memory"),
                      processes=int(parse_size(self.processes, "GradingKernelManager.processes")),
                      scratch=parse_size(self.scratch, "GradingKernelManager.scratch"),
                      tmp=parse_size(self.tmp, "GradingKernelManager.tmp"),
                      file_size=parse_size(self.file_size, "GradingKernelManager.file_size"))

    async def start_kernel(self, **kw):
        env = dict(kw.pop("env", None) or os.environ)
        if not self.sandbox:
            self.log.warning(UNSANDBOXED)
            if self.grader:
                env[GRADER_VARIABLE] = self.grader
            return await super().start_kernel(env=env, **kw)
        await self._before_sandboxed_start()
        submission = kw.get("cwd") or os.getcwd()
        if self.fork and not python_in_private_folders():
            self._prepare_fork(submission, env)
            self.kernel_spec.metadata["kernel_provisioner"] = {"provisioner_name": FORK_PROVISIONER}
        else:
            self._prepare_sandbox(submission, env)
        return await super().start_kernel(env=env, **kw)

    async def _before_sandboxed_start(self) -> None:
        problem = missing_tool()
        if problem:
            raise SandboxUnavailable(problem)
        if self.grader:
            await warm(pathlib.Path(self.grader).parent.parent, self.figure_cache, self.log)
            compile_bytecode(pathlib.Path(self.grader).parent)  # read-only in the sandbox: no __pycache__ of its own
        compile_bytecode(pathlib.Path(attnkit.__file__).parent)  # the same for the private attnkit each test cell loads

    def runs_cells_directly(self) -> bool:
        """Can this manager's kernels run cells without the kernel protocol (:mod:`coursekit.sandbox.cells`)?
        Only forked, sandboxed ones."""
        return self.sandbox and self.fork and not python_in_private_folders()

    async def start_cell_runner(self, submission: str, env: dict, timeout: float = 30):
        """A forked, sandboxed kernel that runs cells sent to it over a socket: (its process, the socket).

        The worker listens in the kernel's folder and the kernel connects once it is walled off, before
        any student code: the connection's peer credentials name its pid on this machine (no search of
        /proc). A kernel that does not connect within ``timeout`` seconds is an error.
        """
        await self._before_sandboxed_start()
        self._prepare_fork(submission, env)
        path = self._ipc_dir / "cells.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(str(path))
            if self._identity.privileged:
                os.chown(path, self._identity.uid, self._identity.uid)
            listener.listen(1)
            self._template.fork({**self._request, "cells": str(path)}, locate=False)
            if not select.select([listener], [], [], timeout)[0]:
                self.stop_cell_runner()
                raise RuntimeError(f"the sandboxed kernel did not start within {timeout} s; its error is in the "
                                   "grading log")
            connection, _ = listener.accept()
        pid, _, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                              struct.calcsize("3i")))
        self._runner = ForkedKernel(pid)
        return self._runner, connection

    def stop_cell_runner(self) -> None:
        """Kill the cell runner (everything it started goes with it), free its uid, remove its folder."""
        runner, self._runner = getattr(self, "_runner", None), None
        if runner is not None:
            runner.kill()
            runner.wait_gone(2.0)
        folder, self._ipc_dir = getattr(self, "_ipc_dir", None), None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        identity, self._identity = getattr(self, "_identity", None), None
        if identity is not None:  # also when the template failed after the uid was taken
            identity.release()

    async def interrupt_kernel(self) -> None:
        """SIGINT to the kernel itself (PID 1 of its namespace), never to the processes it started.

        jupyter_client would signal bubblewrap; ipykernel's own interrupt message signals its whole
        process group, and a forked child of the kernel that catches it would answer on the kernel's
        sockets and garble them.
        """
        if getattr(self, "_ipc_dir", None) is None:
            return await super().interrupt_kernel()
        self._signal_sandbox(signal.SIGINT)

    def _prepare_sandbox(self, submission: str, env: dict) -> None:
        """A uid, a private socket folder and the command's ingredients for the next launch."""
        self._identity = acquire()
        folder = pathlib.Path(tempfile.mkdtemp(prefix="attn-kernel-"))
        if self._identity.privileged:
            os.chown(folder, self._identity.uid, self._identity.uid)
        self._talk_through(folder)
        limits = self.limits()
        grader = pathlib.Path(self.grader).parent if self.grader else None
        self._wrap = dict(identity=self._identity, limits=limits, submission=submission, ipc_dir=folder,
                          grader=grader, cache=self.figure_cache, env=env, processes=self._processes(limits))

    def _talk_through(self, folder: pathlib.Path) -> None:
        """The kernel's connection file and IPC sockets in ``folder`` (no TCP: the sandbox has no network)."""
        self._ipc_dir, self.transport = folder, "ipc"
        self.ip, self.connection_file = str(folder / "kernel"), str(folder / "connection.json")

    def _processes(self, limits) -> int:
        """The process limit: as another user, that user's own processes count against it too."""
        return limits.processes + (0 if self._identity.privileged else len(processes_of(self._identity.uid)))

    def _prepare_fork(self, submission: str, env: dict) -> None:
        """A uid, a folder in the template's (connection file, sockets, the submission's copy), the request."""
        self._identity = acquire()
        grader = pathlib.Path(self.grader).parent if self.grader else None
        self._template = template(self._identity.privileged, grader, self.figure_cache, env)
        folder = self._template.kernel_folder()
        shutil.copytree(submission, folder / "submission", symlinks=True)
        uid = self._identity.uid if self._identity.privileged else 0  # uid 0 of the template's user namespace
        if self._identity.privileged:
            for path in [folder, *folder.rglob("*")]:
                os.chown(path, uid, uid, follow_symlinks=False)
        self._talk_through(folder)
        limits = self.limits()
        workdir = f"{HOME}/{pathlib.Path(submission).name}"
        has_cache = bool(self.figure_cache) and pathlib.Path(self.figure_cache).is_dir()
        self._request = {
            "folder": str(folder), "home": HOME, "workdir": workdir, "uid": uid,
            "limits": {"memory": limits.memory, "processes": self._processes(limits), "scratch": limits.scratch,
                       "tmp": limits.tmp, "file_size": limits.file_size, "open_files": limits.open_files},
            "env": environment(env, workdir, bool(grader), has_cache, limits),
            "fonts": f"{CACHE}/matplotlib" if has_cache else None}

    def fork_kernel(self, command: list) -> int:
        """Ask the template for this kernel (:class:`coursekit.sandbox.ForkProvisioner` calls it); its pid."""
        argv = command[command.index("-f"):] + [START_THREADS]  # ipykernel's own arguments
        return self._template.fork({**self._request, "argv": argv})

    def _kill_sandbox(self) -> None:
        """SIGKILL the kernel itself: PID 1 of its namespace, so everything it started goes with it.

        Killing bubblewrap (what jupyter_client would do) is not enough: a namespace's PID 1 ignores
        the parent-death signal, so the kernel would outlive it.
        """
        self._signal_sandbox(signal.SIGKILL)

    async def _exited(self, timeout: float = 2.0) -> None:
        """Until the killed kernel's process is gone, looked at every 5 ms (jupyter_client looks every
        100 ms, and that wait is paid once per student); jupyter_client's own wait then ends at once."""
        process = getattr(self.provisioner, "process", None)
        deadline = time.monotonic() + timeout
        while process is not None and process.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.005)

    def _signal_sandbox(self, signum: int) -> None:
        """Send ``signum`` to the kernel, the namespace's PID 1: bubblewrap's child, or the forked kernel itself."""
        process = getattr(self.provisioner, "process", None)
        if process is None:
            return
        for child in ([process.pid] if isinstance(process, ForkedKernel) else _children(process.pid)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signum)

    def write_connection_file(self, **kwargs):
        super().write_connection_file(**kwargs)
        identity = getattr(self, "_identity", None)
        if identity is not None and identity.privileged:  # jupyter_client writes it 0600 as root
            os.chown(self.connection_file, identity.uid, identity.uid)

    def format_kernel_cmd(self, extra_arguments=None):
        command = super().format_kernel_cmd(extra_arguments)
        wrap = getattr(self, "_wrap", None)  # a kernel started by bubblewrap (not forked)
        return kernel_command(command + [START_THREADS], **wrap) if wrap else command

    async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        if now and getattr(self, "_ipc_dir", None) is not None:
            self._kill_sandbox()
            await self._exited()
        await super().shutdown_kernel(now=now, restart=restart)
        if getattr(self, "_ipc_dir", None) is not None and not restart:
            shutil.rmtree(self._ipc_dir, ignore_errors=True)  # the sockets and the connection file
            self._ipc_dir = None
            self._identity.release()  # the kernel and all it started are gone: the uid is free

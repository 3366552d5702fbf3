"""The kernel nbgrader starts to validate or autograde a notebook of this course: a sandboxed cell runner.

``nbgrader_config.py`` makes nbgrader's executor start its kernels with
:class:`GradingKernelManager` (``c.Execute.kernel_manager_class``), so every way of grading
goes through it: ``nbgrader autograde`` and ``validate`` run by hand, the formgrader's buttons,
``make grade``'s workers and the grading service. Each kernel is forked from a pre-imported
template (:mod:`coursekit.sandbox.template`) inside the sandbox of :mod:`coursekit.sandbox`, and is a
cell runner (:mod:`coursekit.sandbox.cells`): nbclient drives it through
:class:`~.client.RunnerClient`, nbgrader's own ``Execute`` unchanged. ``ATTN_SANDBOX=off`` or
``c.GradingKernelManager.sandbox = False`` (for a machine that is itself the sandbox, e.g. a grading
pod) forks the same runners from a template outside bubblewrap, with a warning for every kernel.
The template is made for every assignment the course declares (:mod:`coursekit.assignments`: what their
plug-ins preload and show). A notebook of an assignment with a grader (``c.CourseKit.assignments``) gets
a second process beside its kernel, forked from the same template: the grader process
(:mod:`coursekit.sandbox.grader_host`, :mod:`.grader_process`), with a uid and a world of its own, which
the kernel cannot see. Before each test cell it grades, it calls the student's functions in the kernel
(through the plug-in's ``CALL_HOOK`` there, e.g. the chapter's delegation probe), and its verdict, never
the kernel's, becomes the cell's outputs (:mod:`.client`). A plain nbgrader assignment's test
cells run in the kernel, as nbgrader runs them.
"""
import contextlib
import functools
import os
import pathlib
import select
import shutil
import signal
import socket
import struct
import time

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, Integer, Unicode, default

from ..assignments import for_notebook_folder, world_of
from ..environ import CALL_HOOK
from ..faults import InfrastructureFault, KernelDidNotStart, grader_unreadable
from ..language import marked
from ..sandbox import HOME, Limits, SandboxUnavailable, acquire, missing_tool, parse_size, private_python, processes_of
from ..sandbox import cgroups, side_files
from ..sandbox.bubblewrap import GRADERS, SHARED, environment
from ..sandbox.bytecode import compile_bytecode
from ..sandbox.forkserver import ForkedKernel, template
from ..seeds import course_secret, submission_seed
from ..settings import CourseKit, sandbox_default, unsandboxed
from .grader_process import GraderProcess
from .client import RunnerClient
from .output_cap import OutputCap

__all__ = ["GradingKernelManager"]

START_SECONDS = 30  # for a forked kernel to connect (the template itself may take longer, once)
FILES_SECONDS = 5  # for the runner to send the files its notebook wrote (sandbox.side_files)


class GradingKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager for grading kernels: a forked cell runner, sandboxed, told where the grader is.

    What nbclient asks of a kernel manager — start, a client, alive?, interrupt, shut down — is
    done here for a runner; nothing of jupyter_client's own launching (kernel specs, provisioners,
    ZMQ ports) is used.
    """

    sandbox = Bool(help="Run every grading kernel in the sandbox (coursekit.sandbox). Default: on, "
                        "unless the environment says ATTN_SANDBOX=off.").tag(config=True)
    memory = Unicode("2G", help="Memory of the sandboxed kernel (e.g. 2G): each process's address space and, where the "
                               "machine has control groups (coursekit.sandbox.cgroups), all its processes together, "
                               "its tmpfs included.").tag(config=True)
    processes = Unicode("64", help="Processes and threads the sandboxed kernel may have.").tag(config=True)
    scratch = Unicode("64M", help="Size of the private home holding the copy of the submission.").tag(config=True)
    tmp = Unicode("64M", help="Size of the sandbox's /tmp.").tag(config=True)
    file_size = Unicode("32M", help="Largest file the sandboxed kernel may write.").tag(config=True)
    cell_output_limit = Integer(
        300_000, help="Bytes of output one cell keeps while grading; beyond it the output is cut with a note "
                      "(-1: no limit). Short execute results (scores) and errors are always kept.").tag(config=True)
    notebook_output_limit = Integer(
        1_200_000, help="Bytes of output a whole notebook keeps while grading (-1: no limit).").tag(config=True)
    files_back = Integer(20, help="Files a sandboxed notebook writes next to itself that are brought back into its "
                                  "folder, as nbgrader's own kernels leave them (new regular files only).").tag(config=True)
    files_back_size = Unicode("2M", help="Bytes of those files brought back, in all.").tag(config=True)

    _runner = _sock = _folder = _identity = _grader = _assignment = _world = _client = _submission = _group = None

    @default("sandbox")
    def _sandbox_default(self):
        return sandbox_default()

    def limits(self) -> Limits:
        return Limits(memory=parse_size(self.memory, "GradingKernelManager.memory"),
                      processes=int(parse_size(self.processes, "GradingKernelManager.processes")),
                      scratch=parse_size(self.scratch, "GradingKernelManager.scratch"),
                      tmp=parse_size(self.tmp, "GradingKernelManager.tmp"),
                      file_size=parse_size(self.file_size, "GradingKernelManager.file_size"))

    # ---------- what nbclient asks of a kernel manager ----------

    @property
    def has_kernel(self) -> bool:
        return self._runner is not None

    async def start_kernel(self, **kw):
        """Fork a cell runner for the notebook in ``cwd``; it is ready once it has connected."""
        self._started = time.perf_counter()
        env = dict(kw.get("env") or os.environ)
        submission = self._submission = kw.get("cwd") or os.getcwd()
        self._assignment, self._world = for_notebook_folder(submission, self.config), world_of(self.config)
        if self._assignment.grader:  # the machine's fault, never a 0 for every test cell of every student
            fault = grader_unreadable(pathlib.Path(self._assignment.grader).parent, self.sandbox and os.geteuid() == 0)
            if fault is not None:
                raise fault
        if self.sandbox:
            await self._before_sandboxed_start()
        else:
            self.log.warning(unsandboxed(CourseKit(config=self.config).language))
            env[CALL_HOOK] = self._assignment.get("CALL_HOOK")
        self._runner, self._sock = self._start_runner(submission, env)
        if self._assignment.grader:
            try:
                self._grader = self._start_grader(env, self._seed(submission))
            except BaseException:
                self._release()
                raise
        self._ready = time.perf_counter()

    def client(self, **kwargs) -> RunnerClient:
        cap = OutputCap(self.cell_output_limit, self.notebook_output_limit)
        timeouts = (self.config.Execute.get("timeout", 30), self.config.Execute.get("iopub_timeout", 4))
        self._client = RunnerClient(self._sock, self._runner, cap, self.log, on_broken=self._runner.kill,
                                    grader=self._grader, timeouts=timeouts, clock=(self._started, self._ready))
        return self._client

    async def is_alive(self) -> bool:
        return self._runner is not None and self._runner.poll() is None

    async def interrupt_kernel(self) -> None:
        """SIGINT to the runner itself (PID 1 of its namespace), never to the processes it started."""
        if self._runner is not None:
            self._runner.send_signal(signal.SIGINT)

    async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        if self._runner is not None:
            if self._client is not None:
                self._client.note_timings()
            if self.sandbox and self._client is not None and self._submission is not None:
                await self._files_back()
        self._release()

    async def _files_back(self) -> None:
        """The files the notebook wrote next to itself, out of the sandbox's copy into its folder, as nbgrader's own
        kernels leave them (coursekit.sandbox.side_files: new regular files only, capped)."""
        limits = {"max_files": self.files_back, "max_bytes": parse_size(self.files_back_size,
                                                                        "GradingKernelManager.files_back_size")}
        sent = await self._client.fetch_files(limits, FILES_SECONDS)
        if sent is not None:
            side_files.write(sent, self._submission, self.log, limits["max_files"], limits["max_bytes"])

    def _release(self) -> None:
        """Kill the runner (everything it started goes with it) and the grader process, free their uids and folders."""
        grader, self._grader, self._client = self._grader, None, None
        if grader is not None:
            grader.stop()
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.kill()
            runner.wait_gone(2.0)
        group, self._group = self._group, None
        if group is not None:
            if group.oom_kills():
                self.log.warning("the grading kernel's processes went over %s together: its memory cap stopped %d of "
                                 "them", self.memory, group.oom_kills())
            group.remove()
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        folder, self._folder = self._folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        identity, self._identity = self._identity, None
        if identity is not None:
            identity.release()

    async def restart_kernel(self, now: bool = False, newports: bool = False, **kw) -> None:
        raise RuntimeError("a grading kernel is never restarted: each notebook gets a fresh one")

    async def cleanup_resources(self, restart: bool = False) -> None:
        """What nbclient always calls last, also for a kernel it found dead (and so never shut down): a runner
        that closed its socket may still be running."""
        self._release()

    def start_template(self) -> None:
        """Start the kernel template now, so that the first notebook does not wait for its imports (≈ 2 s): what a
        student's server does when it starts (:mod:`.students`). Only outside the sandbox: a sandboxed template is
        started by the grading command that needs it."""
        if not self.sandbox:
            template(False, world_of(self.config), dict(os.environ), sandboxed=False)

    # ---------- the runner ----------

    async def _before_sandboxed_start(self) -> None:
        lang = CourseKit(config=self.config).language  # the instructor's, who reads why grading stopped
        problem = missing_tool(lang) or private_python(self._world.folders, lang)
        if problem:
            raise SandboxUnavailable(problem)
        await self._assignment.prepare(self.log)
        for folder in (*self._world.graders, *self._world.folders):
            compile_bytecode(folder)  # read-only in the sandbox: no __pycache__ of their own

    def _start_runner(self, submission: str, env: dict):
        """A forked kernel that runs cells sent to it over a socket: (its process, the socket). Sandboxed, it is put in
        a control group of its own before any cell (coursekit.sandbox.cgroups: its memory and processes together)."""
        request = self._sandboxed_request(submission, env) if self.sandbox else self._plain_request(submission, env)
        if self.sandbox:
            limits = self.limits()
            with _group_fault():
                self._group = cgroups.KernelGroup(cgroups.find(), limits.memory, limits.processes)
        runner, sock = self._fork(request, self._folder, self._identity, "the grading kernel")
        if self._group is not None:
            try:
                with _group_fault():
                    self._group.admit(runner.pid)
            except BaseException:
                self._runner, self._sock = runner, sock
                self._release()
                raise
        return runner, sock

    def _fork(self, request: dict, folder: pathlib.Path, identity, what: str, timeout: float = START_SECONDS):
        """Fork ``request`` from the template; it connects once it is walled off, before any student code (the
        connection's peer credentials name its pid on this machine): (its process, the socket). One that does not
        connect within ``timeout`` seconds is an error."""
        path = folder / "cells.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(str(path))  # the folder's and the socket's owner stay this process's user: the forked
            listener.listen(1)        # process connects before it becomes the kernel's uid (sandbox.template)
            self._template.fork({**request, "cells": str(path)})
            if not select.select([listener], [], [], timeout)[0]:
                self._fail_start(f"{what} did not start within {timeout} s", folder)
            connection, _ = listener.accept()
        pid, _, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                              struct.calcsize("3i")))
        return ForkedKernel(pid), connection

    def _seed(self, submission: str) -> str:
        """The submission's seed (:mod:`coursekit.seeds`), from the secret beside the grader's package (the course
        folder: ``<course>/grader/``); a secret that cannot be read is the machine's fault."""
        beside_grader = pathlib.Path(self._assignment.grader).resolve().parent.parent
        try:
            return submission_seed(course_secret(beside_grader), submission)
        except (OSError, ValueError) as error:
            raise InfrastructureFault(marked("fault.secret_unusable"), marked("fault.fix_secret"),
                                      error=str(error)) from None

    def _start_grader(self, env: dict, seed: str) -> GraderProcess:
        """The grader process beside this kernel, its channel to the kernel made; it has loaded the grader and will
        draw the hidden inputs from ``seed`` (:mod:`coursekit.seeds`: the submission's)."""
        identity = acquire() if self.sandbox else None
        folder = self._template.kernel_folder()
        release = functools.partial(_release_world, folder, identity)
        try:
            request = self._grader_request(env, folder, identity)
            process, sock = self._fork(request, folder, identity, "the grader process")
            grader_end, kernel_end = socket.socketpair()
            socket.send_fds(sock, [b"c"], [grader_end.fileno()])  # one byte: the grader reads exactly it
            grader_end.close()
            return GraderProcess(process, sock, kernel_end, release, seed)
        except BaseException:
            release()
            raise

    def _grader_request(self, env: dict, folder: pathlib.Path, identity) -> dict:
        if not self.sandbox:
            return {"grader": self._assignment.grader, "folder": str(folder), "workdir": str(folder), "env": env}
        uid = identity.uid if identity.privileged else 0
        limits, workdir = self.limits(), f"{HOME}/grader"
        grader = f"{GRADERS}/{self._world.grader_index(self._assignment.grader)}/__init__.py"  # where it is inside
        return {"grader": grader, "folder": str(folder), "home": HOME, "workdir": workdir, "uid": uid,
                "limits": self._limits_request(limits), "env": environment(env, workdir, limits)}

    def _fail_start(self, why: str, folder: pathlib.Path):
        """Stop what was started and say why it never became ready, with what it or its template wrote."""
        logs = [folder / name for name in ("kernel.log", "grader.log") if (folder / name).exists()]
        said = " | ".join(log.read_text(errors="replace").strip()[-1000:] for log in logs)
        said = " | ".join(filter(None, [said, self._template.log_tail()]))
        self.log.error("%s%s", why, f": {said}" if said else "")
        self._release()
        raise KernelDidNotStart(f"{why}: {said}" if said else why)

    def _plain_request(self, submission: str, env: dict) -> dict:
        """Unsandboxed: the kernel runs in the submission's own folder, with nbgrader's environment."""
        self._template = template(False, self._world, env, sandboxed=False)
        self._folder = self._template.kernel_folder()
        return {"folder": str(self._folder), "workdir": str(pathlib.Path(submission).resolve()), "env": env}

    def _sandboxed_request(self, submission: str, env: dict) -> dict:
        """A uid, a folder in the template's (the socket, the submission's copy), the kernel's world."""
        self._identity = acquire()
        self._template = template(self._identity.privileged, self._world, env)
        self._folder = folder = self._template.kernel_folder()
        shutil.copytree(submission, folder / "submission", symlinks=True)  # copied into its home as it starts
        uid = self._identity.uid if self._identity.privileged else 0  # uid 0 of the template's user namespace
        limits = self.limits()
        workdir = f"{HOME}/{pathlib.Path(submission).name}"
        shared = bool(self._world.shared) and pathlib.Path(self._world.shared).is_dir()
        return {
            "folder": str(folder), "home": HOME, "workdir": workdir, "uid": uid, "limits": self._limits_request(limits),
            "env": environment(env, workdir, limits, call_hook=self._assignment.get("CALL_HOOK"),
                               shared_env=self._world.shared_env if shared else ""),
            "fonts": f"{SHARED}/matplotlib" if shared else None}

    def _limits_request(self, limits) -> dict:
        return {"memory": limits.memory, "processes": self._processes(limits), "scratch": limits.scratch,
                "tmp": limits.tmp, "file_size": limits.file_size, "open_files": limits.open_files}

    def _processes(self, limits) -> int:
        """The process limit: as another user, that user's own processes count against it too."""
        return limits.processes + (0 if self._identity.privileged else len(processes_of(self._identity.uid)))


@contextlib.contextmanager
def _group_fault():
    """A kernel's control group that cannot be made or joined is the machine's fault, never the notebook's."""
    try:
        yield
    except OSError as error:
        raise InfrastructureFault(marked("fault.cgroup_failed"), marked("fault.fix_cgroups"), error=str(error)) from None


def _release_world(folder: pathlib.Path, identity) -> None:
    """Remove a forked process's folder and free its uid (the process itself is gone)."""
    shutil.rmtree(folder, ignore_errors=True)
    if identity is not None:
        identity.release()

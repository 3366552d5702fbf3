"""The kernel template: a pre-imported Python inside the sandbox that forks one fresh kernel per student.

    python -m coursekit.sandbox.template <folder> [--unsandboxed] [--preload mod,mod…]   (started by :mod:`.forkserver`)

Starting a kernel costs an interpreter, the imports of IPython and of what the assignment uses (numpy,
matplotlib, a chapter's package), and a few hundred milliseconds before the first cell. This process
pays them once: it imports (:data:`PRELOAD` and the assignments' plug-ins' ``--preload``, see
:mod:`coursekit.assignments`), then waits on ``<folder>/control.sock``. For each request it forks; the child
becomes that student's kernel, a cell runner (:mod:`.cells`), and nothing it does reaches this
process or the next child (copy-on-write memory, no shared file it can write).

Inside bubblewrap (the default) the child is PID 1 of a PID namespace of its own from the fork on
(:func:`_fork_as_pid_1`). It walls itself off (:mod:`.isolate`): a mount namespace in which its own
kernel folder is the only one of ``<folder>`` left, fresh capped tmpfs for its home (holding a copy
of the submission), /tmp and /dev/shm; it takes a clean environment, opens its log and connects to the
socket the grading process listens on, then takes its kernel folder out of its world too (nothing of the
machine's disk is left writable), drops to the kernel's uid with no capability and takes the limits.
``--unsandboxed`` (``ATTN_SANDBOX=off``: a pod that is itself the sandbox) forks plain children that
run in the submission's own folder, as nbgrader's kernels do.

Forking after threads exist is unsafe (a lock held by another thread stays locked in the child;
BLAS pools and ZMQ's I/O threads are not copied). So nothing here starts a thread: BLAS is told
one thread (``OPENBLAS_NUM_THREADS=1`` in the template's environment), no ZMQ context exists
before the child creates its own, IPython's history is in memory, and the requests are served one
at a time. Random state is shared with the template, but the chapter seeds every draw it makes.
"""
import gc
import importlib.util
import json
import os
import shutil
import signal
import socket
import sys

from . import cells, isolate
from .bubblewrap import GRADERS

__all__ = ["PRELOAD", "main"]

# What every kernel imports (measured: sys.modules at the end of an autograded notebook, less what an
# assignment's own code brings). None of these starts a thread.
PRELOAD = ("IPython", "IPython.core.completerlib",
           "IPython.core.debugger", "IPython.core.logger", "IPython.core.oinspect", "IPython.extensions.storemagic",
           "IPython.utils.wildcard", "ipykernel.ipkernel", "sqlite3", "pdb", "pydoc", "runpy",
           "code", "faulthandler", "encodings.latin_1", "encodings.ascii", "nbformat",
           "ipykernel.zmqshell", "ipykernel.compiler", "coursekit.sandbox.cells")
STAGE = "/run/attn/stage"  # an empty folder, where the child keeps its kernel folder while it covers the others


def _preload(extra) -> None:
    if any(name.split(".")[0] in ("matplotlib", "matplotlib_inline") for name in extra):
        import matplotlib
        matplotlib.use("Agg")  # what the inline backend draws with, without a GUI
    for name in (*PRELOAD, *extra):
        importlib.import_module(name)


def _read(conn) -> dict:
    chunks = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
    return json.loads(b"".join(chunks))


def _reap(signum, frame) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main(argv=None) -> None:
    args = sys.argv[1:] if argv is None else argv
    folder, sandboxed = args[0], "--unsandboxed" not in args[1:]
    extra = args[args.index("--preload") + 1].split(",") if "--preload" in args[:-1] else []
    _preload(extra)
    cells.prepare()
    gc.collect()
    gc.freeze()  # what is here now is never collected: no kernel's collector touches (and so copies) these pages
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(os.path.join(folder, "control.sock"))
    server.listen(8)
    own_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY) if sandboxed else -1
    signal.signal(signal.SIGCHLD, _reap)
    print("ready", flush=True)
    while True:
        try:
            conn, _ = server.accept()
        except InterruptedError:
            continue
        with conn:
            request = _read(conn)
            pid = _fork_as_pid_1(own_pid_namespace) if sandboxed else os.fork()
            if pid == 0:
                server.close()
                conn.close()
                if sandboxed:
                    os.close(own_pid_namespace)
                _child(request, sandboxed)  # never returns
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")


def _fork_as_pid_1(own_pid_namespace: int) -> int:
    """``os.fork()``, the child PID 1 of a new PID namespace.

    unshare(CLONE_NEWPID) sends this process's *next* child into a new namespace; joining its own namespace
    again afterwards (setns) lets the child after it get a new one too. Before, the child unshared and forked
    the kernel itself, and stayed as a middle process: a second copy of this template's page tables and
    its exit, ≈ 8 ms of CPU per student for a template of ≈ 100 MB.
    """
    isolate.unshare(isolate.CLONE_NEWPID)
    try:
        pid = os.fork()
    except BaseException:
        isolate.setns(own_pid_namespace, isolate.CLONE_NEWPID)
        raise
    if pid:
        isolate.setns(own_pid_namespace, isolate.CLONE_NEWPID)
    return pid


def _child(request: dict, sandboxed: bool) -> None:
    """Become the student's kernel, or the grader process (``request["grader"]``); on any failure, say why on
    stderr and exit (the worker sees it die)."""
    grader = bool(request.get("grader"))
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        if sandboxed:
            _wall_off(request, grader)
        connection = _become(request, "grader.log" if grader else "kernel.log")
        if sandboxed:
            isolate.hide(request["folder"])  # its folder (on the machine's /tmp) leaves its world: see _become
            _drop_to_kernel(request)
        _serve_grader(request, connection) if grader else _serve_kernel(connection)
    except BaseException as exc:  # noqa: B036 -- report and go: the grading side notices a dead kernel
        what = "grader process" if grader else "sandboxed kernel"
        print(f"{what} could not start: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        os._exit(70)


def _wall_off(request: dict, grader: bool) -> None:
    """A world of its own: fresh /tmp, home and /dev/shm (its own folder kept, until :func:`_become` is done with it),
    the only file systems it may write, each capped; a kernel loses the grader's folder, which only the grader
    process keeps, and gets a copy of the submission."""
    limits, own = request["limits"], request["folder"]
    if not own.startswith("/tmp/"):
        raise ValueError(f"a kernel folder must lie in /tmp, which each kernel gets afresh: {own}")
    isolate.unshare(isolate.CLONE_NEWNS | isolate.CLONE_NEWIPC)  # the PID namespace is new already
    isolate.mount_private()
    if not grader:
        for mount in _mounts_under(GRADERS):
            isolate.hide(mount)  # nothing of any grader stays reachable from the student's process
    isolate.bind(own, STAGE)  # keep this kernel's folder: the fresh /tmp below replaces the template's and all others
    for mount in (*_mounts_under("/tmp"), *_mounts_under("/dev/shm")):
        isolate.hide(mount)  # the template's, uncapped, and its folder on the machine's disk: gone, not just covered
    for target, size in ((request["home"], limits["scratch"]), ("/tmp", limits["tmp"]), ("/dev/shm", 8 * 1024 ** 2)):
        isolate.mount_tmpfs(target, size)
    isolate.read_only("/dev")  # bubblewrap's, uncapped (and the kernel's own in a user namespace): only its nodes
    os.makedirs(own)
    isolate.move(STAGE, own)
    workdir = request["workdir"]
    if grader:
        os.makedirs(workdir, exist_ok=True)
    else:
        shutil.copytree(os.path.join(own, "submission"), workdir, dirs_exist_ok=True)
    fonts = request.get("fonts")
    if fonts and os.path.isdir(fonts):
        shutil.copytree(fonts, "/tmp/matplotlib", dirs_exist_ok=True)
    uid = request["uid"]
    for top in (request["home"], "/tmp/matplotlib"):
        for root, dirs, files in os.walk(top):
            for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                os.chown(name, uid, uid, follow_symlinks=False)


def _mounts_under(folder: str) -> list:
    """The mount points at or below ``folder`` in this mount namespace, deepest first."""
    with open("/proc/self/mountinfo") as mounts:
        points = [line.split()[4] for line in mounts]
    return sorted({p for p in points if p == folder or p.startswith(folder + "/")}, key=len, reverse=True)


def _drop_to_kernel(request: dict) -> None:
    """Its own /proc, the limits, the kernel's uid with no capability."""
    limits = request["limits"]
    isolate.mount_proc()
    isolate.apply_limits(limits["memory"], limits["processes"], limits["file_size"], limits["open_files"])
    isolate.drop_privileges(request["uid"])


def _become(request: dict, log_name: str) -> socket.socket:
    """What a forked kernel and a grader process both become first, while they may still change their world: in the
    request's folder and environment, stdin from /dev/null, stdout and stderr to ``log_name`` beside its socket, no
    other descriptor open; then connected to the grading process's socket.

    The kernel's folder lies on the machine's /tmp, outside every cap of the sandbox: once the log is open and the
    socket connected, the caller takes the folder out of the process's world, so that what it keeps of it is those
    two descriptors (and the log only until the runner points stdout and stderr at memory, :mod:`.cells`). Both are
    opened as the template's user, the folder's owner: the kernel's own uid could not write there."""
    os.chdir(request["workdir"])
    os.environ.clear()
    os.environ.update(request["env"])
    log = os.open(os.path.join(request["folder"], log_name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0), os.dup2(log, 1), os.dup2(log, 2)
    os.closerange(3, 1024)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(request["cells"])
    return connection


def _serve_kernel(connection: socket.socket) -> None:
    """The cell runner, in the submission's folder (its copy), talking to the grading process's socket."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # SIGINT: cells.serve makes it interrupt the running cell
    cells.serve(connection)  # never returns


def _serve_grader(request: dict, worker: socket.socket) -> None:
    """The grader process (:mod:`.grader_host`): the course's grader, the worker's socket, the channel to the kernel."""
    from . import grader_host

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the student's kernel is ever interrupted
    _, fds, _, _ = socket.recv_fds(worker, 1, 1)  # the channel to the kernel, sent by the worker
    grader_host.serve(worker, socket.socket(fileno=fds[0]), request["grader"])  # never returns


if __name__ == "__main__":
    main()

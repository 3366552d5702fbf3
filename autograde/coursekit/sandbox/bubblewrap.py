"""The command line that starts a grading kernel inside bubblewrap, and what the kernel sees there.

bubblewrap (Debian's ``bubblewrap``, the sandbox of Flatpak) builds the kernel's world from
nothing: a read-only root, a fresh /proc and /dev, and only what :func:`kernel_command` binds in:

=========================  ==================================================  ============
inside                     what                                                 mode
=========================  ==================================================  ============
``/usr``, ``/bin`` …       the system's programs and libraries                  read-only
the Python paths           the interpreter, the venv, attnkit (same paths)      read-only
``/run/attn/grader``       the course's grader (``ATTN_GRADER``)                read-only
``/run/attn/cache``        the chapter's cached figures (``ATTNKIT_CACHE_DIR``)  read-only
``/home/student/<name>``   a copy of this student's submission folder           private, capped
``/tmp``                   scratch                                              private, capped
the kernel's socket dir    the connection file and IPC sockets nbgrader talks to  the only shared one
=========================  ==================================================  ============

No course folder, no gradebook, no classmate, no home directory, no network (its own empty
network namespace), no process outside its own PID namespace. The kernel is PID 1 there: signals
other processes of the sandbox send it are ignored, and when it exits every process it left
behind is killed. ``prlimit`` caps memory, processes, file sizes and open files. Run as root,
bubblewrap sets up the mounts and namespaces and ``setpriv`` then drops to the kernel's own uid
(:mod:`.identity`) with no capabilities; run as another user, bubblewrap maps that user in a new
user namespace.
"""
import os
import pathlib
import shutil
import sys

from .identity import Identity
from .limits import Limits, human_size

__all__ = ["HOME", "GRADER", "CACHE", "SUBMISSION", "IPYTHONDIR", "environment", "kernel_command", "template_command",
           "python_paths", "python_in_private_folders", "missing_tool"]

HOME = "/home/student"
GRADER = "/run/attn/grader"
CACHE = "/run/attn/cache"
SUBMISSION = "/run/attn/submission"
IPYTHONDIR = "/tmp/ipython"  # in the kernel's own /tmp
TOOLKIT = "/run/attn/toolkit"  # coursekit, for the kernel template only (it runs coursekit.sandbox.template)
# passed into the sandbox from nbgrader's environment when set (OPENBLAS_*: this machine's BLAS needs them;
# LD_LIBRARY_PATH: an interpreter that finds its libpython only through it; the hub's finds its own by run-path)
PASSED = ("NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "JPY_PARENT_PID", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
          "LANG", "LC_ALL", "TZ", "LD_LIBRARY_PATH")
# what the set-up step needs as root before setpriv drops every capability: read the submission, own its copy
_SETUP_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_DAC_READ_SEARCH")
_ETC = ("ld.so.cache", "localtime", "passwd", "group", "nsswitch.conf", "mime.types", "fonts")
# copy the submission into the private home and matplotlib's font list into /tmp, make them the kernel's,
# then become the kernel (exec: it stays PID 1)
_ENTER = ('cp -R "$0"/. . 2>/dev/null; mkdir -p /tmp/matplotlib; cp -R /run/attn/cache/matplotlib/. /tmp/matplotlib '
          '2>/dev/null; {chown}exec "$@"')


def missing_tool() -> str:
    """Why the sandbox cannot start here, in one line with what to install; "" when it can."""
    missing = [tool for tool in ("bwrap", "prlimit", "setpriv") if shutil.which(tool) is None]
    if missing:
        return (f"grading runs every kernel in a sandbox and needs {', '.join(missing)}: install bubblewrap and "
                f"util-linux (Debian/Ubuntu: sudo apt-get install bubblewrap util-linux), or set ATTN_SANDBOX=off "
                f"to grade without a sandbox (only for a class you trust)")
    return ""


def python_paths() -> list:
    """The folders the kernel's Python needs: the interpreter's prefix, the venv, every site-packages
    folder on the path (a .pth file may add one elsewhere, as the hub's interpreter does), attnkit's own.

    attnkit's own folder, never its parent: in an editable install that is the repository, with the
    course and its grader in it. Nothing else of ``sys.path`` either: a grading process may have the
    course itself on it.
    """
    import attnkit
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]
    folders = [sys.base_prefix, sys.prefix, *sites, os.path.dirname(os.path.abspath(attnkit.__file__))]
    resolved = list(dict.fromkeys(str(pathlib.Path(f).resolve()) for f in folders))
    return [f for f in resolved if not any(f != other and f.startswith(other + "/") for other in resolved)]


def python_in_private_folders() -> bool:
    """Does the Python live under /tmp or the kernel's home? A forked kernel covers both with fresh
    tmpfs once its interpreter is running, and would lose what it has not imported yet: such a
    Python (the hub tests' user environment) gets kernels started by bubblewrap instead."""
    return any(folder == private or folder.startswith(private + "/")
               for folder in python_paths() for private in ("/tmp", HOME))


def _parents(path: str, made: set) -> list:
    """Create each missing parent of ``path`` as a plain 0755 folder (bwrap would copy the host's modes)."""
    args = []
    for parent in reversed(pathlib.PurePosixPath(path).parents):
        if str(parent) not in made and str(parent) != "/":
            made.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _system() -> list:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = pathlib.Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{name}"]
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    # multiprocessing's semaphores live in /dev/shm: a private, small one
    return args + ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(8 * 1024 ** 2), "--tmpfs",
                   "/dev/shm"]


def environment(env: dict, workdir: str, grader: bool, cache: bool, limits: Limits) -> dict:
    """The whole environment of a sandboxed kernel: set here, plus :data:`PASSED` from nbgrader's ``env``."""
    values = {"ATTN_SANDBOX_MEMORY": human_size(limits.memory),  # the grader names it when a function runs out
              "HOME": HOME, "PWD": workdir, "PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin",
              "IPYTHONDIR": IPYTHONDIR, "MPLCONFIGDIR": "/tmp/matplotlib", "XDG_CACHE_HOME": "/tmp/cache",
              "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8", "ATTN_SANDBOX": "on",
              "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
    values.update({name: env[name] for name in PASSED if env.get(name)})
    if grader:
        values["ATTN_GRADER"] = f"{GRADER}/__init__.py"
    if cache:
        values["ATTNKIT_CACHE_DIR"] = CACHE
    return values


def _environment_args(values: dict) -> list:
    args = ["--clearenv"]
    for name, value in values.items():
        args += ["--setenv", name, value]
    return args


def _namespaces(privileged: bool, caps) -> list:
    """As root: every namespace but the user one, and ``caps`` for the set-up; otherwise all, user included."""
    if privileged:
        return (["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
                + [arg for cap in caps for arg in ("--cap-add", cap)])
    return ["--unshare-all"]


def _view(made: set, grader, cache) -> list:
    """What every grading kernel sees read-only besides the system (:func:`_system`): Python, grader, figure cache."""
    args = []
    for folder in python_paths():
        args += _parents(folder, made) + ["--ro-bind", folder, folder]
    for source, inside in ((grader, GRADER), (cache, CACHE)):
        if source and pathlib.Path(source).is_dir():
            args += _parents(inside, made) + ["--ro-bind", str(source), inside]
    return args


def kernel_command(kernel: list, *, identity: Identity, limits: Limits, submission, ipc_dir,
                   grader=None, cache=None, env=None, processes: int | None = None) -> list:
    """``kernel`` (the kernel's own argv) wrapped in prlimit, bubblewrap and, as root, setpriv.

    ``submission``: the folder nbgrader grades in (copied, never bound); ``ipc_dir``: the kernel's
    connection file and sockets (bound read-write at the same path); ``grader``: the course's grader
    folder; ``cache``: the figure cache; ``env``: nbgrader's environment, of which only
    :data:`PASSED` reaches the kernel.
    """
    workdir = f"{HOME}/{pathlib.Path(submission).name}"
    made = set()
    args = ["bwrap", "--die-with-parent", "--new-session", "--as-pid-1", *_namespaces(identity.privileged, _SETUP_CAPS)]
    args += _system()
    # The private folders first: a bind that lies inside one (a venv under /tmp, as the hub tests'
    # is) is then mounted on top of it instead of being hidden by it.
    for size, folder in ((limits.scratch, HOME), (limits.tmp, "/tmp")):
        args += _parents(folder, made) + ["--perms", "1777", "--size", str(size), "--tmpfs", folder]
        made.add(folder)
    args += _view(made, grader, cache)
    args += _parents(SUBMISSION, made) + ["--ro-bind", str(submission), SUBMISSION]
    args += _parents(str(ipc_dir), made) + ["--bind", str(ipc_dir), str(ipc_dir)]
    args += ["--perms", "0777", "--dir", workdir, "--chdir", workdir, "--remount-ro", "/"]
    has_cache = bool(cache) and pathlib.Path(cache).is_dir()
    args += _environment_args(environment(env or {}, workdir, bool(grader), has_cache, limits))
    if identity.privileged:
        drop = ["setpriv", f"--reuid={identity.uid}", f"--regid={identity.uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--"]
        inner = ["/bin/sh", "-c", _ENTER.format(chown=f"chown -R {identity.uid}:{identity.uid} . /tmp/matplotlib; "), SUBMISSION,
                 *drop, *kernel]
    else:
        inner = ["/bin/sh", "-c", _ENTER.format(chown=""), SUBMISSION, *kernel]
    return ["prlimit", *limits.prlimit_args(processes), "--", *args, "--", *inner]


# what the kernel template needs to give each forked kernel its own namespaces, mounts and uid, then drop
_TEMPLATE_CAPS = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_SETPCAP", "CAP_DAC_READ_SEARCH",
                  "CAP_FOWNER")


def template_command(folder, *, privileged: bool, grader=None, cache=None, env=None) -> list:
    """bubblewrap around the kernel template (:mod:`.template`): the kernels' read-only world, the
    template's folder (control socket, one folder per kernel) read-write, coursekit read-only, the
    mount points each forked kernel covers with its own tmpfs, and what it needs to do so.

    As root the template keeps the capabilities of :data:`_TEMPLATE_CAPS` and each kernel drops them
    with its uid; otherwise it is root of a user namespace of its own and each kernel drops that.
    """
    import coursekit
    made = set()
    args = ["bwrap", "--die-with-parent", "--new-session", *_namespaces(privileged, _TEMPLATE_CAPS)]
    if not privileged:
        args += ["--uid", "0", "--gid", "0", "--cap-add", "ALL"]
    args += _system() + _view(made, grader, cache)
    # coursekit under a neutral folder, never at its own path: in the repository that lies in the course
    args += _parents(f"{TOOLKIT}/coursekit", made) + ["--ro-bind", os.path.dirname(os.path.abspath(coursekit.__file__)),
                                                       f"{TOOLKIT}/coursekit"]
    for mount_point in (HOME, "/run/attn/stage"):
        args += _parents(mount_point, made) + ["--perms", "0755", "--dir", mount_point]
    args += _parents("/tmp", made) + ["--tmpfs", "/tmp"]
    args += _parents(str(folder), made) + ["--bind", str(folder), str(folder), "--remount-ro", "/"]
    values = {"PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8",
              "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2", "MPLBACKEND": "Agg",
              "PYTHONDONTWRITEBYTECODE": "1", "MPLCONFIGDIR": "/tmp/matplotlib",
              "PYDEVD_DISABLE_FILE_VALIDATION": "1", "PYTHONPATH": TOOLKIT}  # debugpy's import-time warning, in the grading log
    values.update({name: (env or {})[name] for name in PASSED if (env or {}).get(name)})
    args += _environment_args(values)
    return [*args, "--", sys.executable, "-m", "coursekit.sandbox.template", str(folder)]

"""The command line that starts the kernel template inside bubblewrap, and what every kernel sees there.

bubblewrap (Debian's ``bubblewrap``, the sandbox of Flatpak) builds the template's world from
nothing: a read-only root, a fresh /proc and /dev, and only what :func:`template_command` binds in.
Each kernel forked from the template (:mod:`.template`) then covers its home, /tmp and /dev/shm with
fresh tmpfs of its own and sees:

=========================  ==================================================  ============
inside                     what                                                 mode
=========================  ==================================================  ============
``/usr``, ``/bin`` …       the system's programs and libraries                  read-only
the Python paths           the interpreter, the venv, plug-ins' packages        read-only
``/run/attn/shared``       what the assignments' plug-ins prepared (figures)    read-only
``/home/student/<name>``   a copy of this student's submission folder           private, capped
``/tmp``                   scratch                                              private, capped
the kernel's socket dir    the connection file and IPC sockets nbgrader talks to  the only shared one
=========================  ==================================================  ============

The graders (``/run/attn/graders/<n>``, read-only) are in the template's world too, for the grader
processes forked from it; each kernel takes them out of its own before any student code runs.

No course folder, no gradebook, no classmate, no home directory, no network (its own empty
network namespace), no process outside its own PID namespace. The kernel is PID 1 there: signals
other processes of the sandbox send it are ignored, and when it exits every process it left
behind is killed. Its limits cap memory, processes, file sizes and open files. Run as root, the
template keeps the capabilities it needs to build each kernel's world and the kernel drops to a uid
of its own (:mod:`.identity`) with no capabilities; run as another user, bubblewrap maps that user
in a new user namespace and the kernel drops everything it has there.

The interpreter is started through its folder's real path: a venv reached through a symlink (one
environment linked into each course folder) is bound where it really is, and would not be found
under the linked name inside.
"""
import os
import pathlib
import shutil
import sys

from ..environ import CALL_HOOK, SANDBOX, SANDBOX_MEMORY
from ..language import PSEUDO_FROM, WORDS
from .limits import Limits, human_size

__all__ = ["HOME", "GRADERS", "SHARED", "IPYTHONDIR", "environment", "template_command", "preload_args", "python_paths",
           "interpreter", "private_python", "missing_tool"]

HOME = "/home/student"
GRADERS = "/run/attn/graders"  # the course's graders, ``<n>/`` each (only grader processes keep them)
SHARED = "/run/attn/shared"  # what the plug-ins prepared before grading, e.g. the chapter's figures
IPYTHONDIR = "/tmp/ipython"  # in the kernel's own /tmp
TOOLKIT = "/run/attn/toolkit"  # coursekit, for the kernel template only (it runs coursekit.sandbox.template)
# passed into the sandbox from nbgrader's environment when set (OPENBLAS_*: this machine's BLAS needs them;
# LD_LIBRARY_PATH: an interpreter that finds its libpython only through it; the hub's finds its own by run-path)
PASSED = ("NBGRADER_EXECUTION", "NBGRADER_VALIDATING", "JPY_PARENT_PID", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
          "LANG", "LC_ALL", "TZ", "LD_LIBRARY_PATH")
_ETC = ("ld.so.cache", "localtime", "passwd", "group", "nsswitch.conf", "mime.types", "fonts")


def missing_tool(lang: str = PSEUDO_FROM) -> str:
    """Why the sandbox cannot start here, in one line with what to install, in ``lang`` (the course's, for an
    instructor; English by default, a log's or a test's skip); "" when it can."""
    if shutil.which("bwrap") is None:
        return WORDS.say(lang, "sandbox.no_bwrap", switch="ATTN_SANDBOX=off")
    return ""


def python_paths(folders=()) -> list:
    """The folders the kernel's Python needs: the interpreter's prefix, the venv, every site-packages
    folder on the path (a .pth file may add one elsewhere, as the hub's interpreter does), and ``folders``
    (the plug-ins' own packages, e.g. an editable install's package folder).

    A package's own folder, never its parent: in an editable install that is the repository, with the
    course and its grader in it. Nothing else of ``sys.path`` either: a grading process may have the
    course itself on it.
    """
    sites = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]
    resolved = list(dict.fromkeys(str(pathlib.Path(f).resolve()) for f in (sys.base_prefix, sys.prefix, *sites, *folders)))
    return [f for f in resolved if not any(f != other and f.startswith(other + "/") for other in resolved)]


def interpreter() -> str:
    """The interpreter to start inside, by its folder's real path (the folder bound inside) and its own name
    (a venv's ``python`` finds its ``pyvenv.cfg`` next to the name it was started by)."""
    folder, name = os.path.split(os.path.abspath(sys.executable))
    return os.path.join(os.path.realpath(folder), name)


def private_python(folders=(), lang: str = PSEUDO_FROM) -> str:
    """Why this Python cannot grade in the sandbox, in ``lang`` as :func:`missing_tool` ("" when it can): each
    kernel covers /tmp and its home with fresh tmpfs once its interpreter runs, and would lose every module not
    imported by then."""
    for folder in python_paths(folders):
        for private in ("/tmp", HOME):
            if folder == private or folder.startswith(private + "/"):
                return WORDS.say(lang, "sandbox.private_python", folder=folder, private=private)
    return ""


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


def environment(env: dict, workdir: str, limits: Limits, call_hook: str = "", shared_env: str = "") -> dict:
    """The whole environment of a sandboxed kernel or grader process: set here, plus :data:`PASSED` from nbgrader's
    ``env``. Only the kernel learns how to call the student's functions for the grader (``call_hook``,
    :mod:`.cells`); ``shared_env`` names the shared folder to whoever reads it (:mod:`coursekit.environ`: the
    names)."""
    values = {SANDBOX_MEMORY: human_size(limits.memory),  # the grader names it when a function runs out
              "HOME": HOME, "PWD": workdir, "PATH": f"{os.path.dirname(interpreter())}:/usr/bin:/bin",
              "IPYTHONDIR": IPYTHONDIR, "MPLCONFIGDIR": "/tmp/matplotlib", "XDG_CACHE_HOME": "/tmp/cache",
              "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8", SANDBOX: "on",
              "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}
    values.update({name: env[name] for name in PASSED if env.get(name)})
    if call_hook:
        values[CALL_HOOK] = call_hook
    if shared_env:
        values[shared_env] = SHARED
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


def _view(made: set, world) -> list:
    """What every grading kernel sees read-only besides the system (:func:`_system`): Python and the plug-ins'
    packages, the shared folder; and the graders, which each kernel takes out of its own world."""
    args = []
    for folder in python_paths(world.folders):
        args += _parents(folder, made) + ["--ro-bind", folder, folder]
    places = [(grader, f"{GRADERS}/{n}") for n, grader in enumerate(world.graders)] + [(world.shared, SHARED)]
    for source, inside in places:
        if source and pathlib.Path(source).is_dir():
            args += _parents(inside, made) + ["--ro-bind", str(source), inside]
    return args


# what the kernel template needs to give each forked kernel its own namespaces, mounts and uid, then drop
_TEMPLATE_CAPS = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_SETPCAP", "CAP_DAC_READ_SEARCH",
                  "CAP_FOWNER")


def template_command(folder, *, privileged: bool, world, env=None) -> list:
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
    args += _system() + _view(made, world)
    # coursekit under a neutral folder, never at its own path: in the repository that lies in the course
    args += _parents(f"{TOOLKIT}/coursekit", made) + ["--ro-bind", os.path.dirname(os.path.abspath(coursekit.__file__)),
                                                       f"{TOOLKIT}/coursekit"]
    for mount_point in (HOME, "/run/attn/stage"):
        args += _parents(mount_point, made) + ["--perms", "0755", "--dir", mount_point]
    args += _parents("/tmp", made) + ["--tmpfs", "/tmp"]
    args += _parents(str(folder), made) + ["--bind", str(folder), str(folder), "--remount-ro", "/"]
    values = {"PATH": f"{os.path.dirname(interpreter())}:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8",
              "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2", "MPLBACKEND": "Agg",
              "PYTHONDONTWRITEBYTECODE": "1", "MPLCONFIGDIR": "/tmp/matplotlib", "PYTHONPATH": TOOLKIT}
    values.update({name: (env or {})[name] for name in PASSED if (env or {}).get(name)})
    args += _environment_args(values)
    return [*args, "--", interpreter(), "-m", "coursekit.sandbox.template", str(folder), *preload_args(world)]


def preload_args(world) -> list:
    """The template's command-line arguments that name the plug-ins' modules it imports before any student."""
    return ["--preload", ",".join(world.preload)] if world.preload else []

"""The few kernel calls a forked grading kernel makes to wall itself off inside the template's sandbox.

:mod:`.template` forks each student's kernel from a process that bubblewrap already confined (its
files, network, processes and, as root, capabilities it was given for this). The fork then needs
its own world within that one — a mount namespace with fresh, capped tmpfs for its home, /tmp and
/dev/shm, a PID namespace of which it is PID 1 — and then to give up everything: its uid, every
capability, any way back (no_new_privs), and to take the sandbox's limits. Python 3.11's ``os``
lacks ``unshare``, ``setns`` and ``mount``; these call libc through ctypes, each failure an ``OSError``
naming the call.
"""
import ctypes
import os
import resource

__all__ = ["CLONE_NEWIPC", "CLONE_NEWNS", "CLONE_NEWPID", "unshare", "setns", "mount_private", "mount_tmpfs", "bind",
           "move", "hide", "read_only", "mount_proc", "drop_privileges", "apply_limits"]

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 1, 2, 4, 8, 32
_MS_BIND, _MS_MOVE, _MS_REC, _MS_PRIVATE = 4096, 8192, 16384, 1 << 18
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP, _PR_SET_KEEPCAPS = 38, 24, 8
_MNT_DETACH = 2
_LAST_CAP = 63
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def setns(fd: int, nstype: int) -> None:
    """Join the namespace open at ``fd`` (for a PID namespace: where this process's next children go)."""
    _check(_libc.setns(ctypes.c_int(fd), ctypes.c_int(nstype)), "setns")


def _mount(source, target, fstype, flags, data, what) -> None:
    encode = (lambda text: None if text is None else text.encode())
    _check(_libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)), what)


def mount_private() -> None:
    """No mount made from here on reaches the template's namespace (nor the other way round)."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None, "make / private")


def mount_tmpfs(target: str, size: int, mode: int = 0o1777) -> None:
    _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size},mode={mode:o}", f"tmpfs on {target}")


def bind(source: str, target: str) -> None:
    _mount(source, target, None, _MS_BIND | _MS_REC, None, f"bind {source} on {target}")


def move(source: str, target: str) -> None:
    _mount(source, target, None, _MS_MOVE, None, f"move {source} to {target}")


def hide(target: str) -> None:
    """Take the mount at ``target`` out of this mount namespace (detached: nothing of it stays reachable)."""
    _check(_libc.umount2(target.encode(), ctypes.c_int(_MNT_DETACH)), f"unmount {target}")


def read_only(target: str) -> None:
    """The mount at ``target`` read-only in this mount namespace (its device nodes still open for writing)."""
    _mount(None, target, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID, None, f"read-only {target}")


def mount_proc() -> None:
    """A /proc of this process's own PID namespace."""
    _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None, "proc on /proc")


def _no_capabilities() -> None:
    """Permitted, effective and inheritable capabilities all empty (capset, version 3: two 32-bit words)."""
    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    _check(_libc.capset(ctypes.byref(Header(0x20080522, 0)), data), "capset")


def drop_privileges(uid: int) -> None:
    """Become ``uid`` (uid and gid, no supplementary groups) with no capability and no way to gain one."""
    for cap in range(_LAST_CAP + 1):  # the bounding set first: it needs CAP_SETPCAP, which is about to go
        if _libc.prctl(_PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) != 0 and ctypes.get_errno() != 22:  # EINVAL
            _check(-1, f"drop capability {cap} from the bounding set")
    try:
        os.setgroups([])
    except PermissionError:  # a user namespace bubblewrap made: groups are already just the mapped one
        pass
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _no_capabilities()  # uid 0 of a user namespace keeps them unless told
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def apply_limits(memory: int, processes: int, file_size: int, open_files: int) -> None:
    """The sandbox's rlimits (what ``prlimit`` sets for a kernel started by bubblewrap)."""
    for which, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_NPROC, processes),
                         (resource.RLIMIT_FSIZE, file_size), (resource.RLIMIT_NOFILE, open_files),
                         (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(which, (value, value))

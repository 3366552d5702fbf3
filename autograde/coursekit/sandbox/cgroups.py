"""Memory and processes capped per kernel as a whole: a control group of its own for each sandboxed kernel.

The rlimits (:mod:`.isolate`) cap each process: 2 GB of address space each, 64 processes of one uid. A cell that
forks four children of 0.9 GB holds 3.4 GB, and 64 such processes could hold far more than the machine has; the
machine's out-of-memory killer then chooses among everyone's processes: the workers, the kernel template, other
users' servers (issue 54). A control group counts a kernel and everything it starts together: over its memory, the
kernel's own out-of-memory killer chooses inside that group only; at its process count, ``fork`` fails with EAGAIN,
which a graded call reports as the processes limit, as the rlimit did.

Which control groups, decided once per kernel from the mount table (:func:`find`):

* **cgroup v2** where a cgroup2 file system offers ``memory`` and ``pids`` at its root and this process may write
  there: ``<mount>/attn-grading/kernel-…/`` (``memory.max``, ``memory.swap.max`` 0, ``pids.max``);
* **cgroup v1** where the ``memory`` and ``pids`` hierarchies are mounted and this process may write its own group
  in each: ``<its group>/attn-grading/kernel-…/`` in both (``memory.limit_in_bytes``, and
  ``memory.memsw.limit_in_bytes`` where swap is counted, ``pids.max``);
* **neither** (an instructor who is not root, a container without them): per process only, as the rlimits say.
  ``make grade``'s header names which (:func:`describe`), and autograde/README.md ("The sandbox").

The grading process puts the kernel in its group (:meth:`KernelGroup.admit`) as soon as it has connected, before
any cell is sent, so that nothing the student's code starts is outside; the kernel itself never sees the files.
"""
import contextlib
import dataclasses
import os
import pathlib
import tempfile
import time

__all__ = ["Groups", "KernelGroup", "find", "describe"]

PARENT = "attn-grading"
LEFTOVER_SECONDS = 60  # an empty kernel group older than this was left by a grading process that was killed


@dataclasses.dataclass(frozen=True)
class Groups:
    """Where kernels' groups are made: ``version`` 2, 1, or 0 (none); ``parents``, one folder per hierarchy
    (``attn-grading`` under each; v2: one, v1: memory's then pids')."""
    version: int = 0
    parents: tuple = ()


def describe(groups: Groups) -> str:
    """``"cgroup v1"``, ``"cgroup v2"``, or ``""`` when kernels are capped per process only."""
    return f"cgroup v{groups.version}" if groups.version else ""


def find(mountinfo="/proc/self/mountinfo", own="/proc/self/cgroup") -> Groups:
    """The control groups this process may make kernels' groups in (:class:`Groups`; version 0: none)."""
    try:
        mounts = pathlib.Path(mountinfo).read_text().splitlines()
        membership = pathlib.Path(own).read_text().splitlines()
    except OSError:
        return Groups()
    return _unified(mounts) or _split(mounts, membership) or Groups()


def _fields(line: str):
    """(mount root, mount point, file system type, super options) of one line of a mount table."""
    fields = line.split()
    after = fields[fields.index("-") + 1:]
    return fields[3], fields[4], after[0], after[2].split(",") if len(after) > 2 else []


def _unified(mounts) -> Groups | None:
    for line in mounts:
        root, point, kind, _ = _fields(line)
        if kind != "cgroup2":
            continue
        top = pathlib.Path(point)
        with contextlib.suppress(OSError):
            offered = set((top / "cgroup.controllers").read_text().split())
            if {"memory", "pids"} <= offered and os.access(top, os.W_OK):
                _enable(top)
                return Groups(2, (top / PARENT,))
    return None


def _enable(folder: pathlib.Path) -> None:
    """``memory`` and ``pids`` for the groups below ``folder`` (v2: a group's children get what it enables)."""
    enabled = set((folder / "cgroup.subtree_control").read_text().split())
    if not {"memory", "pids"} <= enabled:
        (folder / "cgroup.subtree_control").write_text("+memory +pids")


def _split(mounts, membership) -> Groups | None:
    """v1: this process's own group in the memory and the pids hierarchies, when both are mounted and writable."""
    own = {}
    for line in membership:
        number, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            own[controller] = path
    places = []
    for controller in ("memory", "pids"):
        place = next((_own_folder(root, point, own.get(controller)) for root, point, kind, options in map(_fields, mounts)
                      if kind == "cgroup" and controller in options), None)
        if place is None or not os.access(place, os.W_OK):
            return None
        places.append(place / PARENT)
    return Groups(1, tuple(places))


def _own_folder(root: str, point: str, path):
    """The folder of the group ``path`` in a hierarchy mounted at ``point`` (its ``root`` the mount's own), or None."""
    if path is None or not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None
    return pathlib.Path(point, path[len(root):].lstrip("/"))


class KernelGroup:
    """One kernel's control group, made with its caps: :meth:`admit` the kernel, :meth:`remove` when it is gone.

    On a machine without usable groups (``Groups()``) every method does nothing: the rlimits are the caps."""

    def __init__(self, groups: Groups, memory: int, processes: int):
        self.groups, self.folders = groups, []
        if not groups.version:
            return
        _remove_leftovers(groups)
        for attempt in range(2):  # another grading process may just have removed the empty parent (remove)
            try:
                self.folders = _made(groups)
                break
            except FileNotFoundError:
                if attempt:
                    raise
        try:
            self._cap(memory, processes)
        except BaseException:
            self.remove()
            raise

    def _cap(self, memory: int, processes: int) -> None:
        if self.groups.version == 2:
            folder = self.folders[0]
            _write(folder / "memory.max", memory)
            with contextlib.suppress(FileNotFoundError):  # no swap accounting: nothing to swap to
                _write(folder / "memory.swap.max", 0)
            _write(folder / "pids.max", processes)
            return
        memory_folder, pids_folder = self.folders
        _write(memory_folder / "memory.limit_in_bytes", memory)
        with contextlib.suppress(FileNotFoundError):  # swap counted: memory and swap together, the same cap
            _write(memory_folder / "memory.memsw.limit_in_bytes", memory)
        _write(pids_folder / "pids.max", processes)

    def admit(self, pid: int) -> None:
        """Put the process ``pid`` (and every thread of it) in this group: what it starts from now on is in it too."""
        for folder in self.folders:
            _write(folder / "cgroup.procs", pid)

    def oom_kills(self) -> int:
        """How many of the group's processes its memory cap killed so far (0 without a group)."""
        if not self.folders:
            return 0
        events = "memory.events" if self.groups.version == 2 else "memory.oom_control"
        with contextlib.suppress(OSError, ValueError):
            for line in (self.folders[0] / events).read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == "oom_kill":
                    return int(value)
        return 0

    def remove(self, wait: float = 1.0) -> None:
        """Remove the group once its processes are gone (at most ``wait`` seconds for the last ones to be reaped; a
        group that stays is removed by a later kernel's, :data:`LEFTOVER_SECONDS` on), then its parent if empty."""
        deadline = time.monotonic() + wait
        for folder in self.folders:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY: a process not yet reaped
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)
            with contextlib.suppress(OSError):
                folder.parent.rmdir()  # the last kernel out takes the parent along
        self.folders = []


def _made(groups: Groups) -> list:
    """A new kernel group in each of ``groups.parents``, under one name."""
    first, *others = groups.parents
    first.mkdir(exist_ok=True)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="kernel-", dir=first))
    made = [folder]
    try:
        for parent in others:
            parent.mkdir(exist_ok=True)
            (parent / folder.name).mkdir()
            made.append(parent / folder.name)
    except BaseException:
        for done in made:
            with contextlib.suppress(OSError):
                done.rmdir()
        raise
    if groups.version == 2:
        _enable(first)
    return made


def _remove_leftovers(groups: Groups) -> None:
    """Remove kernel groups that no process is in and that were made more than :data:`LEFTOVER_SECONDS` ago (a
    grading process killed before it removed them); one in use, or just made by another grading process, stays."""
    for parent in groups.parents:
        with contextlib.suppress(OSError):
            for folder in parent.glob("kernel-*"):
                with contextlib.suppress(OSError):
                    if time.time() - folder.stat().st_mtime > LEFTOVER_SECONDS \
                            and not (folder / "cgroup.procs").read_text().strip():
                        folder.rmdir()


def _write(path: pathlib.Path, value) -> None:
    with open(path, "w") as handle:
        handle.write(str(value))

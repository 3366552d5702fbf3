"""Which Unix user a sandboxed kernel runs as, and how two kernels never share one.

Graded as root (a course machine, CI, a grading pod): each kernel gets a uid of its own from a
reserved range, :data:`FIRST_UID` onwards. The process limit (RLIMIT_NPROC) counts a uid's
processes across the whole machine, so a student's fork bomb must not eat the next student's
budget; an unused uid also owns no file anywhere. The uid needs no entry in /etc/passwd. A lock
file per uid, held for the kernel's life, hands them out between every grading process on the
machine (``make grade``'s workers, a hand-run ``nbgrader autograde``, the formgrader). Processes
of a uid whose lock nobody holds were left by a grading process that was killed: they are killed
before the uid is handed out again.

Graded as an ordinary user (a hub instructor): the kernel keeps that user's uid, inside a user
namespace of its own; its process limit then has to leave room for the user's other processes.
"""
import contextlib
import os
import pathlib
import signal
from dataclasses import dataclass

from ..locks import held, take

__all__ = ["FIRST_UID", "SLOTS", "Identity", "acquire", "abandoned", "processes_of"]

FIRST_UID = 61000
SLOTS = 256  # kernels graded at the same time on one machine, at most
LOCKS = pathlib.Path("/tmp/attn-sandbox-uids")  # one place for every grading process, whatever its TMPDIR


@dataclass
class Identity:
    uid: int
    privileged: bool   # True: grading runs as root and the kernel drops to ``uid``
    _lock: int = -1    # the held lock file's descriptor (privileged only)

    def release(self) -> None:
        if self._lock >= 0:
            os.close(self._lock)  # closing drops the flock
            self._lock = -1


def acquire() -> Identity:
    """A uid for one kernel (see the module docstring); :meth:`Identity.release` when it is gone."""
    if os.geteuid() != 0:
        return Identity(os.getuid(), privileged=False)
    LOCKS.mkdir(mode=0o700, exist_ok=True)
    for uid in range(FIRST_UID, FIRST_UID + SLOTS):
        fd = take(LOCKS / f"{uid}.lock")
        if fd is None:
            continue
        for pid in processes_of(uid):  # nobody holds the lock: left behind by a grading process that was killed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return Identity(uid, privileged=True, _lock=fd)
    from ..faults import InfrastructureFault  # here: it imports sqlalchemy, which the kernel template never needs
    from ..language import marked

    raise InfrastructureFault(marked("fault.uids_in_use"), marked("fault.fix_other_graders"), slots=SLOTS,
                              first=FIRST_UID, locks=str(LOCKS))


def processes_of(uid: int) -> list:
    """Pids of the live processes whose real uid is ``uid``."""
    return _processes_by_uid().get(uid, [])


def abandoned() -> dict:
    """``{uid: pids}`` of sandbox uids that own processes while no grading process holds their lock.

    Those were left behind by a grading process that died (:func:`acquire` kills them before it
    hands the uid out again). Kernels of a grading run still going hold their locks: not listed.
    """
    found = {}
    for uid, pids in _processes_by_uid().items():
        if FIRST_UID <= uid < FIRST_UID + SLOTS and not held(LOCKS / f"{uid}.lock"):  # no lock file: not ours
            found[uid] = pids
    return found


def _processes_by_uid() -> dict:
    """``{real uid: [pid, …]}`` of every live process."""
    found = {}
    for status in pathlib.Path("/proc").glob("[0-9]*/status"):
        try:
            line = next(line for line in status.read_text().splitlines() if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        found.setdefault(int(line.split()[1]), []).append(int(status.parent.name))
    return found

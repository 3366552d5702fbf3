"""Which student is graded next: only each student's newest pending submission, students in turn.

Pure bookkeeping (no files, no clock of its own), so fairness is unit-tested:

* a student has at most one pending job — a newer submission replaces the pending one, so 20
  submissions in a row cost one grading (the newest), never 20;
* the next job goes to the student served longest ago (never served: first), ties by arrival,
  so a student who just got a grading waits behind everyone else who is waiting: one student
  submitting over and over delays another by at most the one grading in progress per worker;
* a student is never graded twice at the same time (their ``submitted/`` folder is shared).
"""
import dataclasses
import itertools

__all__ = ["GRADE", "RELEASE", "Job", "FairQueue"]

GRADE, RELEASE = "grade", "release"  # grade (and release when the policy allows), or release only


@dataclasses.dataclass(frozen=True)
class Job:
    key: tuple          # (assignment, student)
    kind: str           # GRADE or RELEASE
    timestamp: str      # the submission's: when it arrived, as nbgrader writes a time (coursekit.inbound.Folder)
    arrived: float = 0  # when the service first saw the student waiting (any clock)
    release: bool = True  # release the feedback afterwards (the policy's decision when the job starts)
    notice: str = ""    # release-only job of an ungradable submission: the reason its page gives
    folder: str = ""    # its inbound folder's name (nbgrader's folder exchange; "" on a server's)

    @property
    def assignment(self):
        return self.key[0]

    @property
    def student(self):
        return self.key[1]


class FairQueue:
    """Pending jobs, one per (assignment, student); :meth:`take` hands out the fairest one."""

    def __init__(self):
        self._pending = {}            # key -> Job
        self._busy = set()            # keys being worked on
        self._served = {}             # key -> turn of its last job
        self._turns = itertools.count()

    def offer(self, job: Job) -> Job | None:
        """Queue ``job``; the pending job it replaced (an older submission), if any.

        A grading job replaces whatever is pending for the student (it releases too, when allowed);
        a release-only job never replaces a pending grading. The student keeps their place.
        """
        old = self._pending.get(job.key)
        if old is not None and old.kind == GRADE and job.kind == RELEASE:
            return None
        arrived = old.arrived if old is not None else job.arrived
        self._pending[job.key] = dataclasses.replace(job, arrived=arrived)
        return old

    def take(self) -> Job | None:
        """The next job (removed from the queue, its student marked busy); None when nothing may start."""
        ready = [job for key, job in self._pending.items() if key not in self._busy]
        if not ready:
            return None
        job = min(ready, key=lambda j: (self._served.get(j.key, -1), j.arrived))
        del self._pending[job.key]
        self._busy.add(job.key)
        self._served[job.key] = next(self._turns)
        return job

    def done(self, key) -> None:
        """The job of ``key`` ended (graded, failed or stopped)."""
        self._busy.discard(key)

    def pending(self, key) -> Job | None:
        return self._pending.get(key)

    def jobs(self) -> list:
        """Every pending job (none being worked on), in no particular order."""
        return list(self._pending.values())

    def is_busy(self, key) -> bool:
        return key in self._busy

    def __len__(self):
        return len(self._pending)

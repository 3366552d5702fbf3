"""What the grading service has done, per student and assignment, kept across restarts.

One JSON file (``<course>/grading-service/journal.json``), rewritten whole after every step by
writing a temporary file and renaming it over the old one: a ``kill -9`` at any moment leaves
either the old journal or the new one, never half of one. A job is written down as *in flight*
before it starts; a service that finds one on start-up was stopped in the middle and does that
submission again (collected and graded once more, feedback released once).
"""
import dataclasses
import json
import os
import pathlib
import tempfile

__all__ = ["Entry", "Journal", "write_atomically"]

VERSION = 1


@dataclasses.dataclass
class Entry:
    graded: str = ""                  # timestamp of the newest submission graded
    released: str = ""                # timestamp of the submission whose feedback the student can fetch
    releases: list = dataclasses.field(default_factory=list)  # times of the automatic feedbacks (epoch s)
    in_flight: dict = None            # {"timestamp", "kind", "since"} while a job runs
    held: dict = None                 # {"timestamp", "reason"}: graded, feedback waiting
    result: dict = None               # the last grading: {"ok", "score", "max_score", "reason"}
    waiting: dict = None              # {"cause", "since", "retry_at"}: a fault of the machine holds it back

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Entry":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def write_atomically(path: pathlib.Path, text: str, mode: int = 0o644) -> None:
    """``text`` into ``path`` through a temporary file in the same folder and one rename.

    ``mode``: a feedback page must stay readable by the student once released (mkstemp makes 0600).
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class Journal:
    """The entries of every (assignment, student), loaded from and saved to ``path``; what keeps the whole
    service from grading (``machine``: {"cause", "since"}, e.g. an exchange it cannot read), if anything; and the
    inbound folders refused, never collected (``refused``: {folder name: reason})."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.entries, self.machine, self.refused = {}, None, {}
        if self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.entries = {tuple(k.split("/", 1)): Entry.from_dict(v) for k, v in data["entries"].items()}
            self.machine, self.refused = data.get("machine"), data.get("refused", {})

    def entry(self, key) -> Entry:
        return self.entries.setdefault(tuple(key), Entry())

    def save(self) -> None:
        data = {"version": VERSION, "machine": self.machine, "refused": self.refused,
                "entries": {"/".join(k): e.to_dict() for k, e in sorted(self.entries.items())}}
        write_atomically(self.path, json.dumps(data, indent=1, ensure_ascii=False), mode=0o600)

    def interrupted(self) -> dict:
        """``{key: in_flight}`` of jobs that were running when the service stopped."""
        return {k: e.in_flight for k, e in self.entries.items() if e.in_flight}

    def begin(self, key, kind: str, timestamp: str, now: float) -> None:
        self.entry(key).in_flight = {"timestamp": timestamp, "kind": kind, "since": now}
        self.save()

    def graded(self, key, timestamp: str, result: dict) -> None:
        entry = self.entry(key)
        entry.graded, entry.result = timestamp, result
        self.save()

    def finished(self, key, timestamp: str, released_at: float = None, held: dict = None) -> None:
        """The job ended: feedback released at ``released_at`` (epoch s), or ``held`` with its reason."""
        entry = self.entry(key)
        entry.in_flight = None
        entry.waiting = None
        if released_at is not None:
            entry.released, entry.held = timestamp, None
            entry.releases.append(released_at)
        elif held is not None:
            entry.held = {"timestamp": timestamp, **held}
        self.save()

    def stopped(self, key, waiting: dict = None) -> None:
        """The job ended without a result: forget it was running; ``waiting``: the machine's fault that stopped it."""
        entry = self.entry(key)
        entry.in_flight, entry.waiting = None, waiting
        self.save()

    def machine_fault(self, cause: str, now: float) -> bool:
        """What keeps the whole service from grading ("": nothing any more); True when that changed."""
        machine = {"cause": cause, "since": now} if cause else None
        if (machine or {}).get("cause") == (self.machine or {}).get("cause"):
            return False
        self.machine = machine
        self.save()
        return True

    def set_refused(self, refused: dict) -> list:
        """The inbound folders refused now (``{name: reason}``), saved when that changed; the names not refused before."""
        new = [name for name in refused if name not in self.refused]
        if refused != self.refused:
            self.refused = dict(refused)
            self.save()
        return new

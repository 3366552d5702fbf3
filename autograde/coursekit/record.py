"""A grader's record of one graded test cell: written by an assignment's grader, read by the class report and the workers.

A grader (:mod:`coursekit.assignments`) returns, for each test cell, its points, its text and, under
``data``, one :class:`CellRecord` by MIME type :data:`MIME` (``to_dict`` form); the grading process
writes them as the cell's outputs and notes in the cell's metadata that it did
(:mod:`coursekit.kernel.grader_process`). The record holds every check the cell ran (e.g. a lab's
visible ones as ``verify.<n>``, hidden ones by a stable id), the diagnosis findings, the status and,
when the cell was not graded normally, the reason. Points come from the gradebook; a record's
``score`` is only cross-checked against it. An assignment without a grader has no records: the
report then works from the gradebook alone. A record's words (check descriptions, the findings'
messages, the reason) are in the graded notebook's language, as its student read them; ids and
statuses are the same in every language.

Standard library only: graders and the instructor's tools import it without numpy.
"""
from dataclasses import asdict, dataclass, field

__all__ = ["MIME", "SCHEMA", "GRADED", "DELEGATED", "TIMEOUT", "LIMIT", "ERROR", "STATUSES",
           "Check", "FindingRecord", "CellRecord", "HardCoded", "records_in", "written_by_grading", "may_be_hard_coded"]

MIME = "application/vnd.coursekit.record+json"
SCHEMA = 1

GRADED = "graded"        # every check ran; score = points × passed / total
DELEGATED = "delegated"  # the function used the course's reference code or started a process: 0
TIMEOUT = "timeout"      # the function hit the cell timeout (here or in an earlier cell): 0
LIMIT = "limit"          # the function went over a sandbox limit (memory, processes, disk): 0
ERROR = "error"          # grading itself was interrupted: 0
STATUSES = (GRADED, DELEGATED, TIMEOUT, LIMIT, ERROR)


@dataclass(frozen=True)
class Check:
    """One check a test cell ran: ``verify.3`` or a hidden id such as ``test1.random_rect``."""
    id: str
    visible: bool
    description: str
    passed: bool


@dataclass(frozen=True)
class FindingRecord:
    """One diagnosis finding as the record keeps it (e.g. ``attnkit.diagnose.Finding`` without its arrays): one
    message, in the graded notebook's language."""
    stage: str      # the part of the work it concerns, e.g. "scores" | "mask" | "softmax"
    bug: str        # a stable id, e.g. "scores_missing_scale"
    probe: str
    message: str


@dataclass(frozen=True)
class CellRecord:
    """What the grader found in one test cell."""
    grade_id: str
    test: int
    points: float
    score: float
    status: str
    reason: str = ""
    checks: tuple = field(default=())    # Check
    findings: tuple = field(default=())  # FindingRecord
    seed: str = ""                       # what the grader drew this submission's hidden inputs from

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"record status must be one of {', '.join(STATUSES)}, got {self.status!r}")

    @property
    def passed(self) -> int:
        return sum(check.passed for check in self.checks)

    def to_dict(self) -> dict:
        """The JSON form published as ``display_data`` (``schema`` first)."""
        return {"schema": SCHEMA, **asdict(self), "checks": [asdict(c) for c in self.checks],
                "findings": [asdict(f) for f in self.findings]}

    @classmethod
    def from_dict(cls, data: dict, where: str = "record") -> "CellRecord":
        """Read :meth:`to_dict`'s form back; a wrong schema or a missing field names ``where``."""
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            found = data.get("schema") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"{where}: grading record schema {found!r}, expected {SCHEMA}")
        try:
            return cls(str(data["grade_id"]), int(data["test"]), float(data["points"]), float(data["score"]),
                       str(data["status"]), str(data.get("reason", "")),
                       tuple(Check(str(c["id"]), bool(c["visible"]), str(c.get("description", "")),
                                   bool(c["passed"])) for c in data.get("checks", ())),
                       tuple(FindingRecord(str(f["stage"]), str(f["bug"]), str(f.get("probe", "")),
                                           str(f.get("message", ""))) for f in data.get("findings", ())),
                       str(data.get("seed", "")))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{where}: grading record lacks or mistypes {exc}") from None


def written_by_grading(cell) -> bool:
    """Did the grading process write this cell's outputs from a grader's verdict (its metadata says so: a kernel
    cannot write a cell's metadata)?"""
    return "grader" in cell.get("metadata", {}).get("coursekit", {})


def records_in(nb: dict, where: str = "notebook") -> dict:
    """``{grade_id: CellRecord}`` of ``nb`` (a notebook as a plain dict or an NotebookNode).

    Only from a test cell whose outputs the grading process wrote from the grader's verdict, and only the
    record about that very cell: one a kernel printed (a student's forgery) is never read.
    """
    found = {}
    for cell in nb.get("cells", ()):
        if not written_by_grading(cell):
            continue
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        for output in cell.get("outputs", ()):
            data = output.get("data", {}).get(MIME)
            if output.get("output_type") == "display_data" and data is not None:
                record = CellRecord.from_dict(data, where)
                if record.grade_id == grade_id:
                    found[record.grade_id] = record
    return found


@dataclass(frozen=True)
class HardCoded:
    """A test cell that may answer only its visible inputs (:func:`may_be_hard_coded`). A reason to look, not proof;
    its evidence, by check id."""
    grade_id: str
    passed: tuple   # the visible checks, every one passed
    failed: tuple   # the hidden checks the release fails too, every one failed here


def _hard_coded(cell: CellRecord, release, unnamed) -> "HardCoded | None":
    given = {check.id for check in release.checks if check.passed} if release is not None else set()
    explained = {f.bug for f in cell.findings} - {f.bug for f in (release.findings if release else ())}
    visible = [check for check in cell.checks if check.visible]
    hidden = [check for check in cell.checks if not check.visible and check.id not in given]
    if (cell.status != GRADED or not visible or not hidden or not all(check.passed for check in visible)
            or any(check.passed for check in hidden) or all(check.id in given for check in visible)
            or not all(unnamed(bug) for bug in explained)):
        return None
    return HardCoded(cell.grade_id, tuple(check.id for check in visible), tuple(check.id for check in hidden))


def may_be_hard_coded(records: dict, release: dict | None = None, unnamed=lambda bug: False) -> tuple:
    """The cells of one submission's ``records`` ({grade_id: CellRecord}) that may answer only the inputs their
    visible checks use, as :class:`HardCoded`, in test order: every visible check passed, every hidden check failed,
    and the diagnosis found nothing but what it finds in the untouched release or what it has no name for
    (``unnamed(bug)``: wrong values; a named mistake, such as one that only identity inputs hide, explains the
    failures instead). ``release``: the untouched release's records (:func:`coursekit.canary.release_records`): a
    check it passes by itself (an input check it came with) says nothing of the student's work and is left out,
    and a cell whose visible checks it passes whole is never flagged; without it, every hidden check counts."""
    release = release or {}
    found = (_hard_coded(cell, release.get(grade_id), unnamed)
             for grade_id, cell in sorted(records.items(), key=lambda item: item[1].test))
    return tuple(flag for flag in found if flag is not None)

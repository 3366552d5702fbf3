"""The grader's record of one graded test cell: written by the grader, read by the class report and the workers.

While a notebook is graded, each test cell publishes one :class:`CellRecord` as ``display_data``
of MIME type :data:`MIME` (``to_dict`` form). The record holds every check the cell ran (the
lab's visible ones as ``verify.<n>``, hidden ones by their stable id), the diagnosis findings,
the status and, when the cell was not graded normally, the reason. Its words (check descriptions,
the findings' messages, the reason) are in the graded notebook's language, as its student read them;
ids and statuses are the same in every edition. Points come from the gradebook; a record's ``score``
is only cross-checked against it.

Standard library only: the grader loads this module privately inside the student's kernel, and
the instructor's tools import it without numpy.
"""
from dataclasses import asdict, dataclass, field

__all__ = ["MIME", "SCHEMA", "GRADED", "TAMPERED", "DELEGATED", "TIMEOUT", "LIMIT", "ERROR", "STATUSES",
           "Check", "FindingRecord", "CellRecord", "records_in"]

MIME = "application/vnd.attnkit.grading+json"
SCHEMA = 1

GRADED = "graded"        # every check ran; score = points × passed / total
TAMPERED = "tampered"    # the notebook changed what grading relies on: 0
DELEGATED = "delegated"  # the function used attnkit's reference or started a process: 0
TIMEOUT = "timeout"      # the function hit the cell timeout (here or in an earlier cell): 0
LIMIT = "limit"          # the function went over a sandbox limit (memory, processes, disk): 0
ERROR = "error"          # grading itself was interrupted: 0
STATUSES = (GRADED, TAMPERED, DELEGATED, TIMEOUT, LIMIT, ERROR)


@dataclass(frozen=True)
class Check:
    """One check a test cell ran: ``verify.3`` or a hidden id such as ``test1.random_rect``."""
    id: str
    visible: bool
    description: str
    passed: bool


@dataclass(frozen=True)
class FindingRecord:
    """One diagnosis finding as the record keeps it (``attnkit.diagnose.Finding`` without its arrays): one message,
    in the notebook's language."""
    stage: str      # "scores" | "mask" | "softmax"
    bug: str        # "scores_missing_scale", "mask_wrong_values", ...
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
                                           str(f.get("message", ""))) for f in data.get("findings", ())))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{where}: grading record lacks or mistypes {exc}") from None


def records_in(nb: dict, where: str = "notebook") -> dict:
    """``{grade_id: CellRecord}`` published in ``nb`` (a notebook as a plain dict or an NotebookNode).

    Only the test cell a record is about may hold it: one printed by another cell (a student's forgery)
    is not read.
    """
    found = {}
    for cell in nb.get("cells", ()):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        for output in cell.get("outputs", ()):
            data = output.get("data", {}).get(MIME)
            if output.get("output_type") == "display_data" and data is not None:
                record = CellRecord.from_dict(data, where)
                if record.grade_id == grade_id:
                    found[record.grade_id] = record
    return found

"""The grader's structured results, read back from autograded notebooks.

While grading, every autograded test cell gets one ``display_data`` output of MIME type
:data:`MIME` (written by ``autograde/grader/outcome.py``): the checks it ran (visible ones as
``verify.<n>``, hidden ones by a stable id), pass/fail, and the diagnosis findings. Points
do not come from here — the gradebook is authoritative; the payload's ``score`` is only
cross-checked against it (:mod:`coursekit.report`).
"""
import json
import pathlib
from dataclasses import dataclass, field

from grader.outcome import MIME, SCHEMA  # the grader writes what this module reads: one definition

__all__ = ["MIME", "Check", "Finding", "CellResult", "cell_results", "read_notebook_results"]


@dataclass(frozen=True)
class Check:
    id: str            # "verify.3" or "test1.hidden.rect_random"
    visible: bool
    description: str
    passed: bool


@dataclass(frozen=True)
class Finding:
    stage: str         # "scores" | "mask" | "softmax"
    bug: str           # "scores_missing_scale", "mask_wrong_values", ...
    probe: str
    message: str


@dataclass(frozen=True)
class CellResult:
    """One test cell's payload: what the grader ran and what the diagnosis named."""
    grade_id: str
    test: int
    points: float
    score: float
    status: str        # graded | tampered | delegated | timeout | error
    reason: str = ""
    checks: tuple = field(default=())
    findings: tuple = field(default=())


def _parse(payload: dict, where: str) -> CellResult:
    if payload.get("schema") != SCHEMA:
        raise ValueError(f"{where}: grading payload schema {payload.get('schema')!r}, expected {SCHEMA}")
    checks = tuple(Check(c["id"], bool(c["visible"]), c.get("description", ""), bool(c["passed"]))
                   for c in payload.get("checks", ()))
    findings = tuple(Finding(f["stage"], f["bug"], f.get("probe", ""), f.get("message", ""))
                     for f in payload.get("findings", ()))
    return CellResult(payload["grade_id"], int(payload["test"]), float(payload["points"]),
                      float(payload["score"]), payload["status"], payload.get("reason", ""), checks, findings)


def cell_results(nb: dict, where: str = "notebook") -> dict:
    """``{grade_id: CellResult}`` of the payloads in ``nb`` (a notebook as a plain dict or NotebookNode)."""
    found = {}
    for cell in nb.get("cells", ()):
        for output in cell.get("outputs", ()):
            payload = output.get("data", {}).get(MIME)
            if output.get("output_type") == "display_data" and payload is not None:
                result = _parse(payload, where)
                found[result.grade_id] = result
    return found


def read_notebook_results(path) -> dict:
    """``{grade_id: CellResult}`` of one autograded notebook file; plain ``json`` (no validation) for speed."""
    path = pathlib.Path(path)
    with path.open(encoding="utf-8") as fh:
        return cell_results(json.load(fh), where=str(path))


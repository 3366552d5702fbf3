"""The class report's tables: the gradebook (the authoritative points) joined with the grader's records.

:func:`build_report` reads the grader's records from the autograded notebooks (:mod:`.results`)
next to the class's grades (:mod:`coursekit.grades`) and makes the tables the instructor reads:
per-student rows, per-check pass rates, the most common mistakes, the flagged cells.
:mod:`.csv_files` and :mod:`.html_page` write them out; :mod:`.command` is ``make report``.
"""
import pathlib
import sys
from dataclasses import dataclass, field

from .. import record
from ..autograded import read_graded_notebook
from ..canary import release_records
from ..language import DEFAULT, WORDS
from ..grades import ClassGrades

__all__ = ["GRADED", "NOT_GRADED", "NO_SUBMISSION", "OTHER_EDITION", "PENDING", "ROW_STATUSES", "CHANGED", "TAMPERED",
           "CheckStat", "Mistake", "PracticeStat", "StudentRow", "ClassReport", "build_report", "is_practice",
           "read_results"]

# A student's row: graded, scored 0 with a reason, nothing submitted (of any edition), another edition submitted
# instead of this one, or collected but not autograded yet.
GRADED, NOT_GRADED, NO_SUBMISSION, PENDING = "graded", "not_graded", "no_submission", "pending"
OTHER_EDITION = "other_edition"
ROW_STATUSES = (GRADED, NOT_GRADED, NO_SUBMISSION, OTHER_EDITION, PENDING)

SCORE_TOLERANCE = 1e-6


@dataclass
class StudentRow:
    student: str
    status: str                                  # one of ROW_STATUSES
    cells: dict = field(default_factory=dict)    # {cell name: CellGrade} from the gradebook
    total: float = 0.0
    mistakes: list = field(default_factory=list)  # record.FindingRecord, in the order the grader found them, one per bug
    reason: str = ""                             # why not graded, or the flagged cells
    has_results: bool = False
    hard_coded: tuple = ()                       # record.HardCoded: cells that may answer only the visible inputs

    @property
    def first_mistake(self) -> str:
        return self.mistakes[0].bug if self.mistakes else ""


@dataclass
class CheckStat:
    id: str
    test: int
    visible: bool
    description: str
    passed: int = 0
    failing: list = field(default_factory=list)  # students

    @property
    def ran(self) -> int:
        return self.passed + len(self.failing)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.ran if self.ran else 0.0


@dataclass
class PracticeStat:
    """A practice exercise (a test cell of 0 points its grader checks): who had its record, tried it, passed it."""
    grade_id: str
    number: int
    seen: list = field(default_factory=list)    # students whose notebook carries its record
    tried: list = field(default_factory=list)   # ... whose function answered (the record holds checks)
    passed: list = field(default_factory=list)  # ... whose every check passed


def is_practice(result) -> bool:
    """A practice exercise's record: a test cell worth 0 points, counted in no total and no pass rate."""
    return result.points == 0


@dataclass
class Mistake:
    bug: str
    stage: str
    message: str                                 # the diagnosis explanation (first student's)
    reteach: str = ""                            # what to reteach (the assignment's plug-in), "" when it says nothing
    students: list = field(default_factory=list)


@dataclass
class ClassReport:
    grades: ClassGrades
    rows: list                                   # StudentRow per student, sorted
    checks: list                                 # CheckStat, lowest pass rate first
    mistakes: list                               # Mistake, most common first
    flagged: list                                # (student, grade_id or file, status, reason): not graded normally
    mismatches: list                             # (student, grade_id, payload score, gradebook auto score)
    diagnosed: int                               # students whose notebooks carried results
    has_grader: bool = True                      # the assignment has a grader of its own, which writes records
    practice: list = field(default_factory=list)  # PracticeStat per practice exercise (test cells of 0 points)

    @property
    def hard_coded(self) -> list:
        """``(student, record.HardCoded)`` of every cell that may answer only its visible inputs, student by student."""
        return [(row.student, flag) for row in self.rows for flag in row.hard_coded]

    def share(self, mistake: Mistake) -> float:
        return len(mistake.students) / self.diagnosed if self.diagnosed else 0.0


def _progress(done: int, total: int, out, lang: str) -> None:
    step = max(1, total // 10)
    if done == total or done % step == 0:
        print("  " + WORDS.say(lang, "report.command.read", done=done, total=total), file=out, flush=True)


CHANGED = "changed"  # a flagged cell's status: the student changed this test cell (the released one was graded)
TAMPERED = "tampered"  # ... its kernel showed another result than the grader's record (the record was kept)


def _notebook_results(path: pathlib.Path, student: str, flagged: list) -> dict:
    """The records of one autograded notebook; an unreadable file, changed and tampered test cells go to ``flagged``."""
    try:
        graded = read_graded_notebook(path) if path.exists() else None
    except (OSError, ValueError, KeyError, TypeError) as exc:  # JSONDecodeError is a ValueError
        flagged.append((student, path.name, "unreadable", f"{type(exc).__name__}: {exc}"[:300]))
        return {}
    if graded is None:
        return {}
    # no reason of their own: the status says it, and the page says it in the course's language
    flagged += [(student, grade_id, CHANGED, "") for grade_id in graded.changed_cells]
    flagged += [(student, grade_id, TAMPERED, "") for grade_id in graded.tampered_cells]
    return graded.records


def read_results(course, grades: ClassGrades, out=sys.stderr, lang: str = DEFAULT) -> tuple:
    """``({student: {grade_id: CellRecord}}, flagged)`` from ``autograded/<student>/<assignment>/*.ipynb``.

    ``flagged`` lists ``(student, notebook file or cell, status, reason)``: files that are not valid
    JSON or hold a malformed record (``unreadable``), test cells a student changed (``changed``) or whose kernel
    showed another result than the grader (``tampered``);
    the rest of the class is still reported.
    """
    course, notebooks = pathlib.Path(course), sorted({c.notebook for c in grades.cells})
    students, results, flagged = sorted(grades.grades), {}, []
    for n, student in enumerate(students, 1):
        for notebook in notebooks:
            path = course / "autograded" / student / grades.assignment / f"{notebook}.ipynb"
            found = _notebook_results(path, student, flagged)
            if found:  # a notebook graded before the grader wrote records counts as not diagnosed
                results.setdefault(student, {}).update(found)
        _progress(n, len(students), out, lang)
    return results, flagged


def _pending(course, assignment: str) -> set:
    """Students with a collected submission (``submitted/``) that is not in the gradebook yet."""
    return {p.parent.name for p in pathlib.Path(course).glob(f"submitted/*/{assignment}")}


def _ordered_findings(cells: dict) -> list:
    """Findings of all cells, one per bug id, in the order the grader found them, test by test (a later test
    cell that repeats an earlier one's functions adds only what is new)."""
    seen = {}
    for result in sorted(cells.values(), key=lambda r: r.test):
        for finding in result.findings:
            seen.setdefault(finding.bug, finding)
    return list(seen.values())


def _row(student: str, grades: ClassGrades, cells: dict | None, pending: set, looks=lambda cells: ()) -> StudentRow:
    if student not in grades.grades:
        if student in pending:
            return StudentRow(student, PENDING)
        if student in grades.elsewhere:
            return StudentRow(student, OTHER_EDITION, reason=", ".join(grades.elsewhere[student]))
        return StudentRow(student, NO_SUBMISSION)
    reason = grades.not_graded.get(student, "")
    flagged = "; ".join(f"{r.grade_id}: {r.status} {r.reason}".strip()
                        for r in (cells or {}).values() if r.status != record.GRADED)
    return StudentRow(student, NOT_GRADED if reason else GRADED, grades.grades[student],
                      grades.total(student), _ordered_findings(cells or {}), reason or flagged, cells is not None,
                      () if reason else looks(cells or {}))


def _check_stats(results: dict) -> list:
    stats = {}
    for student, cells in sorted(results.items()):
        for result in cells.values():
            if result.status != record.GRADED or is_practice(result):  # delegated: the checks saw attnkit's work
                continue
            for check in result.checks:
                stat = stats.setdefault(check.id, CheckStat(check.id, result.test, check.visible, check.description))
                if check.passed:
                    stat.passed += 1
                else:
                    stat.failing.append(student)
    return sorted(stats.values(), key=lambda s: (s.pass_rate, s.test, not s.visible, _natural(s.id)))


def _natural(check_id: str) -> tuple:
    """"verify.3" before "verify.12": numeric parts compare as numbers."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in check_id.split("."))


def _practice_stats(results: dict) -> list:
    """Each practice exercise: who carried its record, who tried it (a graded record with checks), who passed it."""
    stats = {}
    for student, cells in sorted(results.items()):
        for result in (r for r in cells.values() if is_practice(r)):
            stat = stats.setdefault(result.grade_id, PracticeStat(result.grade_id, result.test))
            stat.seen.append(student)
            if result.status == record.GRADED and result.checks:
                stat.tried.append(student)
                if all(check.passed for check in result.checks):
                    stat.passed.append(student)
    return sorted(stats.values(), key=lambda stat: (stat.number, stat.grade_id))


def _mistakes(rows: list, reteach) -> list:
    found = {}
    for row in rows:
        for finding in row.mistakes:
            mistake = found.setdefault(finding.bug, Mistake(finding.bug, finding.stage, finding.message,
                                                            reteach(finding.bug)))
            mistake.students.append(row.student)
    return sorted(found.values(), key=lambda m: (-len(m.students), m.bug))


def _cross_check(results: dict, grades: ClassGrades) -> tuple:
    flagged, mismatches = [], []
    for student, cells in sorted(results.items()):
        for grade_id, result in sorted(cells.items()):
            if result.status != record.GRADED:
                flagged.append((student, grade_id, result.status, result.reason))
            grade = grades.grades.get(student, {}).get(grade_id)
            auto = None if grade is None else grade.auto
            if auto is None or abs(auto - result.score) > SCORE_TOLERANCE:
                mismatches.append((student, grade_id, result.score, auto))
    return flagged, mismatches


def _cell_stats(grades: ClassGrades) -> list:
    """Without a grader's records (a plain nbgrader assignment): each test cell is one check, passed by a student
    whose auto score is the cell's full points."""
    stats = []
    for number, cell in enumerate((c for c in grades.cells if c.autograded), 1):
        stat = CheckStat(cell.name, number, True, f"{cell.notebook} · {cell.name}")
        for student, cells in sorted(grades.grades.items()):
            grade = cells.get(cell.name)
            if grade is None or grade.auto is None or student in grades.not_graded:
                continue
            if grade.auto >= cell.max_score - SCORE_TOLERANCE:
                stat.passed += 1
            else:
                stat.failing.append(student)
        stats.append(stat)
    return sorted(stats, key=lambda s: (s.pass_rate, s.test))


def build_report(course, grades: ClassGrades, out=sys.stderr, reteach=lambda bug: "", has_grader=True,
                 lang: str = DEFAULT, unnamed=lambda bug: False) -> ClassReport:
    """Every table of the report for the class in ``grades``, reading its autograded notebooks in ``course``;
    ``reteach(bug)``: what to reteach for a mistake (the assignment's plug-in's, in the report's language);
    ``has_grader``: whether the assignment has a grader of its own (else its checks are its test cells, from the
    gradebook); ``lang``: what its progress is said in; ``unnamed(bug)``: a finding its diagnosis has no name for
    (the plug-in's: for the cells that may be hard-coded, beside the release's records its canary left)."""
    results, noted = read_results(course, grades, out, lang)
    pending = _pending(course, grades.assignment) - set(grades.grades)
    students = sorted(set(grades.students) | pending)
    release = release_records(course, grades.assignment)
    rows = [_row(s, grades, results.get(s), pending, lambda cells: record.may_be_hard_coded(cells, release, unnamed))
            for s in students]
    flagged, mismatches = _cross_check(results, grades)
    checks = _check_stats(results) if has_grader else _cell_stats(grades)
    return ClassReport(grades, rows, checks, _mistakes(rows, reteach), noted + flagged, mismatches, len(results),
                       has_grader, _practice_stats(results))

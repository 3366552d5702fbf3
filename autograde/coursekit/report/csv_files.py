"""The report's CSV files: ``students.csv``, ``checks.csv``, ``mistakes.csv``, and ``similarity.csv``.

Lists of students are joined with ``;``. Empty cells mean "no value" (a manual score not
given yet, a student without a submission). ``students.csv``'s ``may_be_hard_coded`` names each cell that may answer
only the visible inputs, with its evidence (:func:`coursekit.record.may_be_hard_coded`). Columns are named by identifiers; the reteach notes
are in the report's language (the course's: the plug-in said them so, :func:`.tables.build_report`). A student is
their id, and beside it their name as the gradebook holds it (:class:`coursekit.people.People`; "" without one).
"""
import csv
import pathlib

from ..people import People
from .similarity import CODE_UNIT
from .similarity_page import FOLDER, SHOWN, page_name, submitted_at

__all__ = ["write_csvs", "write_similarity_csv"]


def _number(value) -> str:
    return "" if value is None else f"{value:g}"


def _hard_coded(flags) -> str:
    """The cells that may be hard-coded, each with its evidence: ``test1_scores (passed verify.1 verify.2; failed
    test1.random_rect)``, joined with `` | ``."""
    return " | ".join(f"{f.grade_id} (passed {' '.join(f.passed)}; failed {' '.join(f.failed)})" for f in flags)


def _student_rows(report, people: People):
    cells = report.grades.cells
    yield (["student", "name", "status"] + [f"{c.name}_{kind}" for c in cells for kind in ("auto", "manual")]
           + ["total", "max_total", "first_mistake", "reason", "may_be_hard_coded"])
    for row in report.rows:
        scores = []
        for cell in cells:
            grade = row.cells.get(cell.name)
            scores += [_number(grade and grade.auto), _number(grade and grade.manual)]
        total = _number(row.total if row.cells else None)
        yield [row.student, people.name(row.student), row.status] + scores + [total, _number(report.grades.max_total), row.first_mistake,
                                                   row.reason, _hard_coded(row.hard_coded)]


def _check_rows(report, people: People):
    yield ["check_id", "test", "kind", "description", "pass_rate", "passed", "ran", "failing_students",
           "failing_names"]
    for s in report.checks:
        yield [s.id, s.test, "visible" if s.visible else "hidden", s.description, f"{s.pass_rate:.4f}",
               s.passed, s.ran, ";".join(s.failing), ";".join(people.name(f) for f in s.failing)]


def _mistake_rows(report, people: People):
    yield ["bug_id", "stage", "count", "share", "students", "names", "reteach"]
    for m in report.mistakes:
        yield [m.bug, m.stage, len(m.students), f"{report.share(m):.4f}", ";".join(m.students),
               ";".join(people.name(s) for s in m.students), m.reteach]


def write_csvs(report, out_dir, people: People | None = None) -> list:
    """Write the three files into ``out_dir``, each student also by their name in ``people``; return their paths."""
    out_dir, people = pathlib.Path(out_dir), people or People()
    paths = []
    for name, rows in (("students.csv", _student_rows), ("checks.csv", _check_rows), ("mistakes.csv", _mistake_rows)):
        path = out_dir / name
        with path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows(report, people))
        paths.append(path)
    return paths


def _similarity_rows(similarity, timestamps: dict, people: People):
    yield ["rank", "first_student", "second_student", "first_student_name", "second_student_name", "score", "flagged",
           "code_score", "written_scores", "cells", "first_submitted", "second_submitted", "page"]
    with_page = {(pair.first, pair.second) for pair in similarity.flagged[:SHOWN]}
    for rank, pair in enumerate(similarity.pairs, 1):
        code = [f"{m.score:.4f}" for m in pair.matches if m.unit == CODE_UNIT]
        written = ";".join(f"{m.unit}:{m.score:.4f}" for m in pair.matches if m.unit != CODE_UNIT)
        cells = ";".join(dict.fromkeys(grade_id for m in pair.matches for _, grade_id in m.cells))
        page = f"{FOLDER}/{page_name(pair)}" if (pair.first, pair.second) in with_page else ""
        when = [submitted_at(student, timestamps, similarity) for student in (pair.first, pair.second)]
        yield [rank, pair.first, pair.second, people.name(pair.first), people.name(pair.second), f"{pair.score:.4f}",
               int(pair.flagged), "".join(code), written, cells, *when, page]


def write_similarity_csv(similarity, timestamps: dict, out_dir, people: People | None = None) -> pathlib.Path:
    """``similarity.csv``: every pair scoring at least half the threshold, highest first, flagged or not; the
    ``page`` of a flagged pair that has one (``timestamps``: the gradebook's)."""
    path = pathlib.Path(out_dir) / "similarity.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(_similarity_rows(similarity, timestamps, people or People()))
    return path

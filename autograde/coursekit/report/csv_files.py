"""The report's three CSV files: ``students.csv``, ``checks.csv``, ``mistakes.csv``.

Lists of students are joined with ``;``. Empty cells mean "no value" (a manual score not
given yet, a student without a submission). Columns are named by identifiers; the reteach notes
are in the course's language.
"""
import csv
import pathlib

from attnkit.language import DEFAULT

from .reteach import reteach

__all__ = ["write_csvs"]


def _number(value) -> str:
    return "" if value is None else f"{value:g}"


def _student_rows(report):
    cells = report.grades.cells
    yield (["student", "status"] + [f"{c.name}_{kind}" for c in cells for kind in ("auto", "manual")]
           + ["total", "max_total", "first_mistake", "reason"])
    for row in report.rows:
        scores = []
        for cell in cells:
            grade = row.cells.get(cell.name)
            scores += [_number(grade and grade.auto), _number(grade and grade.manual)]
        total = _number(row.total if row.cells else None)
        yield [row.student, row.status] + scores + [total, _number(report.grades.max_total), row.first_mistake,
                                                   row.reason]


def _check_rows(report):
    yield ["check_id", "test", "kind", "description", "pass_rate", "passed", "ran", "failing_students"]
    for s in report.checks:
        yield [s.id, s.test, "visible" if s.visible else "hidden", s.description, f"{s.pass_rate:.4f}",
               s.passed, s.ran, ";".join(s.failing)]


def _mistake_rows(report, lang):
    yield ["bug_id", "stage", "count", "share", "students", "reteach"]
    for m in report.mistakes:
        yield [m.bug, m.stage, len(m.students), f"{report.share(m):.4f}", ";".join(m.students), reteach(m.bug, lang)]


def write_csvs(report, out_dir, lang: str = DEFAULT) -> list:
    """Write the three files into ``out_dir`` (the reteach notes in ``lang``); return their paths."""
    out_dir = pathlib.Path(out_dir)
    paths = []
    tables = (("students.csv", _student_rows), ("checks.csv", _check_rows),
              ("mistakes.csv", lambda r: _mistake_rows(r, lang)))
    for name, rows in tables:
        path = out_dir / name
        with path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows(report))
        paths.append(path)
    return paths

"""``make report``: the class report of one assignment, written next to the course.

    cd <course> && python -m coursekit.report [--assignment NAME] [--db-url URL] [--out DIR]

Reads the gradebook that :func:`coursekit.gradebook.resolve_gradebook` picks and the grader's
records in ``autograded/``; writes ``reports/<assignment>/index.html`` and three CSV files;
prints progress and a one-screen summary.
"""
import argparse
import os
import pathlib
import sys

from nbgrader.api import MissingEntry

from ..assignments import assignment_of
from ..gradebook import describe, open_gradebook, resolve_gradebook, sqlite_file
from ..paths import default_assignment, find_course
from ..settings import course_config
from .csv_files import write_csvs
from .grades import read_class
from .html_page import render
from .tables import GRADED, NO_SUBMISSION, NOT_GRADED, PENDING, build_report

__all__ = ["write_report", "main"]


def _summary_lines(report, out_dir) -> list:
    count = {s: sum(r.status == s for r in report.rows) for s in (GRADED, NOT_GRADED, NO_SUBMISSION, PENDING)}
    lines = [f"{report.grades.assignment}: {len(report.rows)} students — {count[GRADED]} graded, "
             f"{count[NOT_GRADED]} not graded (0 with a reason), {count[NO_SUBMISSION]} without a submission, "
             f"{count[PENDING]} submitted but not autograded yet; {report.diagnosed} with structured results"]
    lines += [f"  {len(m.students):4d}  {100 * report.share(m):5.1f}%  {m.bug}" for m in report.mistakes[:5]]
    if report.mismatches:
        lines.append(f"  WARNING: {len(report.mismatches)} cell scores differ from the gradebook (gradebook wins)")
    lines.append(f"report: {out_dir / 'index.html'}  (+ students.csv, checks.csv, mistakes.csv)")
    return lines


def write_report(course, assignment: str, url: str, out_dir=None, out=sys.stderr) -> pathlib.Path:
    """Build the report of ``assignment`` and write it to ``out_dir`` (default ``reports/<assignment>/``)."""
    course = pathlib.Path(course)
    out_dir = pathlib.Path(out_dir or course / "reports" / assignment)
    print(f"reading the gradebook {describe(url)} ...", file=out, flush=True)
    declared = assignment_of(assignment, course_config(course))
    report = build_report(course, read_class(url, assignment), out, declared.get("reteach"), bool(declared.grader))
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csvs(report, out_dir)
    (out_dir / "index.html").write_text(render(report), encoding="utf-8")
    print("\n".join(_summary_lines(report, out_dir)), file=out, flush=True)
    return out_dir


def _only_assignment(url: str) -> str:
    """The gradebook's assignment when it holds exactly one ("" otherwise)."""
    with open_gradebook(url) as gradebook:
        names = [a.name for a in gradebook.assignments]
    return names[0] if len(names) == 1 else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="make report", description=__doc__.split("\n")[0])
    parser.add_argument("--assignment", default="", help="the assignment (default: $ASSIGNMENT, else the gradebook's "
                                                         "or the course's only one)")
    parser.add_argument("--course", default=None, help="the course folder (default: the current one when it "
                                                       "holds nbgrader_config.py, else the repository's autograde/)")
    parser.add_argument("--db-url", default=None, help="gradebook URL (default: DB_URL, the course config, "
                                                       "sqlite:///<course>/gradebook.db)")
    parser.add_argument("--out", default=None, help="output folder (default: <course>/reports/<assignment>)")
    args = parser.parse_args(argv)
    try:
        course = find_course(args.course)
    except FileNotFoundError as error:
        parser.error(str(error))
    url = resolve_gradebook(course, args.db_url)
    database = sqlite_file(url)
    if database is not None and not database.exists():
        print(f"no gradebook at {describe(url)}: grade the class first (make grade, or nbgrader autograde "
              f"in {course})", file=sys.stderr)
        return 2
    try:
        args.assignment = (args.assignment or os.environ.get("ASSIGNMENT", "").strip() or _only_assignment(url)
                           or default_assignment(course))
    except ValueError as error:
        parser.error(str(error))
    try:
        write_report(course, args.assignment, url, args.out)
    except MissingEntry:
        print(f"assignment {args.assignment!r} is not in the gradebook {describe(url)}: pass --assignment "
              f"(or ASSIGNMENT=… for make) naming one that was generated and autograded", file=sys.stderr)
        return 2
    return 0

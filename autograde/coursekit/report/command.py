"""``make report``: the class report of an assignment (of each of its editions), written next to the course.

    cd <course> && python -m coursekit.report [--assignment NAME] [--db-url URL] [--out DIR]

Reads the gradebook that :func:`coursekit.gradebook.resolve_gradebook` picks, the grader's
records in ``autograded/`` and every student's solution cells (the similarity section); writes
``reports/<assignment>/index.html``, four CSV files and a page per flagged pair of students in
``similarity/``; prints progress and a one-screen summary. Without ``--assignment`` (or ``$ASSIGNMENT``): the
gradebook's only assignment, or each edition of one (``ch04_attention``, ``ch04_attention_en``:
:func:`coursekit.assignments.one_work`), else the course's (:func:`coursekit.assignments.default_assignments`).
Everything it writes and says is in the course's language (``c.CourseKit.language``, Chinese unless
the config says otherwise).
"""
import argparse
import os
import pathlib
import sys

from nbgrader.api import MissingEntry
from sqlalchemy import create_engine

from ..assignments import assignment_of, default_assignments, editions_of, one_work
from ..gradebook import describe, open_gradebook, resolve_gradebook, sqlite_file
from ..grades import lateness, read_class
from ..language import DEFAULT, WORDS
from ..paths import add_course_option, find_course, usage_errors
from ..people import read_people
from ..printable import printable
from ..regrade_book import counts as regrade_counts_of
from ..regrade_book import take_in_course
from ..settings import course_settings
from .csv_files import write_csvs, write_similarity_csv
from .html_page import render
from . import regrade_counts
from .labels import Labels, labels_for
from .lateness import section as lateness_section
from .similarity import find_similar
from .similarity_page import section, write_pages
from .tables import GRADED, NO_SUBMISSION, NOT_GRADED, OTHER_EDITION, PENDING, build_report

__all__ = ["write_report", "main"]


def _summary_lines(report, similarity, out_dir, lang: str, labels: Labels) -> list:
    count = {s: sum(r.status == s for r in report.rows)
             for s in (GRADED, NOT_GRADED, NO_SUBMISSION, OTHER_EDITION, PENDING)}
    lines = [WORDS.say(lang, "report.command.summary", assignment=report.grades.assignment, students=len(report.rows),
                       graded=count[GRADED], not_graded=count[NOT_GRADED], missing=count[NO_SUBMISSION],
                       other=count[OTHER_EDITION], pending=count[PENDING], diagnosed=report.diagnosed,
                       mistaken=sum(bool(r.mistakes) for r in report.rows))]
    lines += [f"  {len(m.students):4d}  {100 * report.share(m):5.1f}%  {labels.mistake(m.bug)}"
              for m in report.mistakes[:5]]
    if report.mismatches:
        lines.append("  " + WORDS.say(lang, "report.command.warning", n=len(report.mismatches)))
    lines.append("  " + WORDS.say(lang, "report.command.similar", flagged=len(similarity.flagged),
                                   threshold=format(similarity.threshold, "g"), students=similarity.students))
    for practice in report.practice:
        lines.append(WORDS.say(lang, "report.practice_line", exercise=labels.cell(practice.grade_id),
                               tried=len(practice.tried), passed=len(practice.passed), seen=len(practice.seen)))
    looked = list(dict.fromkeys(student for student, _ in report.hard_coded))
    if looked:
        lines.append("  " + WORDS.say(lang, "report.command.hard_coded", n=len(looked), students=", ".join(looked)))
    lines.append(WORDS.say(lang, "report.command.written", page=out_dir / "index.html"))
    return lines


def write_report(course, assignment: str, url: str, out_dir=None, out=sys.stderr, lang: str = DEFAULT) -> pathlib.Path:
    """Build the report of ``assignment`` in ``lang`` and write it to ``out_dir`` (default ``reports/<assignment>/``)."""
    course = pathlib.Path(course)
    out_dir = pathlib.Path(out_dir or course / "reports" / assignment)
    print(WORDS.say(lang, "report.command.reading", gradebook=describe(url)), file=out, flush=True)
    settings = course_settings(course)  # the course's config, read once
    config = settings.config
    declared = assignment_of(assignment, config)
    notes = declared.get("reteach")  # the plug-in's, said in the report's language
    editions = editions_of(assignment, config).values()  # a student submits one of them
    report = build_report(course, read_class(url, assignment, editions, config), out, lambda bug: notes(bug, lang),
                          bool(declared.grader), lang, declared.get("unnamed"))
    submitted = [row.student for row in report.rows if row.status not in (NO_SUBMISSION, OTHER_EDITION)]
    similarity = find_similar(course, assignment, submitted, settings.similarity_threshold, config)
    times, people = report.grades.timestamps, read_people(url)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csvs(report, out_dir, people)
    write_similarity_csv(similarity, times, out_dir, people)
    labels = labels_for(course, assignment, lang, config, people)
    write_pages(similarity, times, out_dir, lang, labels)
    if declared.grader and not os.path.isfile(declared.grader):
        print("  " + WORDS.say(lang, "report.command.no_grader", grader=declared.grader), file=out, flush=True)
    with open_gradebook(url, settings.course_id) as gradebook:
        late = lateness_section(lateness(gradebook, assignment, config, settings.timezone), lang)
    requests = _regrade_counts(course, url, assignment)
    extra = [late, section(similarity, times, lang, labels), regrade_counts.section(requests, labels, lang)]
    (out_dir / "index.html").write_text(render(report, lang, extra, labels), encoding="utf-8")
    lines = _summary_lines(report, similarity, out_dir, lang, labels)
    asked = regrade_counts.summary_line(requests, labels, lang)
    lines[-1:-1] = [asked] if asked else []
    print(printable("\n".join(lines)), file=out, flush=True)
    return out_dir


def _regrade_counts(course, url: str, assignment: str) -> dict:
    """The assignment's regrade requests per question, those waiting in the exchange taken in first."""
    engine = create_engine(url)
    try:
        take_in_course(course, engine)
        return regrade_counts_of(engine, assignment)
    finally:
        engine.dispose()


def _assignments_of(url: str, config) -> list:
    """The gradebook's assignment when it holds exactly one, or the editions of one; ``[]`` otherwise."""
    with open_gradebook(url) as gradebook:
        names = [a.name for a in gradebook.assignments]
    return one_work(names, config)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="make report", description=__doc__.split("\n")[0])
    parser.add_argument("--assignment", default="", help="the assignment (default: $ASSIGNMENT, else the gradebook's "
                                                         "or the course's only one, or each of its editions)")
    add_course_option(parser)
    parser.add_argument("--db-url", default=None, help="gradebook URL (default: DB_URL, the course config, "
                                                       "sqlite:///<course>/gradebook.db)")
    parser.add_argument("--out", default=None, help="output folder (default: <course>/reports/<assignment>)")
    args = parser.parse_args(argv)
    with usage_errors(parser):
        course = find_course(args.course)
        lang = course_settings(course).language
    url = resolve_gradebook(course, args.db_url)
    database = sqlite_file(url)
    if database is not None and not database.exists():
        print(WORDS.say(lang, "report.command.no_gradebook", gradebook=describe(url), course=course), file=sys.stderr)
        return 2
    config = course_settings(course).config
    try:
        named = args.assignment or os.environ.get("ASSIGNMENT", "").strip()
        assignments = [named] if named else (_assignments_of(url, config) or default_assignments(course, config))
    except ValueError as error:
        parser.error(str(error))
    written = 0
    for assignment in assignments:
        out_dir = args.out and (pathlib.Path(args.out) / assignment if len(assignments) > 1 else args.out)
        try:
            write_report(course, assignment, url, out_dir, lang=lang)
            written += 1
        except MissingEntry:  # an edition not generated in this course: the others are still reported
            continue
    if written:
        return 0
    if len(assignments) == 1:
        print(WORDS.say(lang, "report.command.not_in_gradebook", assignment=assignments[0], gradebook=describe(url)), file=sys.stderr)
    else:
        print(WORDS.say(lang, "report.command.none_in_gradebook", assignments=", ".join(assignments), gradebook=describe(url)),
              file=sys.stderr)
    return 2

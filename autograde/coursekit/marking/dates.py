"""``make due`` and ``make extend``: a piece of work's due date, one student's extension, and the grade recomputed
everywhere without regrading anything.

    make due DUE="2027-01-15 23:59"                                 # both editions (ASSIGNMENT=… for another)
    make extend STUDENT=alice UNTIL="2027-01-20 23:59" REASON="ill"  # recorded with who and when
    make extend STUDENT=alice UNTIL=none                            # withdrawn

A date without a zone is in the course's (``c.CourseKit.timezone``). The due date goes where nbgrader keeps it (the
gradebook, on the master and each edition), an extension into the course's table beside it (:mod:`coursekit.due`).
Then :func:`recompute`: each student concerned has their late penalties written again by the course's policy
(:func:`coursekit.late.settle`), so ``nbgrader export``, the class report and the marking page read the new grade; the
LMS is told their score may have changed; the students' Labs get the dates (:func:`coursekit.service.dates.publish`); and a feedback page
already released whose grade changed is generated and released again with nbgrader's own steps, so the page and the
student's notification say it too. The marking page's extension form calls the same code.

Refused, with one line and nothing changed (exit status 2): a date that does not parse, a student the gradebook does
not know, an extension that ends before the due date, work without a due date.
"""
import argparse
import dataclasses
import getpass
import os
import subprocess
import sys

from nbgrader.api import Student

from ..assignments import assignment_of, default_assignments, editions_of
from ..due import BadExtension, due_date, extensions_of, grant, parse_when, set_due_date, zone_text
from ..gradebook import open_gradebook, resolve_gradebook
from ..grades import grade_of, grades_of, lateness
from ..grading import lock
from ..grading.worker import make_app
from ..late import late_policy, settle
from ..lms import outbox as lms_outbox
from ..paths import add_course_option, find_course, usage_errors
from ..service import steps
from ..service.dates import publish
from ..language import WORDS, marked
from ..settings import course_settings

__all__ = ["Changed", "dates_view", "settle_marked", "extend", "main", "recompute", "refresh_feedback", "refresh_in_background"]

NONE = ("none", "no", "-", "")  # UNTIL= that withdraws an extension (DUE= that removes a due date)


@dataclasses.dataclass(frozen=True)
class Changed:
    student: str
    assignment: str       # the edition they submitted
    before: float | None  # the grade before (None: no submission)
    after: float | None
    max_score: float


def _grades(gradebook, master: str, students, config) -> dict:
    """``{(student, edition): StudentGrade}`` of every edition ``students`` submitted."""
    found = {}
    for edition in editions_of(master, config).values():
        for student in students:
            grade = grade_of(gradebook, edition, student, config)
            if grade is not None:
                found[(student, edition)] = grade
    return found


def recompute(course, url: str, master: str, students, why: str) -> list:
    """After a due date or an extension changed: ``students``' penalties written again, the LMS told, the dates
    published; the :class:`Changed` grades (the feedback pages to refresh: :func:`refresh_feedback`)."""
    settings = course_settings(course)
    config = settings.config
    with open_gradebook(url, settings.course_id) as gradebook:
        before = _grades(gradebook, master, students, config)
        for student in students:
            settle(gradebook, student, config)
        after = _grades(gradebook, master, students, config)
        publish(gradebook, settings.exchange, settings.course_id, config)
    changed = []
    for (student, edition), grade in after.items():
        old = before.get((student, edition))
        if old is None or old.score != grade.score:
            changed.append(Changed(student, edition, None if old is None else old.score, grade.score, grade.max_score))
    for edition in editions_of(master, config).values():
        lms_outbox.mark(course, edition, [c.student for c in changed if c.assignment == edition], why)
    return changed


def refresh_feedback(course, url: str, changed: list) -> list:
    """Each changed grade whose feedback was generated before: nbgrader's generate_feedback and release_feedback for
    that student again (the service's steps, under the grading lock); the students refreshed."""
    stale = [c for c in changed if (course / "feedback" / c.student / c.assignment).is_dir()]
    if not stale:
        return []
    here = os.getcwd()
    try:
        with lock.exclusive(course, "make extend"):
            for edition in sorted({c.assignment for c in stale}):
                app = make_app(course, edition, url)
                for change in [c for c in stale if c.assignment == edition]:
                    steps.generate_feedback(app, change.student)
                    steps.release_feedback(app, change.student)
    finally:
        os.chdir(here)  # make_app works from the course folder
    return sorted({c.student for c in stale})


def extend(course, url: str, assignment: str, student: str, until_text: str, reason: str, who: str) -> tuple:
    """``student``'s extension of ``assignment``'s piece of work until ``until_text`` (the course's zone unless it
    names one; "none" withdraws it): (the :class:`coursekit.due.Extension` recorded, its due date, the changed
    grades). :class:`coursekit.due.BadExtension` when refused (nothing written)."""
    settings = course_settings(course)
    config = settings.config
    until = None if until_text.strip().lower() in NONE else parse_when(until_text, settings.timezone, "UNTIL")
    master = assignment_of(assignment, config).master
    with open_gradebook(url, settings.course_id) as gradebook:
        extension = grant(gradebook, master, student, until, reason, who, config, timezone=settings.timezone)
        due = due_date(gradebook, master, config)
    return extension, due, recompute(course, url, master, [student], f"extension of {student} by {who}")


def dates_view(course, url: str, assignment: str) -> dict:
    """What the marking page shows of ``assignment``'s piece of work (:func:`coursekit.grades.lateness`: its due date,
    every extension, every late submission with its grade, in the course's zone) and the students to extend."""
    settings = course_settings(course)
    with open_gradebook(url, settings.course_id) as gradebook:
        students = sorted(s for (s,) in gradebook.db.query(Student.id))
        return {**lateness(gradebook, assignment, settings.config, settings.timezone), "students": students}


def settle_marked(course, url: str, assignment: str, students) -> None:
    """After marks were saved: the late penalty of each of ``students`` whose submission of ``assignment`` is late
    written again from the new score (:func:`coursekit.late.settle`); on-time ones have none to change."""
    settings = course_settings(course)
    config = settings.config
    with open_gradebook(url, settings.course_id) as gradebook:
        if due_date(gradebook, assignment, config) is None and not extensions_of(gradebook, assignment, config):
            return  # no date to be late for: every save of a class without one would read its grades for nothing
        for grade in grades_of(gradebook, assignment, list(students), config).values():
            if grade.seconds_late > 0:
                settle(gradebook, grade.student, config)


def refresh_in_background(course, url: str, changed: list, log) -> None:
    """:func:`refresh_feedback` of ``changed`` in a process of its own (``python -m coursekit.marking.dates refresh``):
    the marking page's server goes on; what it did goes to ``log`` (a file)."""
    students = sorted({c.student for c in changed if (course / "feedback" / c.student / c.assignment).is_dir()})
    if not students:
        return
    with open(log, "a", encoding="utf-8") as out:
        subprocess.Popen([sys.executable, "-m", "coursekit.marking.dates", "refresh", *students, "--course",
                          str(course), "--db-url", url], stdout=out, stderr=subprocess.STDOUT, cwd=course,
                         start_new_session=True)


def _refresh(course, url, args, lang, zone) -> list:
    settings = course_settings(course)
    config = settings.config
    with open_gradebook(url, settings.course_id) as gradebook:
        grades = _grades(gradebook, assignment_of(args.assignment, config).master, args.students, config)
    changed = [Changed(student, edition, grade.score, grade.score, grade.max_score)
               for (student, edition), grade in grades.items()]
    return _refreshed(course, url, changed, lang)


def _grade_lines(changed: list, lang: str) -> list:
    def shown(value):
        return "—" if value is None else f"{value:g}"
    return ["  " + WORDS.say(lang, "dates.grade", student=c.student, assignment=c.assignment, before=shown(c.before),
                             after=shown(c.after), max_score=c.max_score) for c in changed] \
        or [WORDS.say(lang, "dates.same")]


def _extend(course, url, args, lang, zone) -> list:
    extension, due, changed = extend(course, url, args.assignment, args.student, args.until, args.reason,
                                     getpass.getuser())
    key = marked("dates.extended") if extension.until is not None else marked("dates.withdrawn")
    reason = WORDS.say(lang, "dates.reason", reason=args.reason) if args.reason else ""
    lines = [WORDS.say(lang, key, student=args.student, assignment=extension.assignment,
                       until=zone_text(extension.until, zone), due=zone_text(due, zone), who=extension.granted_by,
                       at=zone_text(extension.granted_at, zone), reason=reason)]
    return lines + _grade_lines(changed, lang) + _refreshed(course, url, changed, lang)


def _due(course, url, args, lang, zone) -> list:
    settings = course_settings(course)
    config = settings.config
    due = None if args.due.strip().lower() in NONE else parse_when(args.due, zone, "DUE")
    with open_gradebook(url, settings.course_id) as gradebook:
        names = set_due_date(gradebook, args.assignment, due, config)
        students = sorted({s.student_id for name in names for s in gradebook.find_assignment(name).submissions})
    changed = recompute(course, url, assignment_of(args.assignment, config).master, students, "due date changed")
    said = WORDS.say(lang, "dates.due", assignments=", ".join(names), due=zone_text(due, zone)) if due else \
        WORDS.say(lang, "dates.no_due", assignments=", ".join(names))
    return [said] + _grade_lines(changed, lang) + _refreshed(course, url, changed, lang)


def _refreshed(course, url, changed, lang) -> list:
    refreshed = refresh_feedback(course, url, changed)
    return [WORDS.say(lang, "dates.refreshed", students=", ".join(refreshed))] if refreshed else []


def _parser():
    parser = argparse.ArgumentParser(prog="make due / make extend", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    due = commands.add_parser("due", help="the due date of a piece of work (both editions)")
    due.add_argument("due", help='"2027-01-15 23:59" (the course\'s zone), with a zone, or "none"')
    extension = commands.add_parser("extend", help="one student's extension")
    extension.add_argument("student")
    extension.add_argument("until", help='"2027-01-20 23:59" (the course\'s zone), with a zone, or "none"')
    extension.add_argument("--reason", default="", help="why (kept with who granted it and when)")
    refresh = commands.add_parser("refresh", help="feedback already released, generated and released again")
    refresh.add_argument("students", nargs="+")
    for sub in (due, extension, refresh):
        sub.add_argument("--assignment", default="", help="default: $ASSIGNMENT, else the course's one piece of work")
        sub.add_argument("--db-url", default="")
        add_course_option(sub)
    return parser


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    with usage_errors(parser):
        course = find_course(args.course)
        settings = course_settings(course)  # the course's config, read once; a wrong value names its file and key
        late_policy(course, settings.config)
        args.assignment = args.assignment or default_assignments(course, settings.config)[0]
    lang, url = settings.language, resolve_gradebook(course, args.db_url)
    command = {"due": _due, "extend": _extend, "refresh": _refresh}[args.command]
    try:
        lines = command(course, url, args, lang, settings.timezone)
    except BadExtension as refused:
        print(WORDS.say(lang, "dates.refused", command="make " + args.command, why=refused.said(lang)), file=sys.stderr)
        return 2
    print("\n".join(lines), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What ``make grade`` prints, read back in the course's language (``c.CourseKit.language``, Chinese here).

Its words are one table (coursekit.grading.progress.TEXT): the tests find its lines through the same
table, so they hold whatever the wording, and a course set to another language would be read the same way.
"""
import re

from coursekit.grading.progress import TEXT
from coursekit.paths import ASSIGNMENT
from coursekit.settings import course_settings

__all__ = ["words", "section", "failed", "notes", "over_budget", "graded_ok", "summary"]


def words(course=None) -> dict:
    """make grade's words for ``course`` (the repository's course by default: Chinese)."""
    from coursekit.paths import COURSE
    return TEXT[course_settings(course or COURSE).language]


def _prefix(template: str, before: str, **values) -> str:
    return template.split("{" + before + "}")[0].format(**values)


def section(stdout: str, assignment: str = ASSIGNMENT, text: dict | None = None) -> str:
    """The part of make grade's output about ``assignment``: its header line up to the next assignment's header."""
    text = text or words()
    starts = [(m.start(), m.group(1)) for m in re.finditer(
        "^" + re.escape(_prefix(text["header"], "assignment")) + r"(\S+?)" + re.escape(
            text["header"].split("{assignment}")[1].split("{")[0]), stdout, re.M)]
    mine = [i for i, (_, name) in enumerate(starts) if name == assignment]
    assert mine, f"make grade printed no section for {assignment}:\n{stdout[-3000:]}"
    begin = starts[mine[0]][0]
    end = starts[mine[0] + 1][0] if mine[0] + 1 < len(starts) else len(stdout)
    return stdout[begin:end]


def header(assignment: str = ASSIGNMENT, count: int | None = None, text: dict | None = None) -> str:
    """How the header of ``assignment`` begins (with ``count`` students when given)."""
    text = text or words()
    if count is None:
        return _prefix(text["header"], "count", assignment=assignment)
    return _prefix(text["header"], "shard", assignment=assignment, count=count)


def failed(output: str, text: dict | None = None) -> dict:
    """``{student: reason}`` of the summary's failed lines."""
    text = text or words()
    start, sep = _prefix(text["failed_line"], "student"), text["failed_line"].split("{student}")[1].split("{")[0]
    return dict(line[len(start):].split(sep, 1) for line in output.splitlines() if line.startswith(start))


def notes(output: str, student: str | None = None, text: dict | None = None) -> list:
    """The summary's note lines (of ``student`` when given), whole."""
    text = text or words()
    start = _prefix(text["note_line"], "student")
    sep = text["note_line"].split("{student}")[1].split("{")[0]
    return [line for line in output.splitlines()
            if line.startswith(start) and (student is None or line[len(start):].startswith(student + sep))]


def over_budget(output: str, text: dict | None = None) -> tuple:
    """``(students, the rest of the line)`` of the summary's line naming who went over one student's time; ``((), "")``
    when there is none."""
    text = text or words()
    start, sep = _prefix(text["over_budget"], "students"), text["over_budget"].split("{students}")[1].split("{")[0]
    line = next((line for line in output.splitlines() if line.startswith(start)), None)
    if line is None:
        return (), ""
    students, rest = line[len(start):].split(sep, 1)
    return tuple(students.split(", ")), rest


def note(student: str, what: str, text: dict | None = None, **values) -> str:
    """The note line make grade prints about ``student``: ``what`` (a key of the table: changed, tampered …)."""
    text = text or words()
    return text["note_line"].format(student=student, note=text[what].format(**values))


def graded_ok(output: str, text: dict | None = None) -> set:
    """The students a progress line says were graded."""
    text = text or words()
    pattern = re.escape(text["line"].split("{mark}")[1].split("{student}")[0])  # what separates mark and student
    return set(re.findall(rf"^\[\s*\d+/\d+\] {re.escape(text['ok'])} *{pattern}([^\s（(]+)", output, re.M))


def summary(output: str, head: str = "Done", text: dict | None = None) -> str:
    """The summary of ``output`` (a section), from its first line (``head``: Done, Interrupted, STOPPED) on."""
    text = text or words()
    start = _prefix(text["summary"], "graded", head=text[head])
    assert start in output, f"no summary starting {start!r} in:\n{output[-3000:]}"
    return output[output.index(start):]

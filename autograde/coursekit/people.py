"""How every page and file a person reads names a student: as the gradebook does, by their name.

nbgrader's gradebook holds each student's id and, where the roster gave them, their first and last name (an LMS's
roster does, :mod:`coursekit.lms.roster`; ``nbgrader db student add --first-name … --last-name …`` too). An id such as
``lti-5sj4xbek4kip6amz`` tells a person nothing, so the instructor's pages (the class report and its similarity
pages, the marking page), ``make service-status`` and ``make grade``'s summary show :meth:`People.called` instead: the
name, with the id beside it only where two students share that name, the id alone where the gradebook has no name.
CSV files keep the id column and add the name (:meth:`People.name`). One reader, :func:`people_of`, for all of them.
"""
import dataclasses
import re

from .gradebook import open_gradebook, sqlite_file

__all__ = ["People", "people_of", "read_people", "full_name"]

_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def full_name(first: str | None, last: str | None) -> str:
    """A person's name from its parts: ``Wei Li`` (first, then last); ``李伟`` (family first, no space) when the name is
    written in Chinese, Japanese or Korean characters; "" when neither part is given."""
    first, last = (first or "").strip(), (last or "").strip()
    if _CJK.search(first + last):
        return f"{last}{first}"
    return " ".join(part for part in (first, last) if part)


@dataclasses.dataclass(frozen=True)
class People:
    """``{student id: name}`` of a course ("" where the gradebook has none)."""
    names: dict = dataclasses.field(default_factory=dict)

    def name(self, student: str) -> str:
        """The student's name ("" when the gradebook has none): a CSV's name column."""
        return self.names.get(student, "")

    def called(self, student: str) -> str:
        """What a person reads for ``student``: their name; ``name (id)`` when another student has the same name; the
        id when the gradebook has no name."""
        name = self.name(student)
        if not name:
            return student
        return f"{name} ({student})" if self._shared(name) else name

    def _shared(self, name: str) -> bool:
        folded = name.casefold()
        return sum(other.casefold() == folded for other in self.names.values()) > 1


def people_of(students) -> People:
    """The names of ``students``, nbgrader's rows (``Gradebook.students``, or a query of ``Student``)."""
    return People({s.id: full_name(s.first_name, s.last_name) for s in students})


def read_people(url: str) -> People:
    """:func:`people_of` the gradebook at ``url``; nobody named while a sqlite gradebook does not exist yet (reading
    names never creates one)."""
    database = sqlite_file(url)
    if database is not None and not database.exists():
        return People()
    with open_gradebook(url) as gradebook:
        return people_of(gradebook.students)

"""The class as the LMS knows it, into nbgrader's gradebook: student ids, names, e-mail and the LMS's id.

Where the platform offers the Names and Role Provisioning Service (a launch carried its membership URL), the roster
is its list of active learners; every learner who launched is added too (a platform without NRPS, or someone
enrolled since). Each becomes the student :func:`coursekit.identity.hub_user` names, with ``lms_user_id`` set to
their ``sub``: the one record of who is who that the scores are posted from (:mod:`.score`).
"""
import dataclasses
import re

from ..identity import hub_user
from .launch import LEARNER, role_of

__all__ = ["Person", "people", "into_gradebook", "plain", "NAME_LENGTH"]

NAME_LENGTH = 200  # characters of a name or e-mail kept: the LMS's, which its users may edit themselves
# What no real name needs and markup does (nbgrader's Formgrader shows gradebook names as HTML, upstream): angle
# brackets, double quotes, backticks and control characters. O'Brien and "Smith & Sons" keep their ' and &.
_MARKUP = re.compile(r'[<>"`\x00-\x1f\x7f-\x9f]')


def plain(text) -> str:
    """``text`` as a gradebook field: without markup characters or controls, at most :data:`NAME_LENGTH` long."""
    return _MARKUP.sub("", str(text or ""))[:NAME_LENGTH].strip()


@dataclasses.dataclass(frozen=True)
class Person:
    student: str
    sub: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""

    def fields(self) -> dict:
        """The gradebook's columns; every text the LMS's user could have typed made :func:`plain`."""
        return {"first_name": plain(self.first_name) or None, "last_name": plain(self.last_name) or None,
                "email": plain(self.email) or None, "lms_user_id": self.sub}


def _from_member(member: dict, issuer: str) -> Person:
    given, family = str(member.get("given_name", "")), str(member.get("family_name", ""))
    if not (given or family):
        given = str(member.get("name", ""))
    return Person(hub_user(issuer, str(member["user_id"])), str(member["user_id"]), given, family,
                  str(member.get("email", "")))


def people(launches, members, issuer: str) -> list:
    """Learners of NRPS ``members`` (active ones) and of ``launches`` (those of ``issuer``), one each, by student id;
    a member's NRPS record wins over a launch's."""
    found = {}
    for launch in launches:
        if launch.role == LEARNER and launch.issuer == issuer:
            given = launch.given_name or ("" if launch.family_name else launch.name)
            found[launch.student] = Person(launch.student, launch.sub, given, launch.family_name, launch.email)
    for member in members:
        if role_of(member.get("roles")) == LEARNER and member.get("status", "Active") == "Active" \
                and member.get("user_id"):
            person = _from_member(member, issuer)
            found[person.student] = person
    return sorted(found.values(), key=lambda p: p.student)


def into_gradebook(gradebook, roster) -> int:
    """Add or update each person of ``roster`` in nbgrader's gradebook; how many rows changed."""
    known = {s.id: s for s in gradebook.students}
    changed = 0
    for person in roster:
        student = known.get(person.student)
        if student is None or any(getattr(student, k) != v for k, v in person.fields().items()):
            gradebook.update_or_create_student(person.student, **person.fields())
            changed += 1
    return changed

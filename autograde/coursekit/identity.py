"""Who a Unix user is in the course: the one place that maps the hub's users to nbgrader student ids.

On the course hub (``make hub``, TLJH) every hub user is a Unix user, and ``nbgrader submit`` names a
submission after the Unix user that made it (``nbgrader.utils.get_username``): a student id *is* that
user's name, and the exchange knows who wrote a folder from its owner. One exception, nbgrader's own: a
server running as the shared account ``jovyan`` (every pod of a Kubernetes hub) submits as
``$JUPYTERHUB_USER``, which the files do not record, so such a folder's owner says nothing of its student.

:func:`student_id` is the mapping; a course whose hub users are not named as its students (an LMS's ids, issue
#51) changes that function and nothing else. :func:`owner_of` is what :mod:`coursekit.inbound` asks of a
folder's owner. Standard library only.
"""
import dataclasses
import pwd

from .upstream.nbgrader import SHARED_UNIX_USER

__all__ = ["Owner", "student_id", "owner_of"]


@dataclasses.dataclass(frozen=True)
class Owner:
    """The Unix user owning a file, as the course sees it."""
    name: str            # the instructor's words for it: "alice (uid 1001)", "uid 4242 (no user of this machine)"
    student: str | None  # the student id it submits as; None when its files cannot say (a shared account)
    known: bool = True   # a user of this machine


def student_id(unix_name: str) -> str | None:
    """The nbgrader student id of the hub user whose Unix user is ``unix_name`` (today: that name); None for a
    shared account, whose submissions each name a hub user of their own."""
    return None if unix_name == SHARED_UNIX_USER else unix_name


def owner_of(uid: int) -> Owner:
    """The owner ``uid`` as a student of the course (a uid no user has is nobody's)."""
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        return Owner(f"uid {uid} (no user of this machine)", None, known=False)
    return Owner(f"{name} (uid {uid})", student_id(name))

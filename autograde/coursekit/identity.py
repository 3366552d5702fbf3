"""Who a Unix user is in the course: the one place that maps the hub's users to nbgrader student ids.

On the course hub (``make hub``, TLJH) every hub user is a Unix user, and ``nbgrader submit`` names a
submission after the Unix user that made it (``nbgrader.utils.get_username``): a student id *is* that
user's name, and the exchange knows who wrote a folder from its owner. One exception, nbgrader's own: a
server running as the shared account ``jovyan`` (every pod of a Kubernetes hub) submits as
``$JUPYTERHUB_USER``, which the files do not record, so such a folder's owner says nothing of its student.

:func:`student_id` is the mapping. A course reached from an LMS (LTI 1.3, issue #51, docs/deploy-lms.md) keeps it:
its hub users are named after the platform's ``sub``, the stable id of the person in that LMS (never the display
name, which people change and share), by :func:`hub_user`, used by the hub when someone launches and by the roster
when the LMS lists the class (:mod:`coursekit.lms.roster`), so the two always agree; the reverse, a student id to the
platform's ``sub``, is kept in the course's gradebook, in nbgrader's own ``Student.lms_user_id``.
:func:`owner_of` is what :mod:`coursekit.inbound` asks of a folder's owner. Standard library only.
"""
import base64
import dataclasses
import hashlib
import pwd

from .upstream.nbgrader import SHARED_UNIX_USER

__all__ = ["Owner", "student_id", "owner_of", "LMS_PREFIX", "hub_user", "from_lms"]

LMS_PREFIX = "lti-"  # every hub user named by an LMS; 4 + 16 characters: a valid Unix and nbgrader name


@dataclasses.dataclass(frozen=True)
class Owner:
    """The Unix user owning a file, as the course sees it."""
    name: str            # the instructor's words for it: "alice (uid 1001)", "uid 4242 (no user of this machine)"
    student: str | None  # the student id it submits as; None when its files cannot say (a shared account)
    known: bool = True   # a user of this machine


def student_id(unix_name: str) -> str | None:
    """The nbgrader student id of the hub user whose Unix user is ``unix_name`` (that name, an LMS's people's
    too); None for a shared account, whose submissions each name a hub user of their own."""
    return None if unix_name == SHARED_UNIX_USER else unix_name


def owner_of(uid: int) -> Owner:
    """The owner ``uid`` as a student of the course (a uid no user has is nobody's)."""
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        return Owner(f"uid {uid} (no user of this machine)", None, known=False)
    return Owner(f"{name} (uid {uid})", student_id(name))


def hub_user(issuer: str, sub: str) -> str:
    """The hub user (Unix user, nbgrader student id) of the person ``sub`` of the LMS ``issuer``.

    A hash, so that any ``sub`` (up to 255 characters of anything, says LTI) gives a valid Unix name, the same one
    at every launch; 80 bits of it, so that two people of one course never share one.
    """
    if not issuer or not sub:
        raise ValueError(f"an LMS user needs its platform and its sub: issuer={issuer!r}, sub={sub!r}")
    digest = hashlib.sha256(f"{issuer}\n{sub}".encode()).digest()
    return LMS_PREFIX + base64.b32encode(digest[:10]).decode().lower()


def from_lms(name: str) -> bool:
    """Was the hub user ``name`` made by an LMS launch or roster (rather than by ``make hub``)?"""
    return name.startswith(LMS_PREFIX)

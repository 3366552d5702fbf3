"""Who a hub user is in the course: the one place that names hub users and maps them to student ids.

On the course hub every hub user is a Unix user, and ``nbgrader submit`` names a submission after the Unix user
that made it: a student id *is* that user's name. A course reached from an LMS (LTI 1.3, docs/deploy-lms.md) names
its hub users after the platform's ``sub``, the stable id of the person in that LMS (never the display name, which
people change and share): :func:`hub_user` is that rule, used by the hub when someone launches and by the roster
when the LMS lists the class (:mod:`coursekit.lms.roster`), so the two always agree. The reverse, a student id to the
platform's ``sub``, is kept in the course's gradebook, in nbgrader's own ``Student.lms_user_id``. Standard library
only.
"""
import base64
import hashlib

__all__ = ["LMS_PREFIX", "hub_user", "from_lms"]

LMS_PREFIX = "lti-"  # every hub user named by an LMS; 4 + 16 characters: a valid Unix and nbgrader name


def hub_user(issuer: str, sub: str) -> str:
    """The hub user (Unix user, nbgrader student id) of the person ``sub`` of the platform ``issuer``.

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

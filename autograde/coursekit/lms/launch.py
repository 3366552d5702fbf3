"""What the course keeps of an LTI 1.3 launch: who came, in which role, from which link, and where the LMS's
services are.

The hub receives the launch (``autograde/hub/lti_auth.py``, after ``jupyterhub-ltiauthenticator`` has checked the
``id_token``'s signature, issuer, audience, age and nonce) and keeps a :class:`Launch` per hub user and LMS context;
the course reads them back through the hub (:mod:`.hub_client`) as :class:`CourseLaunches`, with the contexts that
are the course's own, for its roster and its line items. Both sides build them here, so the claims' names are written
once. Roles: a launch is an instructor's when its context roles name Instructor (or a
teaching assistant, content developer or the context's administrator), a learner's when they name Learner; anything
else (a mentor, a guest) is neither, and the hub says so on a page of its own.
"""
import dataclasses
import time

from ..assignments import CourseKit, assignment_of, edition_in, one_work
from ..identity import hub_user

__all__ = ["CLAIM", "AGS_CLAIM", "NRPS_CLAIM", "MEMBERSHIP", "LEARNER", "INSTRUCTOR", "Launch", "CourseLaunches",
           "role_of", "language_of"]

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
LEARNER, INSTRUCTOR = "learner", "instructor"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
_TEACHING = {"Instructor", "TeachingAssistant", "ContentDeveloper", "Administrator"}


def role_of(roles) -> str:
    """LEARNER, INSTRUCTOR or "" from a launch's (or NRPS member's) roles: context roles only, full URIs
    (``…/membership#Learner``, ``…/membership/Instructor#TeachingAssistant``) or short names (``Learner``); an
    instructor who is also a learner is an instructor."""
    names = set()
    for role in roles or ():
        role = str(role)
        if role.startswith(MEMBERSHIP):
            names.add(role.rsplit("#", 1)[-1])
        elif "/" not in role and "#" not in role:
            names.add(role)
    return INSTRUCTOR if names & _TEACHING else LEARNER if "Learner" in names else ""


def language_of(locale: str) -> str:
    """The course's language code of a launch's locale (``zh-CN`` → ``zh``, ``en-US`` → ``en``); "" when unset."""
    return str(locale or "").replace("_", "-").split("-")[0].lower()


@dataclasses.dataclass(frozen=True)
class Launch:
    """One launch as the course keeps it (no token, no nonce: what the roster and the line items need)."""
    issuer: str
    sub: str
    role: str                  # LEARNER, INSTRUCTOR or ""
    roles: tuple = ()          # as the platform sent them
    name: str = ""
    given_name: str = ""
    family_name: str = ""
    email: str = ""
    context_id: str = ""
    context_title: str = ""
    resource_link: str = ""    # the link's id
    link_title: str = ""
    custom: dict = dataclasses.field(default_factory=dict)
    locale: str = ""
    lineitems: str = ""        # AGS: the context's line items container (empty: the platform offers no AGS)
    lineitem: str = ""         # AGS: the line item the platform made for this link, if it did
    ags_scopes: tuple = ()
    memberships: str = ""      # NRPS: the context's membership URL (empty: not offered)
    deployment_id: str = ""
    at: float = 0.0

    @classmethod
    def from_claims(cls, claims: dict, now=time.time) -> "Launch":
        """From a validated ``id_token``'s claims."""
        context, link = claims.get(CLAIM + "context") or {}, claims.get(CLAIM + "resource_link") or {}
        ags, nrps = claims.get(AGS_CLAIM) or {}, claims.get(NRPS_CLAIM) or {}
        roles = tuple(str(r) for r in claims.get(CLAIM + "roles") or ())
        presentation = claims.get(CLAIM + "launch_presentation") or {}
        return cls(str(claims["iss"]), str(claims["sub"]), role_of(roles), roles, str(claims.get("name", "")),
                   str(claims.get("given_name", "")), str(claims.get("family_name", "")), str(claims.get("email", "")),
                   str(context.get("id", "")), str(context.get("title", "")), str(link.get("id", "")),
                   str(link.get("title", "")), dict(claims.get(CLAIM + "custom") or {}),
                   str(presentation.get("locale") or claims.get("locale", "")), str(ags.get("lineitems", "")),
                   str(ags.get("lineitem", "")), tuple(ags.get("scope") or ()),
                   str(nrps.get("context_memberships_url", "")), str(claims.get(CLAIM + "deployment_id", "")),
                   float(now()))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Launch":
        known = {f.name for f in dataclasses.fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        return cls(**{**data, **{k: tuple(data.get(k) or ()) for k in ("roles", "ags_scopes")}})

    @property
    def student(self) -> str:
        """The hub user, and student id, of this person (:func:`coursekit.identity.hub_user`)."""
        return hub_user(self.issuer, self.sub)

    def assignment(self, config=None) -> str:
        """The assignment this link opens: the one its custom parameter ``assignment`` names when that is an edition
        (``ch04_attention_en``); when it names a master, or nothing and the course has one piece of work, that work's
        edition in the custom parameter ``language``, else in the launch's locale, else the master; "" when the
        course has no such assignment."""
        declared = sorted(CourseKit(config=config).assignments)
        named = str(self.custom.get("assignment", ""))
        if named in declared and assignment_of(named, config).edition_of:
            return named
        work = [named] if named in declared else one_work(declared, config)
        if not work:
            return ""
        master = assignment_of(work[0], config).master
        lang = str(self.custom.get("language", "")) or language_of(self.locale)
        return edition_in(master, lang, config) or master


@dataclasses.dataclass(frozen=True)
class CourseLaunches:
    """What the hub tells the course (``GET <hub>/lti13/course/launches``): the course's own LMS contexts, as the hub
    decided them (the settings file's ``context_ids``, else the first instructor launch's context), and the launches
    it kept. ``contexts`` is empty while the course is linked to no LMS course yet."""
    contexts: tuple = ()
    launches: tuple = ()

    def to_dict(self) -> dict:
        return {"contexts": list(self.contexts), "launches": [x.to_dict() for x in self.launches]}

    @classmethod
    def from_dict(cls, data: dict) -> "CourseLaunches":
        return cls(tuple(str(c) for c in data.get("contexts") or ()),
                   tuple(Launch.from_dict(x) for x in data.get("launches") or ()))

"""Log-in by LTI 1.3 launch: JupyterHub's ``jupyterhub-ltiauthenticator``, with what a course needs around it.

``LTI13Authenticator`` does the OIDC part and every check of the ``id_token`` (its signature against the platform's
JWKS, issuer, audience and ``azp``, expiry and age, the state and the nonce against the cookies it set at the login
initiation). :class:`CourseLTIAuthenticator` keeps all of that and adds:

* **One launch, one log-in.** The upstream nonce is checked against a cookie only, so a launch captured with its
  cookies could be posted again while it is young; here a nonce is accepted once (:class:`SeenNonces`, kept until
  the token's ``exp``).
* **Whose course.** The hub serves its own LMS course(s) only: the contexts the settings file names
  (``context_ids``), else the context of the first instructor launch, kept in the hub's private folder
  (:class:`hub.lti_broker.CourseContexts`). A launch from any other course — its instructor's, its TA's, its
  learner's — is refused, and so is a learner's before the course knows its context: with one tool registration for a
  whole LMS (Moodle's usual, Canvas's at account level), every course's instructors can add the link.
* **Who is who.** A learner is the hub user named from their ``sub`` (:func:`coursekit.identity.hub_user`), made a
  Unix user at their first launch; every instructor launch of the course lands in the course's instructor account
  (the course is theirs: ``~/course``), which is the hub's admin. A launch of another deployment than the settings
  name, of another course, or with neither role, gets a page saying so and what to do (:func:`refusal`), not a hub
  error: styled as the hub's pages, in the launcher's language first (:func:`launch_language`: their edition's, their
  LMS's locale, their browser's), one piece of advice, never a library's message (that goes to the hub's log).
* **Where to land.** A learner in their Lab, the launch's assignment fetched and open
  (:mod:`coursekit.plugins.open_assignment`); an instructor in theirs. Never where the unsigned login initiation
  asked (its ``target_link_uri``): only the signed claims decide.
* **No other door.** ``/hub/login`` accepts the instructor account's password (the documented local admin) and
  nothing else: upstream's ``authenticate`` would take any form's ``sub`` as a name.
* Each accepted launch is kept for the course (:class:`hub.lti_broker.LaunchBook`), never its token.
"""
import dataclasses
import html
import pathlib
import time
from secrets import compare_digest

import jwt
from jupyterhub.handlers.login import LoginHandler
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.error import InvalidAudienceError, ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13ConfigHandler, LTI13LoginInitHandler
from tornado import web
from traitlets import Bool, Set, Unicode

from coursekit.assignments import CourseKit, assignment_of
from coursekit.identity import from_lms
from coursekit.language import DEFAULT, LANGUAGES, SPOKEN, WORDS, marked
from coursekit.lms.launch import INSTRUCTOR, LEARNER, Launch, language_of
from coursekit.settings import course_config
from hub import accounts, lti_broker

__all__ = ["CourseLTIAuthenticator", "Refused", "SeenNonces", "refusal", "landing", "launch_language", "page"]

DEPLOYMENT = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
SHOWN = 120  # characters of an LMS course's id or title a refusal repeats


class SeenNonces:
    """Nonces already used, each until its token expires: a second use is a replay."""

    def __init__(self):
        self.until = {}

    def first_use(self, nonce: str, expires: float, now: float) -> bool:
        self.until = {n: t for n, t in self.until.items() if t >= now}
        if not nonce or nonce in self.until:
            return False
        self.until[nonce] = max(expires, now)
        return True


@dataclasses.dataclass(frozen=True)
class Refused:
    """Why a launch may not log in (``what``) and the one thing to do (``advice``): two messages of the course's
    catalogue, with their ``values`` (anyone's text among them: escaped where shown)."""
    status: int
    what: str
    advice: str
    values: tuple = ()  # (placeholder, value) pairs

    def said(self, lang: str) -> tuple:
        values = dict(self.values)
        return WORDS.say(lang, self.what, **values), WORDS.say(lang, self.advice, **values)


def refusal(claims: dict, deployments, contexts) -> Refused | None:
    """Why a valid launch still may not log in (None when it may). ``contexts``: the course's own LMS contexts
    (:class:`hub.lti_broker.CourseContexts`), () while none is known."""
    launch = Launch.from_claims(claims)
    if deployments and claims.get(DEPLOYMENT) not in deployments:
        return Refused(403, marked("hub.deployment"), marked("hub.deployment_advice"),
                       (("deployment", repr(claims.get(DEPLOYMENT))),))
    if launch.role not in (LEARNER, INSTRUCTOR):
        roles = ", ".join(r.rsplit("#", 1)[-1] for r in launch.roles) or "-"
        return Refused(403, marked("hub.role"), marked("hub.role_advice"), (("roles", roles),))
    return _context_refusal(launch, contexts)


def _shown(text: str) -> str:
    """An LMS course's id or title as its launch gave it (anyone's text: another course's instructor chose it), quoted,
    control characters written as escapes, cut short; :func:`page` escapes it for HTML."""
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "…")


def _context_refusal(launch: Launch, contexts) -> Refused | None:
    """The course's own contexts only; before one is known, the first instructor launch's (it becomes the course's)."""
    if not launch.context_id:
        return Refused(403, marked("hub.no_context"), marked("hub.no_context_advice"))
    if launch.context_id in contexts or (not contexts and launch.role == INSTRUCTOR):
        return None
    if not contexts:
        return Refused(403, marked("hub.not_linked"), marked("hub.not_linked_advice"))
    shown = (("title", _shown(launch.context_title)), ("cid", _shown(launch.context_id)))
    if launch.role == INSTRUCTOR:
        return Refused(403, marked("hub.other_course_instructor"), marked("hub.other_course_instructor_advice"), shown)
    return Refused(403, marked("hub.other_course"), marked("hub.other_course_advice"), shown)


INVALID = Refused(400, marked("hub.invalid"), marked("hub.invalid_advice"))  # what a launch failing upstream's checks
WRONG_AUDIENCE = dataclasses.replace(INVALID, status=401)                       # is told (the library's words: the log)
REPLAYED = Refused(400, marked("hub.replayed"), marked("hub.replayed_advice"))


def launch_language(claims: dict | None, config=None, accepted: str = "") -> str:
    """The language a person launching is spoken to in: their launch's edition (the assignment it opens), else the
    language its custom parameters or its locale name, else the browser's first (``accepted``: Accept-Language), else
    the course's; always one the catalogues speak."""
    launch = None
    if claims:
        try:
            launch = Launch.from_claims(claims)
        except (KeyError, TypeError, ValueError):  # an unverified token's claims may be anything
            launch = None
    return spoken_language(launch, config, accepted)


def spoken_language(launch: Launch | None, config=None, accepted: str = "") -> str:
    """:func:`launch_language` of a launch already read (None: none to read)."""
    found = []
    if launch is not None:
        assignment = launch.assignment(config) if config is not None else ""
        found += [assignment_of(assignment, config).language] if assignment else []
        found += [str(launch.custom.get("language", "")), language_of(launch.locale)]
    found += [language_of(part.split(";")[0].strip()) for part in accepted.split(",")]
    default = CourseKit(config=config).language if config is not None else DEFAULT
    return next((lang for lang in found if lang in SPOKEN), default)


def unverified_claims(token: str) -> dict:
    """What a launch's ``id_token`` claims without any check: only to choose the language its refusal is said in."""
    try:
        return jwt.decode(token, options={"verify_signature": False}) if token else {}
    except jwt.PyJWTError:
        return {}


def landing(base_url: str, launch: Launch, config=None) -> str:
    """Where a launch lands: a learner's assignment opened (fetched first) in their Lab, with the launch's language
    (JupyterLab's own words follow it: :mod:`coursekit.plugins.lab_locale`), or the Lab."""
    assignment = launch.assignment(config) if launch.role == LEARNER else ""
    if not assignment:
        return url_path_join(base_url, "user-redirect", "lab")
    language = spoken_language(launch, config)
    return url_path_join(base_url, "user-redirect", f"coursekit/open/{assignment}") + f"?language={language}"


def page(refused: Refused, lang: str, stylesheet: str = "") -> str:
    """A refused launch's page, styled as the hub's own pages (``stylesheet``: the hub's CSS): in ``lang`` first,
    what happened and the one thing to do; the same in the course's other languages below, folded, for a guess gone
    wrong. Nothing on it comes from a library's error or unescaped from a launch."""
    def said(language: str) -> str:
        title = html.escape(WORDS.say(language, "hub.refused_title"))
        what, advice = (html.escape(text) for text in refused.said(language))
        return f'<h1>{title}</h1><p>{what}</p><p class="advice"><strong>{advice}</strong></p>'

    def folded(other: str) -> str:
        tag, name = WORDS.say(other, "locale.html_lang"), html.escape(WORDS.say(other, "locale.name"))
        return f'<details lang="{tag}"><summary>{name}</summary>{said(other)}</details>'

    tag, title = WORDS.say(lang, "locale.html_lang"), html.escape(WORDS.say(lang, "hub.refused_title"))
    others = "".join(folded(other) for other in LANGUAGES if other != lang) if lang in LANGUAGES else ""
    link = f'<link rel="stylesheet" href="{html.escape(stylesheet)}">' if stylesheet else ""
    return (f'<!DOCTYPE html><html lang="{tag}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{refused.status}: {title}'
            f'</title>{link}</head><body><div class="container"><div class="error">{said(lang)}{others}</div></div>'
            '</body></html>')


class CourseCallbackHandler(LTI13CallbackHandler):
    """The launch: upstream's checks, then :func:`refusal`, the one-use nonce, the log-in and the landing."""

    launch = None

    async def post(self):
        try:
            claims = self.decode_and_validate_launch_request()
        except ValidationError as error:  # a forged, expired, wrongly addressed or malformed id_token
            refused = WRONG_AUDIENCE if isinstance(error, InvalidAudienceError) else INVALID
            return self.refuse(refused, None, why=str(error))  # the library's words for the log, never the page
        auth = self.authenticator
        try:
            contexts = auth.course_contexts()
            known = contexts.known()
        except OSError as error:  # the machine's: nobody is let in on a guess
            return self.refuse(Refused(500, marked("hub.no_contexts"), marked("hub.no_contexts_advice"),
                                       (("error", str(error)),)), claims)
        refused = refusal(claims, auth.deployment_ids, known)
        if refused is not None:
            return self.refuse(refused, claims)
        if not auth.nonces.first_use(claims.get("nonce", ""), float(claims["exp"]), time.time()):
            return self.refuse(REPLAYED, claims)
        self.launch = Launch.from_claims(claims)
        if not known:  # no await since known() was read: two first launches cannot both claim the course
            contexts.record_first(self.launch)
            self.log.warning("LTI: this hub now serves the LMS course %s (context id %s), linked by the launch of %s",
                             _shown(self.launch.context_title), _shown(self.launch.context_id), self.launch.student)
        user = await self.login_user(claims)
        if user is None:
            raise web.HTTPError(403, "the launch was valid but the hub did not log you in: see the hub's log")
        self.authenticator.launch_book().record(user.name, self.launch)
        self.redirect(landing(self.hub.base_url, self.launch, course_config(self.authenticator.course_dir)))

    def refuse(self, refused: Refused, claims: dict | None, why: str = "") -> None:
        """A refused launch: on a page of its own (no one is logged in), in the launcher's language (the claims', or
        an unverified token's, or the browser's); in the hub's log in the course's language, with ``why`` (a
        library's error) beside it."""
        config = course_config(self.authenticator.course_dir) if self.authenticator.course_dir else None
        if claims is None:
            claims = unverified_claims(self.get_body_argument("id_token", ""))
        lang = launch_language(claims, config, self.request.headers.get("Accept-Language", ""))
        said = refused.said(CourseKit(config=config).language if config is not None else DEFAULT)[0]
        self.log.warning("LTI launch refused (%d): %s%s", refused.status, said, f" ({why})" if why else "")
        self.set_status(refused.status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(page(refused, lang, self.static_url("css/style.min.css")))


class CourseLTIAuthenticator(LTI13Authenticator):
    """See the module's docstring; every setting is written by :func:`hub.lti.configure`."""

    login_service = None  # /hub/login shows the password form: for the local admin only
    instructor = Unicode(config=True, help="the course's instructor account: every instructor launch lands there; "
                                           "the only account /hub/login accepts (with local_password)")
    local_password = Unicode(config=True, help="the instructor account's password at /hub/login")
    unix_users = Bool(True, config=True, help="make each learner a Unix user at their first launch")
    deployment_ids = Set(Unicode(), config=True, help="launches of other deployments are refused (empty: any)")
    context_ids = Set(Unicode(), config=True, help="the course's LMS contexts: launches of others are refused "
                                                   "(empty: the context of the first instructor launch)")
    token_url = Unicode(config=True, help="the LMS's OAuth2 token endpoint")
    token_audience = Unicode(config=True, help="the client assertion's aud (the LMS's token endpoint, usually)")
    course_dir = Unicode(config=True, help="the instructor's course: its assignments decide where a launch lands")
    private_dir = Unicode(config=True, help="the hub's private LTI folder: the tool's key, the launches")
    broker_services = Set(Unicode(), config=True, help="hub services the course's token broker answers")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.nonces = SeenNonces()

    def login_url(self, base_url):
        return url_path_join(base_url, "login")  # upstream's would send a visitor without a launch to a 400

    def get_handlers(self, app):
        return [(url_path_join("/lti13", "oauth_login"), LTI13LoginInitHandler),
                (url_path_join("/lti13", "oauth_callback"), CourseCallbackHandler),
                (url_path_join("/lti13", "config"), LTI13ConfigHandler), *lti_broker.handlers()]

    def tool_key(self) -> lti_broker.ToolKey:
        return lti_broker.ToolKey(pathlib.Path(self.private_dir) / lti_broker.KEY)

    def course_contexts(self) -> lti_broker.CourseContexts:
        return lti_broker.CourseContexts(pathlib.Path(self.private_dir) / lti_broker.CONTEXT, self.context_ids)

    def launch_book(self) -> lti_broker.LaunchBook:
        return lti_broker.LaunchBook(pathlib.Path(self.private_dir) / lti_broker.LAUNCHES)

    async def authenticate(self, handler, data=None):
        if isinstance(handler, CourseCallbackHandler) and handler.launch is not None:
            launch = handler.launch
            name = self.instructor if launch.role == INSTRUCTOR else launch.student
            return {"name": name, "admin": launch.role == INSTRUCTOR}
        if isinstance(handler, LoginHandler) and (data or {}).get("username") == self.instructor and \
                compare_digest(str((data or {}).get("password", "")).encode(), self.local_password.encode()):
            return {"name": self.instructor}
        return None

    def check_allowed(self, username, authentication=None):
        return authentication is not None  # only what authenticate() returned logs in

    def add_user(self, user):
        super().add_user(user)
        if self.unix_users and from_lms(user.name):
            accounts.ensure_unix_user(user.name)

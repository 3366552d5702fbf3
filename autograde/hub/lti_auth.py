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
  error.
* **Where to land.** A learner in their Lab, the launch's assignment fetched and open
  (:mod:`coursekit.plugins.open_assignment`); an instructor in theirs. Never where the unsigned login initiation
  asked (its ``target_link_uri``): only the signed claims decide.
* **No other door.** ``/hub/login`` accepts the instructor account's password (the documented local admin) and
  nothing else: upstream's ``authenticate`` would take any form's ``sub`` as a name.
* Each accepted launch is kept for the course (:class:`hub.lti_broker.LaunchBook`), never its token.
"""
import html
import pathlib
import time
from secrets import compare_digest

from jupyterhub.handlers.login import LoginHandler
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.error import InvalidAudienceError, ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13ConfigHandler, LTI13LoginInitHandler
from tornado import web
from traitlets import Bool, Set, Unicode

from coursekit.identity import from_lms
from coursekit.lms.launch import INSTRUCTOR, LEARNER, Launch
from coursekit.settings import course_config
from hub import accounts, lti_broker

__all__ = ["CourseLTIAuthenticator", "SeenNonces", "refusal", "landing"]

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


def refusal(claims: dict, deployments, contexts) -> tuple:
    """(HTTP status, what the person is told) when a valid launch still may not log in; (0, "") when it may.
    ``contexts``: the course's own LMS contexts (:class:`hub.lti_broker.CourseContexts`), () while none is known."""
    launch = Launch.from_claims(claims)
    if deployments and claims.get(DEPLOYMENT) not in deployments:
        return 403, (f"This link comes from an LMS deployment this hub does not serve ({claims.get(DEPLOYMENT)!r}). "
                     "Ask the hub's administrator to add it (deployment_id in the hub's LTI settings).")
    if launch.role not in (LEARNER, INSTRUCTOR):
        roles = ", ".join(r.rsplit("#", 1)[-1] for r in launch.roles) or "none"
        where = _shown(launch.context_title) if launch.context_title else "this course"
        return 403, (f"This course is for its learners and instructors; your LMS gives you the role(s) {roles} in "
                     f"{where}. Ask the course's instructor to enrol you as a learner.")
    return _context_refusal(launch, contexts)


def _shown(text: str) -> str:
    """An LMS course's id or title as its launch gave it (anyone's text: another course's instructor chose it), quoted,
    control characters written as escapes, cut short; :func:`page` escapes it for HTML."""
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "…")


def _context_refusal(launch: Launch, contexts) -> tuple:
    """The course's own contexts only; before one is known, the first instructor launch's (it becomes the course's)."""
    if not launch.context_id:
        return 403, ("The LMS sent this launch without its course (no context): open the link from the course's page "
                     "in the LMS.\n学习平台发来的这次登录没有注明课程：请从学习平台上的课程页面打开此链接。")
    if launch.context_id in contexts or (not contexts and launch.role == INSTRUCTOR):
        return 0, ""
    if not contexts:
        return 403, ("This course is not linked to its LMS course yet: its instructor links it by opening this link "
                     "once. Try again after they have, and tell them if this page stays.\n"
                     "本课程还没有与学习平台上的课程关联：老师从此链接进入一次即可关联。请在老师进入后再试；如果仍看到此页，请告诉老师。")
    title, cid = _shown(launch.context_title), _shown(launch.context_id)
    if launch.role == INSTRUCTOR:
        return 403, (f"This link is in the LMS course {title} (context id {cid}), and this hub serves another LMS "
                     "course: only that course's instructors and learners get in. If your course is a section of this "
                     f"hub's class, ask the hub's administrator to add {cid} to context_ids in the hub's LTI settings "
                     "file and restart the hub (docs/deploy-lms.md); otherwise your course needs a hub of its own.\n"
                     f"此链接来自学习平台上的课程 {title}（context id {cid}），而本服务器服务的是另一门课程，只让该课程的老师和学生进入。"
                     f"如果你的课程是本课程的一个班，请服务器管理员把 {cid} 加入 LTI 设置文件的 context_ids 并重启服务器；"
                     "否则你的课程需要自己的服务器。")
    return 403, (f"This link is in the LMS course {title} (context id {cid}), which this hub does not serve. Tell "
                 "your instructor: the hub's administrator can add that course (context_ids in the hub's LTI "
                 f"settings).\n此链接来自学习平台上的课程 {title}（context id {cid}），本服务器不服务于该课程。"
                 "请告诉老师：服务器管理员可以在 LTI 设置的 context_ids 中加入该课程。")


def landing(base_url: str, launch: Launch, config=None) -> str:
    """Where a launch lands: a learner's assignment opened (fetched first) in their Lab, or the Lab."""
    assignment = launch.assignment(config) if launch.role == LEARNER else ""
    path = f"coursekit/open/{assignment}" if assignment else "lab"
    return url_path_join(base_url, "user-redirect", path)


def page(status: int, message: str) -> str:
    """A plain page for a refused launch, in the words of :func:`refusal`."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{status}: the course</title></head><body>"
            "<h1>You cannot open the course from this link</h1>"
            + "".join(f"<p>{html.escape(line)}</p>" for line in message.splitlines()) +
            "<p>无法从此链接进入课程。请联系课程老师。</p></body></html>")


class CourseCallbackHandler(LTI13CallbackHandler):
    """The launch: upstream's checks, then :func:`refusal`, the one-use nonce, the log-in and the landing."""

    launch = None

    async def post(self):
        try:
            claims = self.decode_and_validate_launch_request()
        except ValidationError as error:  # a forged, expired, wrongly addressed or malformed id_token
            status = 401 if isinstance(error, InvalidAudienceError) else 400
            return self.refuse(status, f"The LMS's launch could not be accepted: {error}. Open the course from the "
                                       "LMS's course page again.")
        auth = self.authenticator
        try:
            contexts = auth.course_contexts()
            known = contexts.known()
        except OSError as error:  # the machine's: nobody is let in on a guess
            return self.refuse(500, f"The hub cannot tell which LMS course it serves ({error}). The hub's "
                                    "administrator: repair or remove that file (docs/deploy-lms.md).")
        status, message = refusal(claims, auth.deployment_ids, known)
        if status:
            return self.refuse(status, message)
        if not auth.nonces.first_use(claims.get("nonce", ""), float(claims["exp"]), time.time()):
            return self.refuse(400, "This launch was used already (a replay). Open the course from the LMS again.")
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

    def refuse(self, status: int, message: str) -> None:
        """A refused launch: ``message`` on a page of its own (no one is logged in), its first line in the hub's log."""
        self.log.warning("LTI launch refused (%d): %s", status, message.splitlines()[0])
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(page(status, message))


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

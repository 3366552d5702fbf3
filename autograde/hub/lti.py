"""The hub inside an LMS: its LTI 1.3 settings, read from one file, and what they change in the hub.

``make hub LTI=<file>`` (``python -m hub --lti <file>``) reads a TOML file of what the LMS's administrator gives
(docs/deploy-lms.md has the values per LMS):

    issuer        = "https://canvas.instructure.com"        # the platform's issuer (iss)
    client_id     = "10000000000042"                        # the tool's client id there
    deployment_id = "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"   # optional: launches of other deployments refused
    context_ids   = ["4dde05e8ca1973bcca9bffc13e1548820eee93a3"]     # optional: the course's LMS course(s); without
                                                            # it, the first instructor launch's course (kept)
    authorize_url = "https://sso.canvaslms.com/api/lti/authorize_redirect"   # OIDC authentication endpoint
    jwks_url      = "https://sso.canvaslms.com/api/lti/security/jwks"        # the platform's public keys
    token_url     = "https://sso.canvaslms.com/login/oauth2/token"           # OAuth2 token endpoint (AGS, NRPS)
    token_audience = ""                                     # optional: the client assertion's aud (default token_url)
    public_url    = "https://hub.example.edu/"              # optional: the hub as the LMS reaches it (default its URL)

Without it the hub is exactly as before (the plan's ``lti`` is None and nothing here runs). With it:

* log-in is the LMS's launch (:mod:`hub.lti_auth`, on ``jupyterhub-ltiauthenticator``), from the course's own LMS
  course(s) only (``context_ids``, else the first instructor launch's: :func:`contexts_line` says which);
  ``/hub/login`` takes the course's instructor account's password only (the documented local admin, for when the LMS
  is away);
* students are not made in advance: each learner's Unix user is made at their first launch, named from their
  ``sub`` (:func:`coursekit.identity.hub_user`);
* the tool's private key is made once in the hub's private folder (``<state>/hub/lti/``, the hub's user only) and
  its public half served at ``/hub/lti13/jwks`` (:mod:`hub.lti_broker`, which also hands the course its tokens);
* the course gets ``lms/`` (:mod:`coursekit.lms.outbox`), and JupyterHub runs the course's LMS sync
  (``python -m coursekit.lms run``) as the instructor, beside the grading service.
"""
import dataclasses
import os
import pathlib
import tomllib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from coursekit.identity import from_lms
from coursekit.language import WORDS
from coursekit.lms import hub_client
from hub import lti_broker

__all__ = ["LTISettings", "load", "registration", "contexts_line", "launched_users", "ensure_tool_key", "prepare",
           "configure", "SERVICE"]

SERVICE = "lms-sync"  # the managed service posting scores; the broker answers it and the instructor only
REQUIRED = ("issuer", "client_id", "authorize_url", "jwks_url", "token_url")


@dataclasses.dataclass(frozen=True)
class LTISettings:
    issuer: str
    client_id: str
    authorize_url: str
    jwks_url: str
    token_url: str
    deployment_id: str = ""
    token_audience: str = ""
    public_url: str = ""
    context_ids: tuple = ()   # the LMS courses whose launches the hub accepts (empty: the first instructor launch's)


def load(path) -> LTISettings:
    """The settings in the TOML file ``path``; a ValueError naming the file and the setting when one is wrong."""
    path = pathlib.Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"LTI settings {path}: cannot be read as TOML: {error}") from None
    known = {f.name for f in dataclasses.fields(LTISettings)}
    for name in sorted(set(data) - known):
        raise ValueError(f"LTI settings {path}: unknown setting {name!r}; expected some of {', '.join(sorted(known))}")
    for name in REQUIRED:
        if not isinstance(data.get(name), str) or not data[name].strip():
            raise ValueError(f"LTI settings {path}: {name} must be a non-empty string (the LMS gives it: "
                             f"docs/deploy-lms.md), got {data.get(name)!r}")
    for name in ("authorize_url", "jwks_url", "token_url"):
        if not data[name].startswith(("https://", "http://")):
            raise ValueError(f"LTI settings {path}: {name} must be an http(s) URL, got {data[name]!r}")
    contexts = data.pop("context_ids", [])
    if not isinstance(contexts, list) or not all(isinstance(c, str) and c.strip() for c in contexts):
        raise ValueError(f"LTI settings {path}: context_ids must be a list of the LMS course's context ids, such as "
                         f'["course-v1:Uni+CS101+2027"] (a refused launch\'s page names its own), got {contexts!r}')
    return LTISettings(**{k: str(v).strip() for k, v in data.items()}, context_ids=tuple(c.strip() for c in contexts))


def _tool_url(plan) -> str:
    return (plan.lti.get("public_url") or plan.url).rstrip("/") + "/"


def registration(plan) -> dict:
    """What the LMS's administrator types in for this hub (printed by ``make hub``, tabled in docs/deploy-lms.md)."""
    hub = _tool_url(plan) + "hub/"
    return {"login initiation URL": hub + "lti13/oauth_login", "redirect URI": hub + "lti13/oauth_callback",
            "target link URI": hub, "public JWKS URL": hub + hub_client.JWKS_PATH}


def contexts_line(plan) -> str:
    """Which LMS course(s) the hub of ``plan`` serves, and how it knows (``make hub`` prints it)."""
    contexts = lti_broker.CourseContexts(_private(plan.state) / lti_broker.CONTEXT, plan.lti.get("context_ids") or ())
    try:
        first = {} if contexts.named else contexts.recorded()
    except OSError as error:
        return f"The LMS course: unknown, every launch is refused until this is repaired: {error}"
    if contexts.named:
        return f"The LMS course(s), as the settings name them: {', '.join(map(repr, contexts.named))}"
    if first:
        return (f"The LMS course: {first['context_id']!r} ({first.get('title', '')!r}), linked by its first "
                f"instructor launch (context_ids in the settings overrides it)")
    return ("The LMS course: not linked yet. The first instructor launch links it; until then learners are turned "
            "away (or name it: context_ids in the settings)")


def launched_users(state) -> list:
    """The hub users LMS launches made on the hub of ``state`` (for ``make hub-remove``)."""
    import json

    try:
        launches = json.loads((_private(state) / lti_broker.LAUNCHES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return sorted(name for name in launches if from_lms(name))


def _private(state) -> pathlib.Path:
    return pathlib.Path(state) / "hub" / "lti"


def key_file(plan) -> pathlib.Path:
    return _private(plan.state) / lti_broker.KEY


def ensure_tool_key(path: pathlib.Path) -> pathlib.Path:
    """The tool's RSA key at ``path`` (made once, mode 600 in a 700 folder: the hub's user only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    if not path.exists():
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
    path.chmod(0o600)
    return path


def prepare(plan) -> None:
    """Before the hub starts: the tool's key, and the course's ``lms/`` folder (the instructor's)."""
    from coursekit.lms.outbox import folder
    from hub import accounts

    ensure_tool_key(key_file(plan))
    course_lms = folder(plan.course_dir())
    course_lms.mkdir(exist_ok=True)
    if plan.unix_users:
        accounts.chown_tree(course_lms, plan.instructor)


def configure(c, plan) -> None:
    """The hub's settings for LTI (``jupyterhub_config.py`` calls this when the plan has LTI settings)."""
    from hub.lti_auth import CourseLTIAuthenticator

    lti, auth = plan.lti, "CourseLTIAuthenticator"
    c.JupyterHub.authenticator_class = CourseLTIAuthenticator
    c[auth].issuer, c[auth].client_id = lti["issuer"], {lti["client_id"]}
    c[auth].authorize_url, c[auth].jwks_endpoint = lti["authorize_url"], lti["jwks_url"]
    c[auth].deployment_ids = {lti["deployment_id"]} if lti.get("deployment_id") else set()
    c[auth].context_ids = set(lti.get("context_ids") or ())
    c[auth].token_url, c[auth].token_audience = lti["token_url"], lti.get("token_audience") or lti["token_url"]
    c[auth].instructor, c[auth].local_password = plan.instructor, plan.passwords[plan.instructor]
    c[auth].unix_users, c[auth].course_dir = plan.unix_users, str(plan.course_dir())
    c[auth].private_dir, c[auth].broker_services = str(key_file(plan).parent), {SERVICE}
    c[auth].uri_scheme = "https" if _tool_url(plan).startswith("https://") else "http"
    c.Authenticator.allowed_users, c.Authenticator.allow_all = set(), False
    # the log-in page's note, before anyone is known: in every language of the course
    announcement = " / ".join(WORDS.every("hub.login_announcement").values())
    c.JupyterHub.template_vars = {**c.JupyterHub.get("template_vars", {}), "announcement_login": announcement}
    grading = next(s for s in c.JupyterHub.services if s["name"] == "grading-service")
    course = str(plan.course_dir())
    c.JupyterHub.services.append({**grading, "name": SERVICE,
                                  "command": [plan.python, "-m", "coursekit.lms", "run", "--course", course]})

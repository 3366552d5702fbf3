"""What only the hub holds for the course's LMS, and the three endpoints that use it.

* ``GET /hub/lti13/jwks`` — the tool's public key, for the LMS to check what the hub signs (public, as LTI wants).
* ``POST /hub/lti13/course/token`` — an OAuth2 access token for AGS/NRPS scopes: the hub signs a client assertion
  (RFC 7523: iss = sub = the client id, aud = the token endpoint, a few minutes' life, a fresh ``jti``) with the tool's
  private key, exchanges it at the LMS's token endpoint and returns the LMS's answer. The key never leaves the hub's
  process; what the course gets expires within the hour.
* ``GET /hub/lti13/course/launches`` — the course's own LMS contexts (:class:`CourseContexts`) and each hub user's
  last launch from each context (:class:`LaunchBook`), kept in the hub's private folder, as one
  :class:`coursekit.lms.launch.CourseLaunches`.

The last two answer a hub API token of the course's instructor or of its LMS sync service only; a student's token,
a browser's cookie or no token gets 403. The paths are :mod:`coursekit.lms.hub_client`'s.
"""
import base64
import hashlib
import json
import pathlib
import secrets
import time
import urllib.parse

import jwt
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from jupyterhub import orm
from jupyterhub.apihandlers.base import APIHandler
from jupyterhub.handlers import BaseHandler
from tornado import web
from tornado.httpclient import AsyncHTTPClient, HTTPClientError

from coursekit.lms.hub_client import JWKS_PATH, LAUNCHES_PATH, TOKEN_PATH
from coursekit.lms.launch import CourseLaunches, Launch
from coursekit.lms.outbox import write_json

__all__ = ["ToolKey", "LaunchBook", "CourseContexts", "client_assertion", "handlers"]

KEY, LAUNCHES, CONTEXT = "tool-key.pem", "launches.json", "course-context.json"  # in the hub's private LTI folder
ASSERTION_SECONDS = 300
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


class ToolKey:
    """The tool's private key (PEM file readable by the hub's user only) and its public JWK (``kid``: RFC 7638's
    thumbprint, stable for the key)."""

    def __init__(self, path):
        self.pem = pathlib.Path(path).read_bytes()
        public = jwt.algorithms.RSAAlgorithm.to_jwk(load_pem_private_key(self.pem, None).public_key(), as_dict=True)
        canonical = json.dumps({k: public[k] for k in ("e", "kty", "n")}, separators=(",", ":"), sort_keys=True)
        self.kid = base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).decode().rstrip("=")
        public.pop("key_ops", None)  # "use" says it: a JWK should not carry both
        self.jwk = {**public, "kid": self.kid, "alg": "RS256", "use": "sig"}


def client_assertion(key: ToolKey, client_id: str, audience: str, now=time.time) -> str:
    """The signed JWT the hub presents at the LMS's token endpoint."""
    issued = int(now())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "iat": issued, "exp": issued + ASSERTION_SECONDS,
              "jti": secrets.token_urlsafe(24)}
    return jwt.encode(claims, key.pem, algorithm="RS256", headers={"kid": key.kid})


class LaunchBook:
    """Each hub user's last launch from each LMS context (every instructor of every section lands in one account),
    in one JSON file of the hub's private folder (``{user: {context id: launch}}``, rewritten with one rename)."""

    def __init__(self, path):
        self.path = pathlib.Path(path)

    def _read(self) -> dict:
        try:
            book = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        # a book written before launches were kept per context holds one launch per user: read it as its context's
        return {user: kept if all(isinstance(x, dict) for x in kept.values()) else {kept.get("context_id", ""): kept}
                for user, kept in book.items()}

    def all(self) -> list:
        """Every launch kept, as dicts (:meth:`coursekit.lms.launch.Launch.to_dict`)."""
        return [launch for kept in self._read().values() for launch in kept.values()]

    def record(self, user: str, launch: Launch) -> None:
        book = self._read()
        write_json(self.path, {**book, user: {**book.get(user, {}), launch.context_id: launch.to_dict()}})


class CourseContexts:
    """The LMS course(s) this hub serves, by context id: those the settings file names (``context_ids``), else the
    context of the first instructor launch it accepted, kept in the hub's private folder so that a restart keeps it;
    () while neither. Launches of any other context are refused (:func:`hub.lti_auth.refusal`)."""

    def __init__(self, path, named=()):
        self.path, self.named = pathlib.Path(path), tuple(sorted(named))

    def recorded(self) -> dict:
        """What the first instructor launch left (context id and title, who and when); {} before it. A file that is
        there but cannot be read raises OSError: no launch is let in on a guess."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError as error:
            raise OSError(f"{self.path} is not the JSON the hub wrote: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("context_id"), str) or not data["context_id"]:
            raise OSError(f"{self.path} names no context_id")
        return data

    def known(self) -> tuple:
        if self.named:
            return self.named
        first = self.recorded()
        return (first["context_id"],) if first else ()

    def record_first(self, launch: Launch) -> None:
        """``launch``'s context becomes the course's (the first instructor launch, while nothing names one)."""
        write_json(self.path, {"context_id": launch.context_id, "title": launch.context_title, "sub": launch.sub,
                               "at": launch.at})


class JWKSHandler(BaseHandler):
    def check_xsrf_cookie(self):
        return

    def get(self):
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"keys": [self.authenticator.tool_key().jwk]}))


class _CourseOnly(APIHandler):
    """Answers the course's instructor and its LMS sync service, with a hub API token (never a cookie)."""

    def check_allowed(self) -> None:
        caller, auth = self.current_user, self.authenticator
        allowed = caller.name in auth.broker_services if isinstance(caller, orm.Service) else \
            getattr(caller, "name", None) == auth.instructor
        if caller is None or not self._token_authenticated or not allowed:
            raise web.HTTPError(403, "only the course's instructor and its LMS sync service may ask for this "
                                     "(with their hub API token)")


class TokenHandler(_CourseOnly):
    async def post(self):
        self.check_allowed()
        scopes = (self.get_json_body() or {}).get("scopes") or []
        if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
            raise web.HTTPError(400, 'send {"scopes": ["https://purl.imsglobal.org/spec/lti-ags/scope/score", …]}')
        self.finish(json.dumps(await self._exchange(scopes)))

    async def _exchange(self, scopes: list) -> dict:
        auth = self.authenticator
        form = {"grant_type": "client_credentials", "client_assertion_type": JWT_BEARER, "scope": " ".join(scopes),
                "client_assertion": client_assertion(auth.tool_key(), next(iter(auth.client_id)), auth.token_audience)}
        try:
            answer = await AsyncHTTPClient().fetch(auth.token_url, method="POST", request_timeout=15,
                                                   body=urllib.parse.urlencode(form))
        except HTTPClientError as error:
            said = error.response.body[:300].decode("utf-8", "replace") if error.response else str(error)
            raise web.HTTPError(502 if error.code >= 500 or error.code == 599 else 400,
                                f"the LMS's token endpoint {auth.token_url} answered {error.code}: {said}") from None
        except OSError as error:
            raise web.HTTPError(502, f"the LMS's token endpoint {auth.token_url} did not answer: {error}") from None
        return json.loads(answer.body)


class LaunchesHandler(_CourseOnly):
    def get(self):
        self.check_allowed()
        auth = self.authenticator
        told = CourseLaunches(auth.course_contexts().known(), tuple(map(Launch.from_dict, auth.launch_book().all())))
        self.finish(json.dumps(told.to_dict()))


def handlers() -> list:
    """(path under /hub/, handler) of the three endpoints."""
    return [(f"/{JWKS_PATH}", JWKSHandler), (f"/{TOKEN_PATH}", TokenHandler), (f"/{LAUNCHES_PATH}", LaunchesHandler)]

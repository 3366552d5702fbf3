"""The course asks the hub for what only the hub holds: access tokens for the LMS, and the launches it received.

The tool's private key is readable by the hub's own user only (docs/deploy-lms.md): the hub signs the client
assertion, exchanges it at the LMS's token endpoint and hands the course the short-lived access token
(``POST <hub>/lti13/course/token``). It also keeps each hub user's last launch from each LMS context, and knows
which contexts are the course's own (``GET <hub>/lti13/course/launches``).
Both answer the course's instructor and its LMS sync service only, with their own hub API token
(``JUPYTERHUB_API_TOKEN``, ``JUPYTERHUB_API_URL``: set by JupyterHub in every server, terminal and managed service).
The paths are written here once; ``autograde/hub/lti_broker.py`` serves them.
"""
import json
import os
import time
import urllib.error
import urllib.request

from .launch import CourseLaunches
from .platform import LMSDown, Refused

__all__ = ["TOKEN_PATH", "LAUNCHES_PATH", "JWKS_PATH", "HubBroker", "NoHub"]

TOKEN_PATH = "lti13/course/token"
LAUNCHES_PATH = "lti13/course/launches"
JWKS_PATH = "lti13/jwks"  # the tool's public keys, which the LMS checks the hub's signatures with
EARLY = 60.0  # a token is asked for again this long before the LMS says it expires


class NoHub(RuntimeError):
    """Not run where the hub gave a token: the command says where to run it."""


class HubBroker:
    """The hub at ``api_url`` (``…/hub/api``), asked with ``token``; tokens kept until shortly before they expire."""

    def __init__(self, api_url: str, token: str, clock=time.monotonic):
        self.base = api_url.rstrip("/").removesuffix("/api") + "/"
        self.token, self.clock, self.cache = token, clock, {}

    @classmethod
    def from_environment(cls, env=os.environ) -> "HubBroker":
        url, token = env.get("JUPYTERHUB_API_URL", ""), env.get("JUPYTERHUB_API_TOKEN", "")
        if not (url and token):
            raise NoHub("the LMS is reached through the course hub, and JUPYTERHUB_API_URL / JUPYTERHUB_API_TOKEN "
                        "are not set here: run this in a terminal of the instructor's JupyterLab on the hub")
        return cls(url, token)

    def _call(self, path: str, body=None):
        request = urllib.request.Request(self.base + path, None if body is None else json.dumps(body).encode(),
                                         {"Authorization": f"token {self.token}",
                                          "Content-Type": "application/json"}, method="GET" if body is None else "POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            said = error.read(400).decode("utf-8", "replace").strip()
            kind = LMSDown if error.code >= 500 else Refused
            raise kind(f"the hub's {path} answered {error.code}: {said}") from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise LMSDown(f"the hub at {self.base} did not answer {path}: {getattr(error, 'reason', error)}") from None

    def tokens(self, scopes) -> str:
        """A bearer token for ``scopes`` (the hub asks the LMS's token endpoint)."""
        key = " ".join(sorted(scopes))
        token, until = self.cache.get(key, ("", 0.0))
        if self.clock() < until:
            return token
        answer = self._call(TOKEN_PATH, {"scopes": sorted(scopes)})
        self.cache[key] = (answer["access_token"], self.clock() + float(answer.get("expires_in", 3600)) - EARLY)
        return answer["access_token"]

    def launches(self) -> CourseLaunches:
        """The course's LMS contexts and each hub user's last launch from each context, as the hub keeps them."""
        return CourseLaunches.from_dict(self._call(LAUNCHES_PATH))

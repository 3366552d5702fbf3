"""A small test LMS on 127.0.0.1 around a real LTI 1.3 platform from PyPI (``lti1p3platform``).

What the library does (its classes, subclassed here the way its Django and FastAPI adapters do): the OIDC login
initiation URL, the launch's claims and their RS256 signature with the platform's key, the OAuth2 token endpoint
(client credentials with the tool's signed assertion, checked against the tool's JWKS, which it fetches), and AGS's
and NRPS's request handling (bearer token and scopes checked, line items, scores, results, memberships). What this
module adds is an LMS around it: people who log in by a link, one course with a course page whose link launches the
tool, the line items and scores kept in memory, a gradebook page, and a switch that takes the LMS down (its token
endpoint and AGS answer 503) for the LMS-down row.

``TestLMS(tool_url)`` runs it in a thread of the test's process (tornado), on a free port: ``with lms.running():``.
``lms.settings_toml()`` is what ``make hub --lti`` reads. ``lms.id_token(...)`` signs claims as the platform does
(or with another key, or expired) for the launch rows that are posted without a browser.
"""
import contextlib
import dataclasses
import html
import json
import socket
import threading
import time

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService
from lti1p3platform.exceptions import LineItemNotFoundException
from tornado import httpserver, ioloop, web

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
CLIENT_ID, DEPLOYMENT_ID, CONTEXT = "attention-hub", "deployment-1", "course-ch04"


@dataclasses.dataclass(frozen=True)
class Person:
    login: str          # how the test logs in to the LMS (/login/<login>)
    sub: str            # the LMS's stable user id
    given: str
    family: str
    role: str           # Instructor, Learner, Mentor ...
    locale: str = "zh-CN"

    @property
    def name(self) -> str:
        return f"{self.given} {self.family}"

    @property
    def email(self) -> str:
        return f"{self.login}@lms.example"


PEOPLE = (Person("teacher", "u-1001", "Ada", "Teacher", "Instructor"),
          Person("student1", "u-2001", "Li", "Wei", "Learner", "zh-CN"),
          Person("student2", "u-2002", "Sam", "Jones", "Learner", "en-US"),
          Person("mentor", "u-3001", "Max", "Mentor", "Mentor"))
LINK = {"id": "link-ch04", "title": "第 4 章 · 自注意力 / Chapter 4 · Self-attention",
        "custom": {"assignment": "ch04_attention"}}


def _rsa_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def _public_pem(private_pem: str) -> str:
    key = serialization.load_pem_private_key(private_pem.encode(), None)
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()


class _Registration(Registration):
    """The library's registration with a ``kid`` on the platform's key (the tool's JWKS client needs one)."""

    KID = "test-lms-1"

    def get_kid(self):
        return self.KID

    def get_jwks(self):
        return [{**Registration.get_jwk(self.get_platform_public_key()), "kid": self.KID}]


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, registration):
        self._registration = registration

    def get_registration_by_params(self, **kwargs):
        return self._registration


class _Request(Request):
    def build_metadata(self, handler):
        body = handler.request.body
        content = handler.request.headers.get("Content-Type", "")
        form = {k: handler.get_body_argument(k) for k in handler.request.body_arguments} \
            if "form" in content else {}
        return {"method": handler.request.method, "form_data": form,
                "get_data": {k: handler.get_query_argument(k) for k in handler.request.query_arguments},
                "headers": handler.request.headers, "content_type": content, "path": handler.request.path,
                "json": json.loads(body) if body and "json" in content else None}


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["link"]

    def get_redirect(self, url):
        return url


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs):
        fields = "".join(f"<input type='hidden' name='{k}' value='{html.escape(launch_data[k])}'>"
                         for k in ("id_token", "state"))
        return (f"<!DOCTYPE html><html><body><form id='launch' method='post' action='{launch_data['launch_url']}'>"
                f"{fields}</form><script>document.getElementById('launch').submit()</script></body></html>")


class _Grades(AssignmentsGradesService):
    """AGS over the LMS's memory: line items, each with its scores' history."""

    def __init__(self, request, conf, lms):
        super().__init__(request, conf, lms.url("/lineitems"))
        self.lms = lms

    def find_lineitems(self, page=1, limit=None, line_item_id=None, resource_link_id=None, resource_id=None,
                       tag=None, **_):
        found = [item for item in self.lms.line_items.values()
                 if (resource_id is None or item.get("resourceId") == resource_id)
                 and (tag is None or item.get("tag") == tag)]
        return {"content": found, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id):
        if line_item_id not in self.lms.line_items:
            raise LineItemNotFoundException(line_item_id)
        return self.lms.line_items[line_item_id]

    def create_lineitem(self, creation_data):
        number = str(len(self.lms.line_items) + 1)
        item = {**creation_data, "id": self.lms.url(f"/lineitems/{number}")}
        self.lms.line_items[number] = item
        return item

    def update_lineitem(self, update_data):
        return self.lms.line_items[update_data["id"]].update(update_data)

    def delete_lineitem(self, line_item_id):
        self.lms.line_items.pop(line_item_id)

    def update_score(self, line_item_id, score):
        self.find_lineitem(line_item_id)
        history = self.lms.scores.setdefault(line_item_id, {}).setdefault(score["userId"], [])
        if history and score["timestamp"] < history[-1]["timestamp"]:
            return UpdateScoreStatus.OLD_TIMESTAMP
        history.append(score)
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id, page=1, limit=None, user_id=None, **_):
        latest = self.lms.results(line_item_id)
        return {"content": [{"userId": u, "resultScore": s["scoreGiven"], "resultMaximum": s["scoreMaximum"]}
                            for u, s in latest.items()], "has_next": False, "next": None}


class _Members(NamesRoleProvisioningService):
    def __init__(self, request, conf, lms):
        super().__init__(request, conf, lms.url("/memberships"))
        self.lms = lms

    def get_member_data_page(self, page=1, limit=None, role=None, since=None, **_):
        members = [{"user_id": p.sub, "roles": [MEMBERSHIP + p.role], "status": "Active", "name": p.name,
                    "given_name": p.given, "family_name": p.family, "email": p.email} for p in self.lms.people]
        return {"content": members, "has_next": False, "next": None}

    def get_context_by_id(self):
        from lti1p3platform.membership import Context
        return Context(CONTEXT, "CH04", "Attention course")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class TestLMS:
    """The LMS (see the module's docstring); ``tool_url``: the hub's public URL (``http://127.0.0.1:<port>/``)."""

    __test__ = False  # not a pytest class

    def __init__(self, tool_url: str, people=PEOPLE, link=LINK):
        self.port, self.tool_url = _free_port(), tool_url.rstrip("/") + "/"
        self.people, self.link = tuple(people), dict(link)
        self.private_pem = _rsa_pem()
        self.registration = (_Registration().set_iss(self.url("")).set_client_id(CLIENT_ID)
                             .set_deployment_id(DEPLOYMENT_ID).set_launch_url(self.tool_url + "hub/")
                             .set_oidc_login_url(self.tool_url + "hub/lti13/oauth_login")
                             .set_tool_key_set_url(self.tool_url + "hub/lti13/jwks")
                             .set_platform_private_key(self.private_pem)
                             .set_platform_public_key(_public_pem(self.private_pem)))
        self.conf = _Conf(registration=self.registration)
        self.line_items, self.scores, self.down, self.requests = {}, {}, False, []

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def person(self, login: str) -> Person:
        return next(p for p in self.people if p.login == login)

    def settings_toml(self) -> str:
        return "\n".join(f'{k} = "{v}"' for k, v in {
            "issuer": self.url(""), "client_id": CLIENT_ID, "deployment_id": DEPLOYMENT_ID,
            "authorize_url": self.url("/authorize"), "jwks_url": self.url("/jwks"),
            "token_url": self.url("/token")}.items()) + "\n"

    def results(self, line_item_id: str) -> dict:
        """``{sub: the latest score}`` of a line item."""
        return {user: history[-1] for user, history in self.scores.get(line_item_id, {}).items()}

    def gradebook(self) -> dict:
        """``{line item label: {person's login: (scoreGiven, scoreMaximum, gradingProgress)}}``."""
        by_sub = {p.sub: p.login for p in self.people}
        return {item.get("label", number): {by_sub.get(sub, sub): (s["scoreGiven"], s["scoreMaximum"],
                                                                   s["gradingProgress"])
                                            for sub, s in self.results(number).items()}
                for number, item in self.line_items.items()}

    def launch_for(self, person: Person, request=None) -> "_Launch":
        """The library's launch of the course's link for ``person``: roles, link, context, custom parameters, AGS
        (the tool may make line items), NRPS, names and locale."""
        launch = _Launch(request, self.conf)
        launch._registration = self.registration  # what lti_launch() sets; claims() builds without it
        launch.set_user_data(person.sub, [MEMBERSHIP + person.role], person.name, person.email)
        launch.set_resource_link_claim(self.link["id"], title=self.link["title"])
        launch.set_launch_context_claim(CONTEXT, context_title="Attention course", context_label="CH04")
        launch.set_custom_parameters_claim(dict(self.link["custom"]))
        launch.set_ags(self.url("/lineitems"), allow_creating_lineitems=True)
        launch.set_nrps(self.url("/memberships"))
        launch.set_extra_claims({"given_name": person.given, "family_name": person.family,
                                 "https://purl.imsglobal.org/spec/lti/claim/launch_presentation": {
                                     "locale": person.locale, "document_target": "window"}})
        return launch

    def claims(self, person: Person, nonce: str, **changes) -> dict:
        """The claims the platform would sign for ``person`` with ``nonce`` (for the rows posted without a browser)."""
        return {**self.launch_for(person).get_launch_message(), "nonce": nonce, **changes}

    def id_token(self, claims: dict, key_pem: str | None = None, expires_in: int = 300, **changes) -> str:
        """``claims`` signed as the platform signs them (``key_pem``: another key, a forgery), with ``changes``."""
        now = int(time.time())
        payload = {**claims, "iat": now, "exp": now + expires_in, **changes}
        return jwt.encode(payload, key_pem or self.private_pem, algorithm="RS256",
                          headers={"kid": _Registration.KID})

    @contextlib.contextmanager
    def running(self):
        """The LMS listening on 127.0.0.1 while the block runs, in a thread; always stopped."""
        started, box = threading.Event(), {}
        thread = threading.Thread(target=self._serve, args=(started, box), name="test-lms", daemon=True)
        thread.start()
        started.wait(10)
        try:
            yield self
        finally:
            box["loop"].add_callback(box["server"].stop)
            box["loop"].add_callback(box["loop"].stop)
            thread.join(10)

    def _serve(self, started, box) -> None:
        import asyncio
        asyncio.set_event_loop(asyncio.new_event_loop())
        loop = ioloop.IOLoop.current()
        server = httpserver.HTTPServer(self.app())
        server.listen(self.port, "127.0.0.1")
        box.update(loop=loop, server=server)
        loop.add_callback(started.set)
        loop.start()

    def app(self) -> web.Application:
        kw = {"lms": self}
        return web.Application([
            (r"/login/(\w+)", LoginHandler, kw), (r"/course", CourseHandler, kw), (r"/launch", LaunchHandler, kw),
            (r"/authorize", AuthorizeHandler, kw), (r"/jwks", JWKSHandler, kw), (r"/token", TokenHandler, kw),
            (r"/lineitems", LineItemsHandler, kw), (r"/lineitems/(\w+)", LineItemHandler, kw),
            (r"/lineitems/(\w+)/scores", ScoresHandler, kw), (r"/memberships", MembersHandler, kw),
            (r"/gradebook", GradebookHandler, kw)])


class _Handler(web.RequestHandler):
    def initialize(self, lms: TestLMS):
        self.lms = lms

    def prepare(self):
        self.lms.requests.append((self.request.method, self.request.path))

    def check_xsrf_cookie(self):
        return

    def person(self) -> Person:
        login = self.get_cookie("test_lms_user")
        if not login:
            raise web.HTTPError(401, "log in to the test LMS first: /login/<person>")
        return self.lms.person(login)

    def answer(self, response, body=None) -> None:
        """A library :class:`lti1p3platform.response.Response` as HTTP (``body``: what to write instead)."""
        self.set_status(response.code)
        self.set_header("Content-Type", response.media_type)
        result = response.result if body is None else body
        self.finish(json.dumps(result if result is not None else {"message": response.message}))

    def refuse_when_down(self) -> None:
        if self.lms.down:
            raise web.HTTPError(503, "the test LMS is down (LMS-down row)")


class LoginHandler(_Handler):
    def get(self, login):
        self.lms.person(login)
        self.set_cookie("test_lms_user", login)
        self.redirect("/course")


class CourseHandler(_Handler):
    def get(self):
        person = self.person()
        grades = "<p><a id='gradebook' href='/gradebook'>Gradebook</a></p>" if person.role == "Instructor" else ""
        self.finish(f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Attention course</title></head><body>"
                    f"<h1>Attention course</h1><p>Logged in as {html.escape(person.name)} ({person.role})</p>"
                    f"<ul><li><a id='chapter4' href='/launch' target='_self'>{html.escape(self.lms.link['title'])}</a>"
                    f"</li></ul>{grades}</body></html>")


class LaunchHandler(_Handler):
    """Third-party-initiated login: to the tool's login initiation URL (the library builds it)."""

    def get(self):
        login = _Login(None, self.lms.conf)
        login.set_lti_message_hint(link=self.lms.link["id"])
        self.redirect(login.prepare_preflight_url(self.person().login))


class AuthorizeHandler(_Handler):
    """The tool's authentication request: the logged-in person, the registered redirect, then the signed launch."""

    def get(self):
        person, args = self.person(), {k: self.get_argument(k) for k in self.request.arguments}
        if args.get("login_hint") != person.login:
            raise web.HTTPError(403, "login_hint is not the person logged in to the LMS")
        if args.get("redirect_uri") != self.lms.tool_url + "hub/lti13/oauth_callback":
            raise web.HTTPError(400, f"redirect_uri {args.get('redirect_uri')!r} is not registered")
        self.finish(self.lms.launch_for(person, _Request(self)).lti_launch())

    post = get


class JWKSHandler(_Handler):
    def get(self):
        self.finish(json.dumps(self.lms.conf.get_jwks()))


class TokenHandler(_Handler):
    def post(self):
        self.refuse_when_down()
        form = {k: self.get_body_argument(k) for k in self.request.body_arguments}
        try:
            self.finish(json.dumps(self.lms.conf.get_access_token(form)))
        except Exception as error:  # the library raises on a bad assertion: the tool is refused
            raise web.HTTPError(400, f"invalid_client: {type(error).__name__}: {error}") from None


class LineItemsHandler(_Handler):
    def get(self):
        self.refuse_when_down()
        response = _Grades(_Request(self), self.lms.conf, self.lms).handle_resp(
            _Grades(_Request(self), self.lms.conf, self.lms).handle_get_lineitems)
        self.answer(response, (response.result or {}).get("content") if response.code == 200 else None)

    def post(self):
        self.refuse_when_down()
        service = _Grades(_Request(self), self.lms.conf, self.lms)
        self.answer(service.handle_resp(service.handle_create_lineitem))


class LineItemHandler(_Handler):
    def get(self, number):
        service = _Grades(_Request(self), self.lms.conf, self.lms)
        self.answer(service.handle_resp(service.handle_get_lineitem, line_item_id=number))


class ScoresHandler(_Handler):
    def post(self, number):
        self.refuse_when_down()
        service = _Grades(_Request(self), self.lms.conf, self.lms)
        self.answer(service.handle_resp(service.handle_update_score, line_item_id=number))


class MembersHandler(_Handler):
    def get(self):
        self.refuse_when_down()
        service = _Members(_Request(self), self.lms.conf, self.lms)
        self.answer(service.handle_resp(service.handle_get_members))


class GradebookHandler(_Handler):
    """The instructor's view: one row per learner, one column per line item, score and grading progress."""

    def get(self):
        if self.person().role != "Instructor":
            raise web.HTTPError(403, "the gradebook is the instructor's")
        book, learners = self.lms.gradebook(), [p for p in self.lms.people if p.role == "Learner"]
        head = "".join(f"<th>{html.escape(label)}</th>" for label in book)
        rows = "".join(f"<tr><td>{html.escape(p.name)}</td>" + "".join(
            "<td class='{2}'>{0:g} / {1:g} · {2}</td>".format(*column[p.login]) if p.login in column else "<td>—</td>"
            for column in book.values()) + "</tr>" for p in learners)
        self.finish(f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Gradebook</title><style>"
                    "td,th{border:1px solid #999;padding:4px 10px}.PendingManual{background:#ffe9a8}"
                    ".FullyGraded{background:#c8f0c8}</style></head><body><h1>Gradebook · Attention course</h1>"
                    f"<table id='grades'><tr><th>Learner</th>{head}</tr>{rows}</table></body></html>")


"""hub.lti, hub.lti_auth, hub.lti_broker without a hub: the settings file, who may log in and how, from which LMS
course (the course's own context, linked by its first instructor launch or named in the settings), the one-use nonce,
where a launch lands, the tool's key and assertion; and ``make hub`` without LTI settings as before.

The launches posted to a real hub, in Chromium and as attacks: tests/integration/test_hub_lti.py.
"""
import asyncio
import dataclasses
import json
import logging
import pathlib
import re
import runpy
import stat
import time
import types
import uuid

import jwt
import pytest
from jupyterhub.handlers.login import LoginHandler
from traitlets.config import Config

from coursekit.language import LANGUAGES, WORDS
from coursekit.lms.launch import CLAIM, Launch
from hub import lti, lti_broker
from hub.lti_auth import (CourseCallbackHandler, CourseLTIAuthenticator, SeenNonces, landing, launch_language, page,
                          refusal)
from hub.plan import HubPlan
from support.lms_course import CONFIG
from support.lms_platform import CONTEXT, PEOPLE, TestLMS
from support.redteam import LAUNCH_ATTACKS, launch_claims, refused_as

GOOD = 'issuer = "https://lms.example"\nclient_id = "42"\nauthorize_url = "https://lms.example/auth"\n' \
       'jwks_url = "https://lms.example/jwks"\ntoken_url = "https://lms.example/token"\n'


@pytest.mark.parametrize("text, says", [
    (GOOD.replace('client_id = "42"\n', ""), "client_id must be a non-empty string"),
    (GOOD + 'colour = "red"\n', "unknown setting 'colour'"),
    (GOOD.replace('"https://lms.example/jwks"', '"lms.example/jwks"'), "jwks_url must be an http(s) URL"),
    (GOOD + 'context_ids = "course-ch04"\n', "context_ids must be a list of the LMS course's context ids"),
    (GOOD + 'context_ids = ["course-ch04", ""]\n', "context_ids must be a list"),
    ("issuer = ", "cannot be read as TOML"),
])
def test_does_a_wrong_settings_file_say_which_file_and_setting(tmp_path, text, says):
    (tmp_path / "lms.toml").write_text(text)
    with pytest.raises(ValueError, match=re.escape(f"LTI settings {tmp_path / 'lms.toml'}: ") + ".*" + re.escape(says)):
        lti.load(tmp_path / "lms.toml")


def plan_of(tmp_path, lti_settings=None) -> HubPlan:
    return HubPlan(str(tmp_path), True, "t-teacher", [], {"t-teacher": "pw"}, {"t-teacher": str(tmp_path / "home")},
                   str(tmp_path / "exchange"), "/opt/user/bin/python", "/proxy", 8000, 8001, 8002, "token",
                   lti=lti_settings)


def hub_config(plan: HubPlan, monkeypatch) -> Config:
    """``autograde/hub/jupyterhub_config.py`` as JupyterHub loads it, for ``plan``."""
    monkeypatch.setenv("ATTN_HUB_PLAN", str(plan.save()))
    config = Config()
    runpy.run_path(str(pathlib.Path(lti.__file__).with_name("jupyterhub_config.py")),
                   init_globals={"get_config": lambda: config})
    return config


def test_is_the_hub_without_lti_settings_as_before(tmp_path, monkeypatch):
    (tmp_path / "hub").mkdir()
    config = hub_config(plan_of(tmp_path), monkeypatch)
    assert config.JupyterHub.authenticator_class.__name__ == "CoursePasswordAuthenticator"
    assert [s["name"] for s in config.JupyterHub.services] == ["course-admin", "grading-service"]
    assert config.Authenticator.allowed_users == {"t-teacher"} and "CourseLTIAuthenticator" not in config


def test_does_the_hub_with_lti_settings_log_in_by_launch_and_run_the_lms_sync(tmp_path, monkeypatch):
    (tmp_path / "hub").mkdir()
    (tmp_path / "lms.toml").write_text(GOOD + 'deployment_id = "d-1"\ncontext_ids = ["c-a", " c-b "]\n')
    plan = plan_of(tmp_path, dataclasses.asdict(lti.load(tmp_path / "lms.toml")))
    config = hub_config(plan, monkeypatch)
    assert config.JupyterHub.authenticator_class is CourseLTIAuthenticator
    auth = config.CourseLTIAuthenticator
    assert (auth.client_id, auth.deployment_ids, auth.instructor) == ({"42"}, {"d-1"}, "t-teacher")
    assert auth.context_ids == {"c-a", "c-b"} and "'c-a', 'c-b'" in lti.contexts_line(plan)
    sync = config.JupyterHub.services[-1]
    assert sync["name"] == lti.SERVICE and sync["user"] == "t-teacher"
    assert sync["command"][-4:] == ["coursekit.lms", "run", "--course", str(plan.course_dir())]
    assert lti.registration(plan)["redirect URI"] == "http://127.0.0.1:8000/hub/lti13/oauth_callback"
    from coursekit.language import LANGUAGES, WORDS
    said = config.JupyterHub.template_vars["announcement_login"]  # before anyone is known: every language
    assert all(WORDS.say(lang, "hub.login_announcement") in said for lang in LANGUAGES)


def authenticator():
    return CourseLTIAuthenticator(instructor="t-teacher", local_password="secret-pw", unix_users=False)


@pytest.mark.parametrize("form, name", [
    ({"username": "t-teacher", "password": "secret-pw"}, "t-teacher"),
    ({"username": "t-teacher", "password": "guess"}, None),
    ({"sub": "u-2001", "username": "anyone", "password": ""}, None),  # upstream would log in "u-2001"
    ({"username": "lti-aaaaaaaaaaaaaaaa", "password": ""}, None),
])
def test_does_the_login_form_take_the_local_admin_only(form, name):
    form_handler = object.__new__(LoginHandler)
    found = asyncio.run(authenticator().authenticate(form_handler, form))
    assert (found or {}).get("name") == name


def test_does_a_launch_log_in_only_through_the_callback_with_its_validated_launch():
    auth, launch = authenticator(), Launch("https://lms.example", "u-2001", "learner")
    callback = object.__new__(CourseCallbackHandler)
    assert asyncio.run(auth.authenticate(callback, {"sub": "u-2001"})) is None  # no validated launch: nobody
    callback.launch = launch
    assert asyncio.run(auth.authenticate(callback, {})) == {"name": launch.student, "admin": False}
    callback.launch = dataclasses.replace(launch, role="instructor")
    assert asyncio.run(auth.authenticate(callback, {})) == {"name": "t-teacher", "admin": True}


@pytest.fixture(scope="module")
def claims():
    """A genuine launch's claims, built by the platform library (the test LMS), for a learner and the mentor."""
    lms = TestLMS("http://127.0.0.1:9/")
    return {p.login: lms.claims(p, "nonce-1") for p in PEOPLE}


COURSE = (CONTEXT,)  # the test LMS's course, as the hub knows it once linked
GENUINE = [a for a in LAUNCH_ATTACKS if a.token == "genuine"]


def test_is_a_launch_of_another_deployment_told_why(claims):
    assert refusal(claims["student1"], {"deployment-1"}, COURSE) is None
    refused = refusal(claims["student1"], {"deployment-2"}, COURSE)
    what, advice = refused.said("en")
    assert refused.status == 403 and "'deployment-1'" in what and "deployment_id" in advice


@pytest.mark.parametrize("attack", GENUINE, ids=[a.name for a in GENUINE])
def test_is_a_genuine_launch_of_the_wrong_role_or_course_refused_saying_why(claims, attack):
    """Launches the platform really signed: a mentor's; another course's instructor, TA (the course's title and id
    hostile text) and learner; the course's own instructor's newest launch, from another course she teaches. Each is
    refused on the course's page, saying what to do, the other course's text escaped."""
    refused = refusal(launch_claims(attack, claims[attack.login]), {"deployment-1"}, COURSE)
    shown = page(refused, "zh")
    assert refused.status == attack.status and refused_as(attack, shown), shown
    assert not re.search(r"<(img|script)|\x1b|\u202e", shown)


def test_which_courses_launches_are_let_in(claims):
    """Every section the settings name, each for its learners and instructors; before the course knows its context,
    the instructor's first launch (it links the course) and no learner's; never a launch naming no course."""
    section_b = {CLAIM + "context": {"id": "course-ch04-b", "title": "Attention, section B"}}
    both = (CONTEXT, "course-ch04-b")
    for login in ("student1", "teacher"):
        assert refusal({**claims[login], **section_b}, {"deployment-1"}, both) is None
        assert refusal({**claims[login], **section_b}, {"deployment-1"}, COURSE).status == 403
    assert refusal(claims["teacher"], set(), ()) is None
    refused = refusal(claims["student2"], set(), ())
    assert refused.status == 403 and refused.what == "hub.not_linked"
    nowhere = {k: v for k, v in claims["teacher"].items() if k != CLAIM + "context"}
    assert refusal(nowhere, set(), ()).status == 403 and refusal(nowhere, set(), COURSE).what == "hub.no_context"
    endless = {**claims["student1"], CLAIM + "context": {"id": "x" * 100_000, "title": "y" * 100_000}}
    assert len(page(refusal(endless, set(), COURSE), "en")) < 8_000  # cut short, on the page and in the log


@pytest.mark.parametrize("locale, custom, accepted, lang", [
    ("zh-CN", {}, "", "zh"), ("en-US", {}, "zh-CN,zh;q=0.9", "en"), ("", {}, "en-GB,en;q=0.9", "en"),
    ("fr-FR", {}, "de", "zh"), ("zh-CN", {"language": "en"}, "", "en")])
def test_is_a_launch_spoken_to_in_its_own_language_first(claims, locale, custom, accepted, lang):
    """The page of a refused launch: the language the launch's custom parameters or locale name, else the browser's,
    else the course's; its page says it first, the course's other languages folded below, one piece of advice?"""
    presentation = CLAIM + "launch_presentation"
    launch = {**claims["mentor"], presentation: {"locale": locale}, CLAIM + "custom": custom}
    assert launch_language(launch, None, accepted) == lang
    shown = page(refusal(launch, set(), COURSE), lang)
    first, advice = refusal(launch, set(), COURSE).said(lang)
    assert shown.index(first) < shown.index("<details") and shown.count('class="advice"') == len(LANGUAGES)
    assert f'<html lang="{WORDS.say(lang, "locale.html_lang")}"' in shown


class Callback(CourseCallbackHandler):
    """The launch handler without tornado: ``claims`` as upstream validated them; what it answered, kept."""
    authenticator = hub = log = None

    def __init__(self, auth, claims):
        self.authenticator, self.claims, self.answer = auth, claims, None
        self.hub, self.log = types.SimpleNamespace(base_url="/hub/"), logging.getLogger("test-lti")

    def decode_and_validate_launch_request(self):
        return self.claims

    async def login_user(self, data=None):
        return types.SimpleNamespace(**await self.authenticator.authenticate(self, data))

    def refuse(self, refused, claims, why=""):
        self.answer = (refused.status, " ".join(refused.said("en")))

    def redirect(self, url):
        self.answer = (302, url)


def launched(auth, claims) -> tuple:
    """(status, page text or landing URL) of ``claims`` posted to ``auth``'s hub (a fresh nonce each)."""
    handler = Callback(auth, {**claims, "nonce": uuid.uuid4().hex, "exp": time.time() + 300})
    asyncio.run(handler.post())
    return handler.answer


def test_does_the_first_instructor_launch_link_the_course_for_good(claims, tmp_path):
    """A learner before the course is linked: refused. The instructor's first launch links its context, kept in the
    hub's private folder: a restarted hub (a new authenticator there) lets that course in, refuses another course's
    instructor, and ``make hub`` says which course; ``context_ids`` in the settings decide instead."""
    plan = plan_of(tmp_path, {"context_ids": []})
    private = lti.key_file(plan).parent

    def hub(**settings):
        return CourseLTIAuthenticator(instructor="t-teacher", local_password="pw", unix_users=False,
                                      private_dir=str(private), course_dir=str(tmp_path), **settings)

    first = hub()
    assert "not linked yet" in lti.contexts_line(plan)
    assert launched(first, claims["student1"])[0] == 403 and not (private / lti_broker.CONTEXT).exists()
    assert launched(first, claims["teacher"]) == (302, "/hub/user-redirect/lab")
    restarted, other = hub(), launch_claims(next(a for a in GENUINE if a.context), claims["teacher"])
    assert restarted.course_contexts().known() == COURSE and launched(restarted, claims["student1"])[0] == 302
    assert launched(restarted, other)[0] == 403 and restarted.course_contexts().known() == COURSE
    assert f"{CONTEXT!r} ('Attention course'), linked by its first instructor launch" in lti.contexts_line(plan)
    assert {x["context_id"] for x in restarted.launch_book().all()} == set(COURSE)
    named = hub(context_ids={"course-other"})
    assert launched(named, claims["teacher"])[0] == 403 and launched(named, other)[0] == 302
    (private / lti_broker.CONTEXT).write_text("{not json")
    status, said = launched(restarted, claims["teacher"])
    assert status == 500 and lti_broker.CONTEXT in said and "every launch is refused" in lti.contexts_line(plan)


def test_does_the_launch_book_keep_each_users_last_launch_per_course(tmp_path):
    """Every instructor of every section lands in one account: one section's launch must not hide another's; a book
    written one launch per user is read too."""
    book = lti_broker.LaunchBook(tmp_path / lti_broker.LAUNCHES)
    old = Launch("https://lms.example", "u-1", "instructor", context_id="a", at=1.0)
    book.path.write_text(json.dumps({"t-teacher": old.to_dict()}))
    assert [x["context_id"] for x in book.all()] == ["a"]
    book.record("t-teacher", dataclasses.replace(old, context_id="b", at=2.0))
    book.record("t-teacher", dataclasses.replace(old, context_id="b", at=3.0))
    assert sorted((x["context_id"], x["at"]) for x in book.all()) == [("a", 1.0), ("b", 3.0)]


def test_does_each_launch_land_where_it_should(claims):
    config = Config()
    exec(CONFIG, {"get_config": lambda: config})
    land = {login: landing("/hub/", Launch.from_claims(claims[login]), config) for login in ("teacher", "student1",
                                                                                               "student2")}
    assert land == {"teacher": "/hub/user-redirect/lab",  # each edition with its language (JupyterLab's own words)
                    "student1": "/hub/user-redirect/coursekit/open/ch04_attention?language=zh",
                    "student2": "/hub/user-redirect/coursekit/open/ch04_attention_en?language=en"}


def test_is_a_nonce_used_once_and_forgotten_after_its_token_expires():
    seen = SeenNonces()
    assert seen.first_use("n1", expires=100, now=10) and not seen.first_use("n1", expires=100, now=50)
    assert not seen.first_use("", expires=100, now=10)
    assert seen.first_use("n2", expires=20, now=10) and seen.until.keys() == {"n1", "n2"}
    assert seen.first_use("n3", expires=300, now=200) and seen.until.keys() == {"n3"}


def test_is_the_tool_key_the_hubs_alone_and_does_its_assertion_verify_with_its_public_key(tmp_path):
    path = lti.ensure_tool_key(tmp_path / "hub" / "lti" / lti_broker.KEY)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    before = path.read_bytes()
    assert lti.ensure_tool_key(path).read_bytes() == before  # made once
    key = lti_broker.ToolKey(path)
    token = lti_broker.client_assertion(key, "42", "https://lms.example/token", now=lambda: 1_000)
    assert jwt.get_unverified_header(token)["kid"] == key.kid and "d" not in key.jwk  # the public half only
    public = jwt.PyJWK(key.jwk).key
    claims = jwt.decode(token, public, algorithms=["RS256"], audience="https://lms.example/token",
                        options={"verify_exp": False})
    assert (claims["iss"], claims["sub"], claims["exp"] - claims["iat"]) == ("42", "42", lti_broker.ASSERTION_SECONDS)


def test_does_every_refused_launch_page_say_only_the_catalogues_words_in_the_pseudo_locale():
    """Each refusal the catalogue holds (what happened and the one piece of advice, its values filled), its page in
    the pseudo-locale: no word outside a catalogue message but the values a launch brought?"""
    from coursekit.language import PSEUDO, WORDS, placeholders
    from hub.lti_auth import Refused
    from support.pseudo import stray_in_html

    kinds = [msgid[:-len("_advice")] for msgid in WORDS.messages("en", "hub.") if msgid.endswith("_advice")]
    assert len(kinds) >= 8
    for kind in kinds:
        names = {name.strip("{}").split(":")[0].split("!")[0]
                 for msgid in (kind, kind + "_advice") for name in placeholders(WORDS.template("en", msgid))}
        refused = Refused(403, kind, kind + "_advice", tuple((name, "launched-value") for name in sorted(names)))
        assert stray_in_html(page(refused, PSEUDO), (), {"launched-value", "403"}) == [], kind

"""coursekit.lms.platform, roster and launch against the real LTI 1.3 platform library (the test LMS, in a thread):
does a score go in as AGS says, twice the same changing nothing; is the class read from NRPS; is a down LMS the
machine's fault; does a launch read as the course keeps it?"""
import http.server
import json
import threading

import pytest
import requests

from coursekit.identity import hub_user
from coursekit.lms import roster
from coursekit.lms.launch import INSTRUCTOR, LEARNER, Launch, role_of
from coursekit.lms.platform import LMSDown, Platform
from hub import lti, lti_broker
from support.lms_platform import MEMBERSHIP, PEOPLE, TestLMS


@pytest.fixture(scope="module")
def lms(tmp_path_factory):
    """The test LMS, and a stand-in for the hub serving the tool's public key where the LMS looks for it."""
    key = lti_broker.ToolKey(lti.ensure_tool_key(tmp_path_factory.mktemp("tool") / "lti" / lti_broker.KEY))

    class Keys(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(json.dumps({"keys": [key.jwk]}).encode())

        def log_message(self, *args):
            pass

    hub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Keys)
    threading.Thread(target=hub.serve_forever, daemon=True).start()
    platform = TestLMS(f"http://127.0.0.1:{hub.server_address[1]}/")
    with platform.running():
        yield platform, key
    hub.shutdown()


def tokens_of(lms, key):
    """What the hub's broker does: the tool's signed assertion exchanged at the LMS's token endpoint."""
    def tokens(scopes):
        form = {"grant_type": "client_credentials", "client_assertion_type": lti_broker.JWT_BEARER,
                "scope": " ".join(scopes), "client_assertion": lti_broker.client_assertion(key, "attention-hub",
                                                                                      lms.url("/token"))}
        answer = requests.post(lms.url("/token"), data=form, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()["access_token"]
    return tokens


def test_does_a_score_reach_the_lms_gradebook_and_posting_it_twice_change_nothing(lms):
    platform, key = lms
    course = Platform(tokens_of(platform, key))
    lineitems = platform.url("/lineitems")
    assert course.find_line_item(lineitems, "ch04_attention") == ""
    item = course.create_line_item(lineitems, "ch04_attention", "ch04_attention", 20)
    assert course.find_line_item(lineitems, "ch04_attention") == item
    score = {"userId": "u-2001", "scoreGiven": 12, "scoreMaximum": 20, "activityProgress": "Submitted",
             "gradingProgress": "PendingManual", "timestamp": "2026-12-03T10:00:00.000+00:00"}
    course.post_score(item, score)
    assert platform.gradebook()["ch04_attention"] == {"student1": (12, 20, "PendingManual")}
    course.post_score(item, score)
    assert platform.gradebook()["ch04_attention"] == {"student1": (12, 20, "PendingManual")}
    course.post_score(item, {**score, "scoreGiven": 20, "gradingProgress": "FullyGraded",
                             "timestamp": "2026-12-03T11:00:00.000+00:00"})
    assert platform.gradebook()["ch04_attention"] == {"student1": (20, 20, "FullyGraded")}


def test_is_a_down_lms_the_machines_fault_naming_what_did_not_answer(lms):
    platform, key = lms
    platform.down = True
    try:
        with pytest.raises(LMSDown, match=r"POST .*/lineitems/1/scores answered 503"):
            Platform(lambda scopes: "any").post_score(platform.url("/lineitems/1"), {"userId": "u-2001"})
    finally:
        platform.down = False


def test_is_the_class_read_from_nrps_as_its_learners_named_from_their_sub(lms):
    platform, key = lms
    members = Platform(tokens_of(platform, key)).members(platform.url("/memberships"))
    people = roster.people([], members, platform.url(""))
    learners = [p for p in PEOPLE if p.role == "Learner"]
    assert [(p.student, p.sub, p.first_name, p.last_name) for p in people] == sorted(
        (hub_user(platform.url(""), p.sub), p.sub, p.given, p.family) for p in learners)


def test_does_a_launch_read_as_the_course_keeps_it(lms):
    platform, _ = lms
    launch = Launch.from_claims(platform.claims(PEOPLE[2], "n"))
    assert (launch.role, launch.locale, launch.lineitems, launch.memberships, launch.given_name) == \
        (LEARNER, "en-US", platform.url("/lineitems"), platform.url("/memberships"), "Sam")
    assert Launch.from_dict(json.loads(json.dumps(launch.to_dict()))) == launch


@pytest.mark.parametrize("roles, role", [
    ([MEMBERSHIP + "Learner"], LEARNER), (["Learner"], LEARNER), ([MEMBERSHIP + "Instructor"], INSTRUCTOR),
    (["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"], INSTRUCTOR),
    ([MEMBERSHIP + "Learner", MEMBERSHIP + "Instructor"], INSTRUCTOR), ([MEMBERSHIP + "Mentor"], ""),
    (["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"], ""), ([], ""),
])
def test_is_each_role_read_from_the_context_roles_only(roles, role):
    assert role_of(roles) == role


def test_is_a_hub_user_named_from_the_platform_and_sub_only():
    name = hub_user("https://lms.example", "u-2001")
    assert name == hub_user("https://lms.example", "u-2001") and len(name) == 20 and name.startswith("lti-")
    assert name.replace("-", "").isalnum() and name == name.lower()
    assert len({name, hub_user("https://lms.example", "u-2002"), hub_user("https://other.example", "u-2001")}) == 3
    with pytest.raises(ValueError, match="needs its platform and its sub"):
        hub_user("https://lms.example", "")

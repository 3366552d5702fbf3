"""A small course connected to an LMS, for the unit tests of coursekit.lms: both editions in its config, a synthetic
gradebook (support.synthetic_class) whose students have LMS ids, and fakes of the hub and the platform.

``FakeLMS`` records what was posted and can be down (every call raises :class:`coursekit.lms.platform.LMSDown`) or
refuse one student's scores, and keeps each LMS course's line items apart; ``FakeHub`` gives tokens, the launches it
was given and the course's contexts (``ctx-1`` unless told otherwise). Time is a ``Clock`` the test moves.
"""
import atexit
import dataclasses
import functools
import pathlib
import shutil
import tempfile

from nbgrader.api import Gradebook

from coursekit.lms import outbox
from coursekit.lms.launch import CourseLaunches, Launch
from coursekit.lms.platform import LMSDown, Refused
from support.synthetic_class import MANUAL, make_student, write_class

CONFIG = """c = get_config()  # noqa: F821
c.CourseKit.assignments = {"ch04_attention": {}, "ch04_attention_en": {"edition_of": "ch04_attention", "language": "en"}}
"""
ISSUER = "https://lms.example"


class Clock:
    def __init__(self, now=1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def launch(sub, role="learner", **fields) -> Launch:
    """A launch as the hub keeps it (the instructor's brings the context's service URLs)."""
    urls = {"lineitems": "https://lms.example/lineitems", "memberships": "https://lms.example/members"} \
        if role == "instructor" else {}
    return Launch(ISSUER, sub, role, **{"context_id": "ctx-1", "custom": {"assignment": "ch04_attention"}, **urls,
                                        **fields})


@functools.lru_cache(maxsize=None)
def _template(students: tuple, pending: bool) -> pathlib.Path:
    """The course built once per test process (a gradebook costs a few tenths of a second), copied by each test."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="lms-course-")) / "course"
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(CONFIG)
    marks = {} if pending else {name: points for name, points in MANUAL.items()}
    url = write_class(folder, [make_student(s, manual=marks) for s in students])
    with Gradebook(url) as gradebook:
        for s in students:
            gradebook.update_or_create_student(s, lms_user_id=f"u-{s}")
    outbox.folder(folder).mkdir()
    atexit.register(shutil.rmtree, folder.parent, True)
    return folder


def course(tmp_path, students=("s1", "s2"), pending=True, lang="en") -> pathlib.Path:
    """A connected course: each student's submission of the Chinese edition, their written answers pending
    (``pending``) or marked, each with the LMS id ``u-<student>``; its instructor's tools speak ``lang``."""
    folder = pathlib.Path(shutil.copytree(_template(tuple(students), pending), pathlib.Path(tmp_path) / "course"))
    with (folder / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.CourseKit.language = {lang!r}\n")
    return folder


@dataclasses.dataclass
class FakeHub:
    given: list = dataclasses.field(default_factory=lambda: [launch("u-t", "instructor")])
    asked: list = dataclasses.field(default_factory=list)
    contexts: tuple = ("ctx-1",)

    def tokens(self, scopes) -> str:
        self.asked.append(tuple(scopes))
        return "token"

    def launches(self) -> CourseLaunches:
        return CourseLaunches(tuple(self.contexts), tuple(self.given))


class FakeLMS:
    """What the course's :class:`coursekit.lms.platform.Platform` does, in memory."""

    def __init__(self):
        self.posts, self.items, self.down, self.refusing, self.members_list = [], {}, False, set(), []
        self.asked_members = []

    def _up(self, what):
        if self.down:
            raise LMSDown(f"{what} did not answer: connection refused")

    def find_line_item(self, lineitems, resource_id):
        self._up("GET lineitems")
        return self.items.get((lineitems, resource_id), "")

    def create_line_item(self, lineitems, resource_id, label, maximum):
        self._up("POST lineitems")
        self.items[(lineitems, resource_id)] = f"{lineitems}/{len(self.items) + 1}"
        return self.items[(lineitems, resource_id)]

    def post_score(self, line_item, payload):
        self._up("POST scores")
        if payload["userId"] in self.refusing:
            raise Refused(f"POST {line_item}/scores answered 422: user {payload['userId']} is not in the course")
        self.posts.append((line_item, payload))

    def members(self, url):
        self._up("GET members")
        self.asked_members.append(url)
        return list(self.members_list)

    def latest(self) -> dict:
        """``{userId: payload}``: the LMS's gradebook, its newest score per user."""
        return {payload["userId"]: payload for _, payload in self.posts}

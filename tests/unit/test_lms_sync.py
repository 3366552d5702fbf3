"""coursekit.lms.sync / outbox: is every changed score posted once, kept while the LMS is down, never posted twice?

The LMS and the hub are fakes (support.lms_course); the gradebook is a real nbgrader one; time is a clock the test
moves, so the back-off is proved without waiting. The real platform is met in test_lms_platform.py and, through
the hub, in tests/integration/test_hub_lti.py.
"""
import datetime

import pytest

from coursekit.lms import outbox
from coursekit.lms.score import FULLY_GRADED, PENDING_MANUAL
from coursekit.lms.sync import Sync
from nbgrader.api import Gradebook
from support.lms_course import Clock, FakeHub, FakeLMS, course, launch
from support.synthetic_class import MANUAL


@pytest.fixture
def world(tmp_path):
    folder, clock, lms, hub = course(tmp_path), Clock(), FakeLMS(), FakeHub()
    sync = Sync(folder, hub, clock)
    sync.platform = lms
    sync.learn()
    return folder, clock, lms, sync


def mark_marked(folder, student):
    """The instructor marks every written answer of ``student`` (as the marking page does), and its hook."""
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gradebook:
        for name, points in MANUAL.items():
            gradebook.find_grade(name, "ch04_attention", "ch04_attention", student).manual_score = points
        gradebook.db.commit()
    outbox.mark(folder, "ch04_attention", [student], "marked")


def test_is_a_released_score_posted_pending_then_fully_graded_after_marking(world):
    folder, clock, lms, sync = world
    outbox.mark(folder, "ch04_attention", ["s1"], "feedback released")
    assert sync.post().posted == 1
    first = lms.latest()["u-s1"]
    assert first["gradingProgress"] == PENDING_MANUAL and first["activityProgress"] == "Submitted"
    assert "2 道书面题待批改（2 分）" in first["comment"] and first["scoreMaximum"] == 14
    clock.now += 60
    mark_marked(folder, "s1")
    assert sync.post().posted == 1
    second = lms.latest()["u-s1"]
    assert second["gradingProgress"] == FULLY_GRADED and second["scoreGiven"] == first["scoreGiven"] + 2
    assert second["timestamp"] > first["timestamp"] and outbox.markers(folder) == []


def test_does_posting_twice_change_nothing(world):
    folder, clock, lms, sync = world
    outbox.mark_everyone(folder, "make grade")
    assert sync.post().posted == 2
    for why in ("make grade", "make lms-sync"):
        outbox.mark_everyone(folder, why)
        result = sync.post()
        assert (result.posted, result.same, result.waiting) == (0, 2, 0)
    assert len(lms.posts) == 2


def test_is_nothing_lost_while_the_lms_is_down_and_is_it_retried_after_the_back_off(world):
    folder, clock, lms, sync = world
    lms.down = True
    outbox.mark(folder, "ch04_attention", ["s1", "s2"], "feedback released")
    result = sync.post()
    assert result.down and result.waiting == 2 and lms.posts == []
    line = outbox.status_line(folder)
    assert "2 change(s) wait" in line and "the machine's fault, not the students'" in line and "connection refused" in line
    lms.down = False
    clock.now += outbox.backoff(1) - 1
    assert sync.post().posted == 0  # not before its time
    clock.now += 1
    assert sync.post().posted == 2
    assert outbox.markers(folder) == [] and outbox.State(folder).get("down") is None
    assert outbox.status_line(folder).startswith("LMS: 0 change(s) to post; 2 score(s) in the LMS")


def test_does_the_back_off_double_up_to_its_limit():
    assert [outbox.backoff(n) for n in (1, 2, 3, 4, 10, 30)] == [5, 10, 20, 40, 300, 300]


def test_is_a_refused_score_kept_named_and_tried_again_without_holding_the_others(world):
    folder, clock, lms, sync = world
    lms.refusing = {"u-s2"}
    outbox.mark(folder, "ch04_attention", ["s1", "s2"], "feedback released")
    result = sync.post()
    assert result.posted == 1 and len(result.refused) == 1 and "s2" in result.refused[0] and "422" in result.refused[0]
    assert [m.student for m in outbox.markers(folder)] == ["s2"]
    lms.refusing = set()
    assert sync.post().posted == 0  # its own back-off first
    clock.now += outbox.backoff(1)
    assert sync.post().posted == 1 and outbox.markers(folder) == []


def test_does_a_marker_written_during_a_round_survive_it(world, monkeypatch):
    folder, clock, lms, sync = world
    outbox.mark(folder, "ch04_attention", ["s1"], "feedback released")
    posting = lms.post_score

    def rewritten_meanwhile(line_item, payload):
        clock.now += 1
        outbox.mark(folder, "ch04_attention", ["s1"], "marked again", now=clock)
        posting(line_item, payload)

    monkeypatch.setattr(lms, "post_score", rewritten_meanwhile)
    sync.post()
    assert [m.student for m in outbox.markers(folder)] == ["s1"]


def test_do_both_editions_share_one_line_item_with_the_newest_submission(tmp_path):
    from support.synthetic_class import make_student, write_class
    folder = course(tmp_path, students=("s1",))
    write_class(folder, [make_student("s1", manual=dict(MANUAL))], assignment="ch04_attention_en")
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gradebook:
        gradebook.find_submission("ch04_attention", "s1").timestamp = datetime.datetime(2026, 12, 1)
        gradebook.find_submission("ch04_attention_en", "s1").timestamp = datetime.datetime(2026, 12, 2)
        gradebook.db.commit()
    sync, lms = Sync(folder, FakeHub(), Clock()), FakeLMS()
    sync.platform = lms
    sync.learn()
    outbox.mark_everyone(folder, "make grade")
    assert sync.post().posted == 1
    (line_item, payload), = lms.posts
    assert lms.items == {"ch04_attention": line_item}
    assert payload["gradingProgress"] == FULLY_GRADED and "fully marked" in payload["comment"]  # the English one


def test_can_a_learners_launch_change_where_scores_go_or_who_is_rostered(world):
    folder, clock, lms, sync = world
    before = dict(outbox.State(folder).data)
    sync.broker.given.append(launch("u-s1", lineitems="https://evil.example/lineitems",
                                    lineitem="https://evil.example/lineitems/9", custom={"score": "20"}))
    sync.broker.given.append(launch("u-x", context_id="another-course"))
    launches = sync.learn()
    state = outbox.State(folder).data
    assert {k: state.get(k) for k in ("lineitems", "line_items", "memberships")} == \
        {k: before.get(k) for k in ("lineitems", "line_items", "memberships")}
    assert {x.sub for x in launches} == {"u-t", "u-s1"}  # the other course's learner is not this course's


def test_does_a_course_without_an_lms_write_nothing(tmp_path):
    assert outbox.mark(tmp_path, "ch04_attention", ["s1"], "feedback released") is False
    assert outbox.mark_everyone(tmp_path, "make grade") is False
    assert not (tmp_path / outbox.FOLDER).exists() and outbox.status_line(tmp_path) == ""

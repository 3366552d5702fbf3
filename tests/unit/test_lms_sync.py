"""coursekit.lms.sync / outbox: is every changed score posted once, kept while the LMS is down, never posted twice,
and learned, read and posted in the course's own LMS context(s) only?

The LMS and the hub are fakes (support.lms_course); the gradebook is a real nbgrader one; time is a clock the test
moves, so the back-off is proved without waiting. The real platform is met in test_lms_platform.py and, through
the hub, in tests/integration/test_hub_lti.py.
"""
import datetime
import threading

import pytest

from coursekit import grades
from coursekit.lms import outbox
from coursekit.lms.launch import Launch
from coursekit.lms.score import FULLY_GRADED, PENDING_MANUAL
from coursekit.lms.sync import Sync
from nbgrader.api import Gradebook
from support.lms_course import Clock, FakeHub, FakeLMS, course, launch
from support.lms_platform import TestLMS
from support.redteam import LAUNCH_ATTACKS, OTHER_SERVICES, launch_claims
from support.synthetic_class import MANUAL

OTHER_COURSE = [a for a in LAUNCH_ATTACKS if a.context]


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
    assert outbox.markers(folder) == []  # as when the hub's sync took make lms-sync's marker first: it compares all
    assert (sync.post(everyone=True).same, sync.post().same, len(lms.posts)) == (2, 0, 2)


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


def test_is_a_mark_saved_between_the_rounds_queries_never_posted_half(world, monkeypatch):
    """The marking page saves s1's marks while the round reads the gradebook, after its query of the scores and before
    its query of what is pending: the LMS gets the score and its pending answers of one moment (PendingManual,
    without the marks), never the score before the marks as FullyGraded; the next round posts the marks."""
    folder, clock, lms, sync = world
    outbox.mark(folder, "ch04_attention", ["s1"], "feedback released")
    pending_of, saving = grades.class_pending, []

    def marked_meanwhile(gradebook, assignment, students=None):
        if not saving:  # the marking page is another process: it waits for the read, or is seen by none of it
            saving.append(threading.Thread(target=mark_marked, args=(folder, "s1")))
            saving[0].start()
            saving[0].join(timeout=1)
        return pending_of(gradebook, assignment, students)

    monkeypatch.setattr(grades, "class_pending", marked_meanwhile)
    sync.post()
    saving[0].join()
    first = lms.latest()["u-s1"]
    assert first["gradingProgress"] == PENDING_MANUAL and "2 道书面题待批改（2 分）" in first["comment"], first
    assert sync.post().posted == 1
    second = lms.latest()["u-s1"]
    assert second["gradingProgress"] == FULLY_GRADED and second["scoreGiven"] == first["scoreGiven"] + 2


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
    assert lms.items == {("https://lms.example/lineitems", "ch04_attention"): line_item}
    assert payload["gradingProgress"] == FULLY_GRADED and "fully marked" in payload["comment"]  # the English one


def test_can_a_learners_launch_change_where_scores_go_or_who_is_rostered(world):
    folder, clock, lms, sync = world
    before = outbox.State(folder).get("contexts")
    sync.broker.given.append(launch("u-s1", lineitems="https://evil.example/lineitems",
                                    lineitem="https://evil.example/lineitems/9", custom={"score": "20"}))
    launches = sync.learn()
    assert outbox.State(folder).get("contexts") == before and before["ctx-1"]["lineitems"]
    assert {x.sub for x in launches} == {"u-t", "u-s1"}


@pytest.fixture(scope="module")
def platform():
    return TestLMS("http://127.0.0.1:9/")


@pytest.mark.parametrize("attack", OTHER_COURSE, ids=[a.name for a in OTHER_COURSE])
def test_does_another_courses_launch_move_nothing_even_as_the_newest(world, platform, attack):
    """Another course's launch the hub kept (a book from before, a context the settings no longer name), newer than
    any of this course's: not learned from, its roster not read, no one rostered from it, no score to its line item."""
    folder, clock, lms, sync = world
    before = outbox.State(folder).get("contexts")
    claims = launch_claims(attack, platform.claims(platform.person(attack.login), "n"))
    sync.broker.given.append(Launch.from_claims(claims, now=lambda: clock.now + 1))
    assert attack.sub or attack.login not in {x.sub for x in sync.learn()}
    assert sync.roster(force=True) == 0 and outbox.State(folder).get("contexts") == before
    outbox.mark_everyone(folder, "make grade")
    assert sync.post().posted == 2
    reached = lms.asked_members + [url for url, _ in lms.posts] + [url for url, _ in lms.items]
    assert reached and not [url for url in reached if url.startswith(OTHER_SERVICES)]
    assert {x.context_id for x in sync.learn()} == {"ctx-1"}


def test_is_nothing_learned_or_posted_before_the_course_is_linked(tmp_path):
    """Until the hub knows the course's LMS context (its instructor's first launch), no launch teaches the course
    anything and every score waits, saying what to do; once linked, they go."""
    folder, clock, hub = course(tmp_path), Clock(), FakeHub(contexts=())
    sync, lms = Sync(folder, hub, clock), FakeLMS()
    sync.platform = lms
    assert sync.learn() == [] and sync.roster(force=True) == 0 and lms.asked_members == []
    outbox.mark_everyone(folder, "make grade")
    result = sync.post()
    assert result.posted == 0 and lms.posts == [] and len(outbox.markers(folder)) == 1
    assert "open the course's link in the LMS once, as its instructor" in result.refused[0]
    assert "\n  2 refused: no instructor launch of the course's LMS course has come yet" in outbox.status_line(folder)
    hub.contexts = ("ctx-1",)
    clock.now += outbox.backoff(1)
    assert [x.sub for x in sync.learn()] == ["u-t"]
    assert sync.post().posted == 2 and outbox.markers(folder) == []


def test_does_each_sections_score_go_to_its_own_courses_line_item(tmp_path):
    """Two LMS courses named as sections of one class: each course's roster is read from its own NRPS, and each
    learner's score goes to the line item of the course they are in; one the roster has not placed waits."""
    folder, clock = course(tmp_path, students=("s1", "s2", "s3")), Clock()
    b = {"lineitems": "https://lms.example/b/lineitems", "memberships": "https://lms.example/b/members"}
    hub = FakeHub(given=[launch("u-t", "instructor"), launch("u-tb", "instructor", context_id="ctx-2", **b),
                         launch("u-s1"), launch("u-s2", context_id="ctx-2")], contexts=("ctx-1", "ctx-2"))
    sync, lms = Sync(folder, hub, clock), FakeLMS()
    sync.platform = lms
    sync.roster(force=True)
    assert sorted(lms.asked_members) == ["https://lms.example/b/members", "https://lms.example/members"]
    outbox.mark_everyone(folder, "make grade")
    result = sync.post()
    assert result.posted == 2 and len(result.refused) == 1 and "s3's LMS course (on no roster yet)" in result.refused[0]
    assert "1 refused: s3's LMS course (on no roster yet)" in outbox.status_line(folder)
    assert {payload["userId"]: url.rsplit("/", 1)[0] for url, payload in lms.posts} == \
        {"u-s1": "https://lms.example/lineitems", "u-s2": "https://lms.example/b/lineitems"}


def test_does_a_course_without_an_lms_write_nothing(tmp_path):
    assert outbox.mark(tmp_path, "ch04_attention", ["s1"], "feedback released") is False
    assert outbox.mark_everyone(tmp_path, "make grade") is False
    assert not (tmp_path / outbox.FOLDER).exists() and outbox.status_line(tmp_path) == ""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_do_make_lms_sync_and_service_status_speak_the_courses_language(tmp_path, lang):
    """The LMS's lines (make service-status's, make lms-sync's round and its roster) in c.CourseKit.language, from
    the course's catalogue?"""
    from coursekit.language import WORDS
    from coursekit.lms.sync import Round

    folder = course(tmp_path, lang=lang)
    never = WORDS.say(lang, "lms.never")
    assert outbox.status_line(folder) == WORDS.say(lang, "lms.status", waiting=0, refused="", posted=WORDS.say(
        lang, "lms.in_the_lms", count=0, last=never))
    assert Round(posted=1, same=2).line(lang) == WORDS.say(lang, "lms.round", posted=1, same=2, roster=0, waiting=0)
    assert ("LMS：" in outbox.status_line(folder)) == (lang == "zh")


def test_does_a_name_typed_in_the_lms_reach_the_gradebook_without_markup(tmp_path):
    """A learner whose LMS name holds markup (nbgrader's Formgrader shows gradebook names as HTML): the gradebook keeps
    the name without angle brackets, quotes, backticks or control characters, and capped; O'Brien & Co unchanged?"""
    from coursekit.lms.roster import NAME_LENGTH, Person, into_gradebook
    hostile = Person("s1", "u-1", '<img src=x onerror="alert(1)">Ann\x1b[31m', "O'Brien & Co", "`a`@b" + "x" * 500)
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        assert into_gradebook(gradebook, [hostile]) == 1
        kept = gradebook.find_student("s1")
        assert (kept.first_name, kept.last_name) == ("img src=x onerror=alert(1)Ann[31m", "O'Brien & Co")
        assert not set('<>"`\x1b') & set(kept.first_name + kept.email) and len(kept.email) == NAME_LENGTH
        assert into_gradebook(gradebook, [hostile]) == 0  # the same person again: nothing changes

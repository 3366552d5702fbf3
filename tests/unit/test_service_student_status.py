"""What is a student told about their submission's feedback, and who else could read it
(coursekit.service.student_status)?

The record and its file in the exchange; the scheduler's decisions as statuses (the loop of
test_service_scheduler.py, its fake pool and clock); and the released status the course's
release_feedback writes from the pages it released (the service's release and the instructor's).
"""
import json
import shutil
import stat

import pytest
from test_service_scheduler import A, COURSE_ID, FixedDates, World  # the loop with a fake pool, on disk

from coursekit.plugins.release_feedback import released_status
from coursekit.service import control
from coursekit.service import student_status as ss
from coursekit.service.notice import notice_page
from coursekit.service.policy import ATTEMPTS, COOLDOWN, DEADLINE, Policy
from support.exchange_rows import arrival

SECRET, OTHER = "5e" * 64, "a7" * 64  # 128 hex digits, as nbgrader's submit writes


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_is_a_status_read_back_as_written_by_its_secret_only(tmp_path):
    """Written under the secret's name, read back equal; another secret finds nothing; a trailing newline
    in the secret file names the same file."""
    status = ss.released(A, "2026-12-01 10:00:01.000000 UTC", score=12.0, max_score=20.0, pending=8, now=5.0)
    path = ss.publish(tmp_path, COURSE_ID, SECRET, status)
    assert ss.read(tmp_path, COURSE_ID, SECRET) == status
    assert ss.read(tmp_path, COURSE_ID, SECRET + "\n") == status
    assert ss.read(tmp_path, COURSE_ID, OTHER) is None
    assert json.loads(path.read_text())["score"] == 12.0
    assert SECRET not in path.name and path.parent == tmp_path / COURSE_ID / "feedback_status"


def test_can_students_open_a_status_by_its_name_but_not_list_the_folder(tmp_path):
    """The folder is 711 (traverse, not list) as nbgrader's feedback folder; the file 644."""
    path = ss.publish(tmp_path, COURSE_ID, SECRET, ss.held(A, "t", COOLDOWN, until=60.0, now=1.0))
    assert _mode(path.parent) == 0o711
    assert _mode(path) == 0o644


def test_is_a_reason_outside_the_table_refused_with_the_table():
    with pytest.raises(ValueError, match="a feedback waits for one of cooldown, attempts, deadline, paused: got 'later'"):
        ss.held(A, "t", "later")


def _world(tmp_path, policy, dates=None):
    world = World(tmp_path, policy, dates=dates)
    world.secrets = {}
    submit = world.submit

    def submit_with_own_secret(student):
        submit(student)
        secret = f"{len(world.secrets):02x}" * 64
        (world.folder / "submission_secret.txt").write_text(secret)
        stamp = arrival(world.folder)  # the secret written last, as nbgrader submit writes it
        world.secrets[stamp] = secret
        return stamp

    world.submit = submit_with_own_secret
    return world


def _told(world, stamp):
    return ss.read(world.tmp / "exchange", COURSE_ID, world.secrets[stamp])


def test_is_a_student_told_when_the_cooldown_holds_their_feedback_and_until_when(tmp_path):
    """First feedback released (nothing published by the scheduler); a second submission within the cooldown:
    waiting, cooldown, until the first release + 60 s, as the policy decided."""
    world = _world(tmp_path, Policy((A,), cooldown=60))
    first = world.submit("s1")
    world.step()
    world.pool.finish()
    world.step(2)
    assert _told(world, first) is None  # the release itself is release_feedback's to publish
    world.now += 10
    second = world.submit("s1")
    world.step()
    told = _told(world, second)
    assert (told.state, told.reason, told.until, told.assignment, told.timestamp) == \
        (ss.WAITING, COOLDOWN, world.entry("s1").releases[0] + 60, A, second)


@pytest.mark.parametrize("policy, due, reason, limit", [
    (Policy((A,), max_attempts=1), {}, ATTEMPTS, 1),
    (Policy((A,), hold_after_due=True), {A: 1_005.0}, DEADLINE, 0),
])
def test_is_a_student_told_when_automatic_feedback_will_not_come(tmp_path, policy, due, reason, limit):
    """Over the attempt limit (with the limit), or after the due date (hold_after_due): waiting, with that reason."""
    world = _world(tmp_path, policy, FixedDates(due))
    world.submit("s1")
    world.step()
    world.pool.finish()
    world.step(2)
    world.now += 10
    stamp = world.submit("s1")
    world.step()
    told = _told(world, stamp)
    assert (told.state, told.reason, told.limit, told.until) == (ss.WAITING, reason, limit, None)


def test_is_a_student_told_the_service_is_paused_and_again_when_it_resumes(tmp_path):
    """A submission arriving while paused: waiting, paused (written once, not every round); resumed: queued."""
    world = _world(tmp_path, Policy((A,)))
    control.pause_file(world.course).parent.mkdir(parents=True)
    control.pause_file(world.course).write_text("test\n")
    stamp = world.submit("s1")
    world.step()
    told = _told(world, stamp)
    assert (told.state, told.reason) == (ss.WAITING, ss.PAUSED)
    world.now += 5
    world.step(3)
    assert _told(world, stamp).published == told.published
    control.resume(world.course)
    world.step()
    assert _told(world, stamp).state == ss.QUEUED
    assert world.pool.sent[-1].timestamp == stamp


def test_does_the_service_announce_what_it_grades_and_again_when_the_settings_change(tmp_path):
    """Its first round writes the assignments it grades (nothing else, no secret); an edited policy, again."""
    world = _world(tmp_path, Policy((A,)))
    world.step()
    path = tmp_path / "exchange" / COURSE_ID / ss.FOLDER / ss.SERVICE_FILE
    assert json.loads(path.read_text()) == {"assignments": [A]} and _mode(path) == 0o644
    assert ss.announced(tmp_path / "exchange", COURSE_ID) == (A,)
    world.scheduler.policy = Policy(())
    world.step()
    assert ss.announced(tmp_path / "exchange", COURSE_ID) == ()


def test_is_a_status_that_cannot_be_written_logged_once_and_the_service_goes_on(tmp_path):
    """The status folder cannot be made (a file is in its place): one line in the log, the job still runs."""
    world = _world(tmp_path, Policy((A,), max_attempts=1))
    world.submit("s1")
    world.step()
    world.pool.finish()
    world.step(2)
    folder = tmp_path / "exchange" / COURSE_ID / ss.FOLDER
    shutil.rmtree(folder)
    folder.write_text("in the way")
    stamp = world.submit("s1")
    world.step(3)
    assert world.log().count("could not tell the student") == 1
    assert "their feedback is waiting (attempts)" in world.log()
    assert "their Lab keeps saying it is being graded" in world.log()
    assert world.pool.sent[-1].timestamp == stamp and not world.pool.sent[-1].release


COURSE_PAGE = ('<div class="container" data-pending="8" data-pending-points="8"\n'
               '       data-score="12" data-max-score="20">目前得分 <b>12 / 20</b> 分</div>')


@pytest.mark.parametrize("pages, expected", [
    ([COURSE_PAGE], dict(graded=True, score=12.0, max_score=20.0, pending=8)),
    ([COURSE_PAGE, COURSE_PAGE.replace('"8"', '"0"')], dict(graded=True, score=24.0, max_score=40.0, pending=8)),
    ([notice_page(A, "t", 'NotJSONError: data-score="20" data-max-score="20"')],
     dict(graded=False, score=None, max_score=None, pending=0)),
    (["<html><body>nbgrader's own page</body></html>"], dict(graded=True, score=None, max_score=None, pending=0)),
])
def test_does_the_released_status_say_what_the_pages_show(pages, expected):
    """The course's page: its score and pending answers (summed over notebooks); the "not graded" page: not
    graded, whatever its reason quotes; a page of another template: released, no score to tell."""
    status = released_status(A, "t", pages)
    assert status.state == ss.RELEASED and status.timestamp == "t"
    assert {key: getattr(status, key) for key in expected} == expected

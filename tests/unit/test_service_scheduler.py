"""The grading service's main loop (coursekit.service.scheduler) with a fake pool: fairness, policy, restarts.

Real inbound folder, journal and log on disk; the workers are a fake whose jobs the test finishes
by hand, and the clock is the test's. So each rule is seen in the decisions the loop takes.
"""
import os

import pytest

from coursekit import inbound
from coursekit.grading.pool import Done, Faulted, Note
from coursekit.faults import InfrastructureFault
from coursekit.language import WORDS
from coursekit.service import control
from coursekit.service.command import main, status
from coursekit.service.fair_queue import GRADE, RELEASE
from coursekit.service.journal import Journal
from coursekit.service.log import ServiceLog
from coursekit.service.policy import Policy
from coursekit.service.scheduler import Scheduler
from coursekit.service.log import short_time
from coursekit.service.worker import Graded, JobOutcome
from support.exchange_rows import arrival

RETRY = Policy().retry_seconds
# a worker's canary that found no sandbox (coursekit.sandbox.missing_tool), as the pool reports it
NO_BWRAP = InfrastructureFault("fault.said", "fault.fix_again", said="grading needs bwrap")

A, COURSE_ID = "ch04_attention", "c1"


class FakePool:
    """Workers that take jobs and finish when told (``finish``), or die (``die``)."""

    def __init__(self, count=1):
        self.holding, self.sent, self.messages, self.died = [None] * count, [], [], []

    def idle(self):
        return [k for k, job in enumerate(self.holding) if job is None]

    def send(self, index, job):
        self.holding[index] = job
        self.sent.append(job)

    def finished(self, index):
        self.holding[index] = None

    def get(self, timeout):
        return self.messages.pop(0) if self.messages else None

    def dead(self):
        found, self.died = self.died, []
        for index, _, _ in found:
            self.holding[index] = None
        return found

    def replace(self, index):
        job, self.holding[index] = self.holding[index], None
        return job

    def finish(self, index=0, ok=True, score=12.0, collected=None, fault="", graded=True, refused=""):
        """The job ends: graded (``collected``: the newer submission collect found instead), released as
        the job said, or stopped by a fault of the machine (``fault``; ``graded``: before or after grading), or its
        folder refused as it was collected (``refused``: why; nothing collected, nothing released)."""
        job = self.holding[index]
        stamp = collected or job.timestamp
        if job.kind == GRADE and graded:
            result = {"ok": ok, "score": score if ok else 0.0, "max_score": 20.0,
                      "reason": "" if ok else "NotJSONError: not JSON", "notes": [], "seconds": 1.0}
            if refused:
                result = {"ok": False, "refused": True, "score": 0, "max_score": 0, "reason": refused}
            self.messages.append(Note(index, job, Graded(stamp, result)))
        if fault:
            self.messages.append(Faulted(index, job, fault))
        else:
            released = job.release and not refused
            self.messages.append(Done(index, job, JobOutcome(stamp, released, {"grade": 1.0})))

    def die(self, index=0):
        self.died.append((index, self.holding[index], -9))


class FixedDates:
    """The course's due dates as the service reads them (coursekit.service.dates.DueDates): one per assignment."""

    def __init__(self, due: dict):
        self.due_dates, self.published = due, 0

    def due(self, key):
        return self.due_dates.get(key[0])

    def publish(self):
        self.published += 1


class World:
    def __init__(self, tmp_path, policy, workers=1, dates=None):
        self.tmp, self.now, self.n = tmp_path, 1_000.0, 0
        self.course = tmp_path / "course"
        self.course.mkdir()
        self.pool = FakePool(workers)
        self.scheduler = self.make(policy, dates)

    def make(self, policy, dates=None):
        journal = Journal(self.course / "grading-service" / "journal.json")
        log = ServiceLog(self.course / "service.log", echo=False)
        return Scheduler(self.course, policy, self.tmp / "exchange", COURSE_ID, journal, self.pool, log,
                         clock=lambda: self.now, monotonic=lambda: self.now, dates=dates, lang="en")

    def submit(self, student, written=""):
        """A submission folder of ``student`` in inbound/, its name saying a second of 2026-12-01 and its
        timestamp.txt the same or ``written``; its time as the course says it: when it arrived."""
        self.n += 1
        claimed = f"2026-12-01 10:{self.n // 60:02d}:{self.n % 60:02d}.000000 UTC"
        self.folder = self.tmp / "exchange" / COURSE_ID / "inbound" / f"{student}+{A}+{claimed}+r{self.n}"
        self.folder.mkdir(parents=True)
        (self.folder / "timestamp.txt").write_text(written or claimed)
        (self.folder / "submission_secret.txt").write_text("a" * 128)
        return arrival(self.folder)

    def inbound(self):
        return self.tmp / "exchange" / COURSE_ID / "inbound"

    def step(self, rounds=1):
        for _ in range(rounds):
            self.scheduler.step(0)

    def entry(self, student):
        return self.scheduler.journal.entry((A, student))

    def log(self):
        return (self.course / "service.log").read_text()


def test_twenty_submissions_delay_another_student_by_one_grading(tmp_path):
    """a submits 20 times while being graded, b once after: b is next, and a is graded twice, not 21 times."""
    world = World(tmp_path, Policy((A,)))
    world.submit("a")
    world.step()
    assert [j.student for j in world.pool.sent] == ["a"]
    stamps = []
    for _ in range(20):
        stamps.append(world.submit("a"))
        world.step()
    world.submit("b")
    world.step()
    world.pool.finish()
    world.step(2)
    assert [j.student for j in world.pool.sent] == ["a", "b"]
    world.pool.finish()
    world.step(2)
    assert [(j.student, j.timestamp) for j in world.pool.sent][-1] == ("a", stamps[-1])
    world.pool.finish()
    world.step(2)
    assert len(world.pool.sent) == 3 and world.entry("a").graded == stamps[-1]
    assert "only the newest is graded" in world.log()


def test_is_one_folder_graded_once_whatever_time_it_claims(tmp_path):
    """A folder whose timestamp.txt claims it was made a year before its name says, and both long before it arrived
    (issue 54: the service graded it again at every poll, 32–75 times in 80 s): listed at every poll, collected by
    the real collect, graded once, under the time it arrived?"""
    world = World(tmp_path, Policy((A,)))
    stamp = world.submit("a", written="2025-12-31 23:00:00.000000 UTC")
    collected = world.course / "submitted" / "a" / A
    inbound.collect(inbound.examine(world.inbound(), inbound.Limits(), A)[0][0], collected, inbound.Limits())
    for _ in range(5):
        world.step()
        if world.pool.holding[0] is not None:  # the worker reports what its collect wrote, as the real one does
            world.pool.finish(collected=(collected / "timestamp.txt").read_text())
        world.now += 5
    assert [(j.kind, j.timestamp) for j in world.pool.sent] == [(GRADE, stamp)]
    assert world.entry("a").graded == stamp == world.entry("a").released and not stamp.startswith(("2025", "2026-12-01"))


def test_two_workers_never_grade_one_student_twice_at_once(tmp_path):
    """With two idle workers and a's second submission, does the second worker wait for a's first job?"""
    world = World(tmp_path, Policy((A,)), workers=2)
    world.submit("a")
    world.step()
    world.submit("a")
    world.step(2)
    assert len(world.pool.sent) == 1
    world.pool.finish()
    world.step(2)
    assert len(world.pool.sent) == 2


def test_cooldown_holds_feedback_then_releases_it(tmp_path):
    """Within the cooldown the submission is graded at once, its feedback released only when the cooldown ends."""
    world = World(tmp_path, Policy((A,), cooldown=60))
    world.submit("a")
    world.step()
    world.pool.finish()
    world.step(2)
    assert world.entry("a").releases == [1000.0]
    world.now += 10
    second = world.submit("a")
    world.step()
    assert world.pool.sent[-1].kind == GRADE and not world.pool.sent[-1].release
    world.pool.finish(score=15.0)
    world.step()
    assert world.entry("a").graded == second and world.entry("a").result["score"] == 15.0
    assert world.entry("a").held == {"timestamp": second, "reason": "cooldown", "until": 1060.0}
    world.now = 1059.0
    world.step(3)
    assert len(world.pool.sent) == 2
    world.now = 1060.5
    world.step()
    assert world.pool.sent[-1].kind == RELEASE and world.pool.sent[-1].release
    world.pool.finish()
    world.step()
    assert world.entry("a").releases == [1000.0, 1060.5] and world.entry("a").held is None
    assert "feedback waits for the cooldown of 60 s" in world.log()


def test_attempts_and_deadline_leave_feedback_to_the_instructor(tmp_path):
    """After max_attempts feedbacks, or after the student's due date (hold_after_due), later submissions are graded,
    their feedback kept back."""
    world = World(tmp_path, Policy((A,), max_attempts=1, hold_after_due=True), dates=FixedDates({A: 1500.0}))
    for student, now in (("a", 1000.0), ("a", 1100.0), ("b", 1600.0)):
        world.now = now
        world.submit(student)
        world.step()
        world.pool.finish()
        world.step(2)
    assert world.entry("a").releases == [1000.0] and world.entry("a").held["reason"] == "attempts"
    assert world.entry("b").releases == [] and world.entry("b").held["reason"] == "deadline"
    world.now = 10_000.0
    world.step(3)
    assert len(world.pool.sent) == 3
    assert "1 of 1 automatic feedbacks used" in world.log() and "the due date has passed" in world.log()


def test_an_assignment_switched_off_is_not_graded(tmp_path):
    """Does the service leave alone every assignment not listed in c.GradingService.assignments?"""
    world = World(tmp_path, Policy(("another",)))
    world.submit("a")
    world.step(2)
    assert world.pool.sent == []


def test_paused_service_takes_no_new_job(tmp_path):
    """While paused, are submissions left waiting, and graded after resume?"""
    world = World(tmp_path, Policy((A,)))
    control.pause_file(world.course).parent.mkdir(parents=True)
    control.pause_file(world.course).write_text("by hand")
    world.submit("a")
    world.step(2)
    assert world.pool.sent == []
    control.resume(world.course)
    world.step()
    assert [j.student for j in world.pool.sent] == ["a"]
    assert "paused: waiting for the pause file" in world.log() and "resumed" in world.log()


def autograded(world, student, stamp):
    """What nbgrader's autograde leaves: autograded/<student>/<assignment>/timestamp.txt of the submission."""
    folder = world.course / "autograded" / student / A
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timestamp.txt").write_text(stamp)


def test_graded_by_hand_while_paused_is_left_to_the_instructor(tmp_path):
    """Paused, the service saw a submission; the instructor graded it by hand: after resume, no second grading."""
    world = World(tmp_path, Policy((A,)))
    control.pause_file(world.course).parent.mkdir(parents=True)
    control.pause_file(world.course).write_text("by hand")
    stamp = world.submit("a")
    world.step()
    autograded(world, "a", stamp)
    control.resume(world.course)
    world.step(2)
    assert world.pool.sent == [] and world.entry("a").graded == stamp
    assert "was graded by hand (autograded/ holds it): left to the instructor" in world.log()
    newer = world.submit("a")
    world.step()
    assert [j.timestamp for j in world.pool.sent] == [newer]


@pytest.mark.parametrize("graded_before_kill, kind", [(False, GRADE), (True, RELEASE)])
def test_a_restart_does_the_interrupted_submission_again(tmp_path, graded_before_kill, kind):
    """Killed mid-job: does the next service grade it again (or, graded already, only release it), once?
    (nbgrader may have written autograded/ before the kill: that is not a grading by hand.)"""
    world = World(tmp_path, Policy((A,)))
    stamp = world.submit("a")
    world.step()
    autograded(world, "a", stamp)
    if graded_before_kill:
        world.pool.finish()
        world.pool.messages.pop()  # the "graded" report arrived, the "done" never will
        world.step()
    world.pool = FakePool()  # the old service and its workers are gone
    world.scheduler = world.make(Policy((A,)))
    world.scheduler.resume()
    world.step()
    assert [(j.kind, j.timestamp) for j in world.pool.sent] == [(kind, stamp)]
    world.pool.finish()
    world.step(3)
    assert len(world.pool.sent) == 1 and world.entry("a").releases == [1000.0]
    assert f"interrupted while doing the submission of {short_time(stamp)}" in world.log()


def test_ungradable_and_dead_workers(tmp_path):
    """A submission nbgrader cannot grade gets the page saying so; one whose worker dies (killed: the machine's)
    waits, is tried again after the back-off, and never gets a "not graded" page?"""
    world = World(tmp_path, Policy((A,)))
    first = world.submit("a")
    world.step()
    world.pool.finish(ok=False)
    world.step(2)
    assert world.entry("a").releases == [1000.0]
    assert f"NOT GRADED (submitted {short_time(first)}): NotJSONError: not JSON; feedback released" in world.log()
    second = world.submit("b")
    world.step()
    for tries in range(1, 4):
        world.pool.die()
        world.step(2)
        assert [j.student for j in world.pool.sent].count("b") == tries  # not yet again: backing off
        assert "the grading process died (signal 9)" in world.entry("b").waiting["cause"]
        world.now += RETRY[1]
        world.step()
    assert all(job.kind == GRADE for job in world.pool.sent if job.student == "b")
    world.pool.finish()
    world.step(2)
    assert world.entry("b").releases and world.entry("b").waiting is None
    assert "NOT GRADED" not in world.log().split(short_time(second))[-1]


def test_overrunning_job_is_stopped(tmp_path):
    """Is a job running past job_timeout stopped, and its submission released as not graded?"""
    world = World(tmp_path, Policy((A,), job_timeout=30))
    world.submit("a")
    world.step()
    world.now += 31
    world.step(2)
    last = world.pool.sent[-1]
    assert last.kind == RELEASE and "评分超过 30 秒" in last.notice


def test_a_submission_collected_early_is_not_graded_twice(tmp_path):
    """collect took a's newer submission, which was also queued meanwhile: is that queued job dropped?"""
    world = World(tmp_path, Policy((A,)))
    world.submit("a")
    world.step()
    newer = world.submit("a")
    world.step()
    world.pool.finish(collected=newer)
    world.step(3)
    assert len(world.pool.sent) == 1 and world.entry("a").graded == newer and world.entry("a").released == newer


@pytest.mark.parametrize("graded", [False, True])
def test_a_fault_of_the_machine_is_retried_with_back_off_and_never_released(tmp_path, graded):
    """The gradebook or the exchange failed (before or after grading): nothing released; the job is tried again after
    5 s, then 10 s …; once the machine works, graded (or released) as if nothing had happened?"""
    world = World(tmp_path, Policy((A,)))
    stamp = world.submit("a")
    world.step()
    fault = InfrastructureFault("fault.gradebook_unreachable", "fault.fix_gradebook", error="connection refused")
    world.pool.finish(fault=fault, graded=graded)
    world.step(3)
    assert len(world.pool.sent) == 1 and world.entry("a").releases == []
    assert world.entry("a").waiting["cause"] == fault.said("en")
    assert f"WAITING (submitted {short_time(stamp)}): the machine's fault, not the student's: {fault.said('en')}; " \
           "tried again in 5 s; no feedback until it is graded" in world.log()
    world.now += RETRY[0] + 1
    world.step()
    assert [j.kind for j in world.pool.sent] == [GRADE, RELEASE if graded else GRADE]
    world.pool.finish(fault=fault, graded=False)
    world.step(2)
    world.now += RETRY[0] + 1  # the second back-off is twice as long
    world.step()
    assert len(world.pool.sent) == 2 and "tried again in 10 s" in world.log()
    world.now += RETRY[0] * 2
    world.step()
    world.pool.finish()
    world.step(2)
    assert world.entry("a").releases == [world.now] and world.entry("a").waiting is None


def test_an_exchange_it_cannot_read_holds_everything_back_and_says_why(tmp_path):
    """inbound/ unreadable: no job, the journal and the log name the cause once; readable again: graded?"""
    world = World(tmp_path, Policy((A,)))
    world.submit("a")
    inbound = tmp_path / "exchange" / COURSE_ID / "inbound"
    inbound.rename(inbound.with_name("elsewhere"))
    inbound.write_text("not a folder")  # listing it fails as an unreadable folder would (NotADirectoryError)
    world.step(3)
    assert world.pool.sent == [] and "inbound folder cannot be read" in world.scheduler.journal.machine["cause"]
    assert world.log().count("WAITING: the machine's fault") == 1
    inbound.unlink()
    inbound.with_name("elsewhere").rename(inbound)
    world.step()
    assert [j.student for j in world.pool.sent] == ["a"] and world.scheduler.journal.machine is None
    assert "the machine's fault is gone: grading again" in world.log()


def test_is_a_release_tried_by_every_worker_when_it_appears_not_at_the_first_submission(tmp_path):
    """Nothing released: no job, nothing alarming in the log. The instructor releases: each worker tries the release
    at once (the canary, warming its kernel template), even while paused; a failure there is the machine's."""
    world = World(tmp_path, Policy((A,)), workers=2)
    world.step(2)
    assert world.pool.sent == [] and "WAITING" not in (world.log() if (world.course / "service.log").exists() else "")
    control.pause(world.course)
    (world.course / "release" / A).mkdir(parents=True)
    (world.course / "release" / A / f"{A}.ipynb").write_text("{}")
    world.step()
    assert [(type(job).__name__, job.assignment) for job in world.pool.sent] == [("Warm", A), ("Warm", A)]
    world.pool.messages += [Done(0, world.pool.holding[0], None), Faulted(1, world.pool.holding[1], NO_BWRAP)]
    world.step()
    assert f"grading worker 0 ready for {A}" in world.log()
    assert f"WAITING: the machine's fault, nobody's grade: grading worker 1 cannot grade {A}: {NO_BWRAP}" in world.log()
    world.step(2)
    assert len(world.pool.sent) == 2  # tried once per release, not every round


def test_does_a_worker_set_up_without_trying_an_assignment_not_released_yet(tmp_path):
    """The service's worker on a course with no release: no app built, no canary run, nothing told."""
    from coursekit.service.worker import ServiceSetup
    told = []
    handler = ServiceSetup(str(tmp_path), "sqlite://", (A,))(told.append)
    assert told == [] and handler.apps == {}


def test_a_refused_folder_is_logged_once_named_by_status_and_never_graded(tmp_path, capsys):
    """b's folder holds a FIFO secret: the poll goes on (a is graded), the refusal is logged once under b, and
    `make service-status` names the folder and why, until it is gone from inbound/."""
    world = World(tmp_path, Policy((A,)))
    world.submit("a")
    hostile = world.inbound() / f"b+{A}+2026-12-01 10:30:00.000000 UTC+x\x1b]0;owned\x07"  # a terminal's title
    hostile.mkdir()
    os.mkfifo(hostile / "submission_secret.txt")
    world.step(3)
    assert [job.student for job in world.pool.sent] == ["a"]
    refused = [line for line in world.log().splitlines() if "REFUSED" in line]
    shown = hostile.name.replace("\x1b", "\\x1b").replace("\x07", "\\x07")  # escaped, never obeyed
    assert len(refused) == 1 and f"  {A}  b  REFUSED inbound/{shown}: submission_secret.txt is a named pipe" \
        in refused[0], refused
    main(["status", "--course", str(world.course)])  # make service-status
    said = capsys.readouterr().out
    assert WORDS.say("zh", "service.refused", name=shown, reason="submission_secret.txt is a named pipe (FIFO)") in said
    assert "\x1b" not in said + world.log()
    hostile.joinpath("submission_secret.txt").unlink()
    hostile.rmdir()
    world.now += 10
    world.step()
    assert "inbound/" not in status(world.course)


def test_a_job_refused_as_it_is_collected_ends_without_feedback_and_is_not_done_again(tmp_path):
    """The folder changed between the poll and the collect (collect refused it): no feedback, none held back, the
    same submission never queued again, and the log and status say so."""
    world = World(tmp_path, Policy((A,)))
    stamp = world.submit("a")
    world.step()
    world.pool.finish(refused=f"inbound/{world.folder.name}: ch04_attention.ipynb: expected a regular file")
    world.step(3)
    entry = world.entry("a")
    assert entry.graded == stamp and entry.held is None and entry.releases == [] and len(world.pool.sent) == 1
    assert f"  a  REFUSED (submitted {short_time(stamp)}): inbound/" in world.log()
    assert "never collected, no feedback" in world.log()
    said = WORDS.say("zh", "service.refused_at_collect", reason="ch04_attention.ipynb: expected a regular file")
    assert said in status(world.course)  # in the course's language (Chinese: the course has no config)


def test_does_a_worker_whose_collect_refuses_the_folder_note_it_and_release_nothing(monkeypatch):
    """run_job when collect refuses the job's folder (it changed since it was listed): a refused result, no grading,
    no feedback step."""
    from coursekit.inbound import Refusal, Refused
    from coursekit.service import steps
    from coursekit.service.fair_queue import Job
    from coursekit.service.worker import run_job

    refusal = Refusal(f"a+{A}+t+r", "file", "ch04_attention.ipynb was refused as it was read: a pipe", "a", A, "t")
    monkeypatch.setattr(steps, "collect", lambda *args: (_ for _ in ()).throw(Refused(refusal)))
    for step in ("generate_feedback", "write_notice", "release_feedback"):
        monkeypatch.setattr(steps, step, lambda *args: pytest.fail("nothing may be released"))
    noted = []
    outcome = run_job(None, Job((A, "a"), GRADE, "t", arrived=0.0, release=True), noted.append)
    assert outcome.released is False and outcome.timestamp == "t"
    assert [(n.timestamp, n.result["refused"], n.result["reason"]) for n in noted] == [("t", True, str(refusal))]


@pytest.mark.parametrize("lang, said", [("zh", "的评分服务：已暂停"), ("en", ": PAUSED")])
def test_does_service_status_speak_the_courses_language(tmp_path, capsys, lang, said):
    """make pause-service and make service-status say what they did in c.CourseKit.language (a Chinese course used to
    read "grading service of …: not paused")?"""
    world = World(tmp_path, Policy((A,)))
    (world.course / "nbgrader_config.py").write_text(f"c = get_config()  # noqa: F821\nc.CourseKit.language = {lang!r}\n")
    main(["pause", "--course", str(world.course)])
    assert capsys.readouterr().out.strip() == WORDS.say(lang, "service.paused")
    assert said in status(world.course).splitlines()[0]
    main(["resume", "--course", str(world.course)])
    assert capsys.readouterr().out.strip() == WORDS.say(lang, "service.resumed")


def test_does_service_status_name_each_student_as_the_gradebook_does(tmp_path):
    """An LMS class (ids such as lti-…): `make service-status` names each graded student by the name the gradebook
    holds, not by their id; a student the gradebook has no name for keeps their id?"""
    from nbgrader.api import Gradebook

    from support.synthetic_class import empty_gradebook

    world = World(tmp_path, Policy((A,)))
    url = empty_gradebook(world.course / "gradebook.db")
    with Gradebook(url) as gradebook:
        gradebook.update_or_create_student("lti-5sj4xbek4kip6amz", first_name="Wei", last_name="Li")
    for student in ("lti-5sj4xbek4kip6amz", "s2"):
        world.submit(student)
        world.step()
        world.pool.finish()
        world.step(2)
    said = status(world.course)
    lines = [line for line in said.splitlines() if A in line]
    assert any("Wei Li" in line for line in lines) and "lti-5sj4xbek4kip6amz" not in said, said
    assert any("s2" in line for line in lines), said


def test_does_service_status_say_only_the_catalogues_words_in_the_pseudo_locale(tmp_path):
    """A course whose language is the pseudo-locale: `make service-status`, paused, a student graded and one waiting:
    no word outside a catalogue message but the course, its students and assignment?"""
    from coursekit.language import PSEUDO
    from support.pseudo import left_over

    world = World(tmp_path, Policy((A,)))
    (world.course / "nbgrader_config.py").write_text(f'c = get_config()\nc.CourseKit.language = "{PSEUDO}"\n')
    for student in ("s1", "s2"):
        world.submit(student)
    world.step()
    world.pool.finish()
    world.step(2)
    main(["pause", "--course", str(world.course)])
    said = status(world.course)
    data = (str(world.course), A, "s1", "s2")
    assert said.count("\n") >= 2 and [(line, left_over(line, data)) for line in said.splitlines()
                                      if left_over(line, data)] == []

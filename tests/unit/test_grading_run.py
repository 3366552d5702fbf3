"""Does `make grade` stop on bad arguments before it opens a gradebook or starts a worker, and stop a student at one
student's time?"""
import contextlib
import os
import signal
import time

import pytest

from coursekit.language import WORDS


@pytest.mark.parametrize("args, message", [(["--shard", "3/2"], "SHARD must be i/n with 0 <= i < n, got 3/2"),
                                           (["--workers", "0"], "WORKERS must be a positive number")])
def test_does_a_bad_shard_or_worker_count_stop_before_grading(capsys, args, message):
    """SHARD=3/2 or WORKERS=0: a usage error (status 2) that names the rule, before any gradebook or worker?"""
    from coursekit.grading.run import main
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("cores, workers", [(2, 3), (8, 9), (None, 2)])
def test_are_there_one_more_workers_than_cores_by_default(monkeypatch, cores, workers):
    """No WORKERS: one more than the cores (a worker and its kernel take turns); no core count known: 2."""
    from coursekit.grading import run
    monkeypatch.setattr(run.os, "cpu_count", lambda: cores)
    assert run._parser().parse_args([]).workers == workers
    assert run._parser().parse_args(["--workers", "1"]).workers == 1


@pytest.mark.parametrize("shard, lang, said", [("", "zh", "：提交了的学生都已评分"), ("1/3", "zh", "分片 1/3 里提交了的学生"),
                                               ("", "en", "every submitted student is graded"),
                                               ("1/3", "en", "every submitted student of shard 1/3 is graded")])
def test_does_nothing_to_grade_name_a_shard_only_when_there_is_one(capsys, tmp_path, shard, lang, said):
    """Nobody left to grade: the line speaks of a shard only when SHARD=i/n asked for one?"""
    from types import SimpleNamespace

    from coursekit.grading.run import _grade_assignment
    from coursekit.grading.selection import parse_shard
    from coursekit.settings import CourseSettings
    settings = CourseSettings("c", "", "", language=lang)
    status = _grade_assignment(tmp_path, "a1", [], "sqlite://", SimpleNamespace(workers=1), parse_shard(shard),
                               settings, [])
    out = capsys.readouterr().out
    assert status == 0 and said in out and ("分片" in out or "shard" in out) == bool(shard)


class _HeldPool:
    """A pool of one worker that measures the release as it sets up (its canary), says it is ready, then never
    finishes its student: what a student who sleeps in every cell looks like from make grade's side."""

    def __init__(self, course, seconds: float):
        self.course, self.seconds, self.told, self.replaced, self.held = course, seconds, False, 0, None
        self.until = time.monotonic() + 10  # a make grade that never stops the student is interrupted, not waited on

    def idle(self):
        return [0] if self.told and self.held is None else []

    def send(self, index, student):
        self.held = student

    def get(self, timeout):
        from coursekit import canary
        from coursekit.grading.pool import Ready
        if not self.told:
            canary._remember(self.course, canary.ReleaseRun("a1", {}, self.seconds))
            self.told = True
            return Ready(0)
        if time.monotonic() > self.until:
            raise KeyboardInterrupt
        return None

    def replace(self, index):
        self.replaced += 1
        self.held = None

    def finished(self, index):
        self.held = None

    def dead(self, restart=True):
        return []

    def stop(self):
        pass


def test_is_a_student_stopped_at_the_time_the_workers_measured_and_named(monkeypatch, tmp_path):
    """c.CourseKit.student_seconds unset: once its worker has measured the release (0.02 s), the student who never
    finishes is stopped at 30 times that (above three cell timeouts of 0.1 s), scored 0 with the reason, and named
    with where the time came from?"""
    from coursekit.grading import run
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Execute.timeout = 0.1\n", encoding="utf-8")
    pool = _HeldPool(tmp_path, 0.02)
    zeroed = []
    monkeypatch.setattr(run, "WorkerPool", lambda *args: pool)
    monkeypatch.setattr(run, "zero_submission", lambda url, assignment, student, reason: zeroed.append(student))
    progress, stopped = run.grade_class(tmp_path, "a1", ["sleeper"], "sqlite://", 1, show=lambda *a, **k: None,
                                        lang="en")
    assert (stopped, zeroed, pool.replaced, progress.budget.source) == ("", ["sleeper"], 1, "canary")
    assert progress.budget.seconds == pytest.approx(0.6) and progress.results[0].over_budget
    assert "OVER TIME sleeper: at most 0.6 s per student (30 × the release's 0.02 s of grading)" in progress.summary()


def _course_of_two_editions(tmp_path, lang: str):
    """A course folder holding two editions of one assignment and nothing collected: what a new hub starts with."""
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseKit.language = {lang!r}\n"
        "c.CourseKit.assignments = {'a1': {}, 'a1_en': {'edition_of': 'a1', 'language': 'en'}}\n")
    for name in ("a1", "a1_en"):
        (tmp_path / "source" / name).mkdir(parents=True)
    return tmp_path


@contextlib.contextmanager
def _service_holding(course):
    """Another process holding the course's service lock, as a running grading service does."""
    from coursekit.grading import lock
    from coursekit.locks import take
    lock.service_pid_file(course).parent.mkdir(exist_ok=True)
    fd = take(lock.service_pid_file(course))
    child = os.fork()
    if child == 0:  # keeps the lock it inherited until killed
        time.sleep(60)
        os._exit(0)
    os.close(fd)
    try:
        yield
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("service", [False, True])
def test_is_nothing_collected_yet_said_once_for_every_edition_and_not_a_failure(capsys, tmp_path, monkeypatch, lang,
                                                                                 service):
    """make grade before any submission was collected: status 0, one line naming both editions and how submissions
    arrive: nbgrader's collect for each, or, while the course's grading service runs, that the service collects?"""
    from coursekit.grading import lock, run
    monkeypatch.delenv("ASSIGNMENT", raising=False)
    course = _course_of_two_editions(tmp_path, lang)
    with _service_holding(course) if service else contextlib.nullcontext():
        assert lock.service_running(course) == service
        status = run.main(["--course", str(course)])
    out = capsys.readouterr().out
    assert status == 0 and out.count("\n") == 1, out
    assert "a1" in out and "a1_en" in out and str(course / "submitted") in out
    if service:
        assert WORDS.say(lang, "grading.service_collects") in out and "nbgrader collect" not in out
    else:
        assert "`nbgrader collect a1`" in out and "`nbgrader collect a1_en`" in out
        assert WORDS.say(lang, "grading.collect", commands="").split("{")[0].split(" (")[0].split("（")[0].strip() in out


def _failed(student: str, error: str):
    from coursekit.gradebook import not_graded_reason
    from coursekit.grading.progress import StudentResult
    return StudentResult(student, False, not_graded_reason(error, "old1", student))


@pytest.mark.parametrize("results, total, course_fault", [
    ([("s1", "KeyError: 'grade_id'"), ("s2", "KeyError: 'grade_id'"), ("s3", "KeyError: 'grade_id'")], 30, True),
    ([("s1", "KeyError: 'grade_id'"), ("s2", "KeyError: 'grade_id'")], 30, False),           # too few yet
    ([("s1", "KeyError: 'grade_id'"), ("s2", "KeyError: 'grade_id'")], 2, True),             # the whole class
    ([("s1", "KeyError: 'grade_id'")], 1, False),                                            # one student: theirs
    ([("s1", "KeyError: 'grade_id'"), ("s2", "NotJSONError: not JSON"), ("s3", "KeyError: 'grade_id'")], 30, False),
    ([("s1", "KeyError: 'grade_id'"), ("s2", None), ("s3", "KeyError: 'grade_id'")], 30, False),  # s2 graded
], ids=["three-alike", "two-of-thirty", "a-class-of-two", "one-student", "two-reasons", "one-graded"])
def test_is_a_class_failing_the_same_way_the_courses_fault(results, total, course_fault):
    """The first students of a run all failing with one reason (their ids aside), nobody graded: one line saying it
    is the course's fault, with the error, and that nobody was given a grade for it; otherwise each student's own?"""
    from coursekit.grading.progress import StudentResult
    from coursekit.grading.run import class_wide_failure
    made = [StudentResult(s, True) if error is None else _failed(s, error) for s, error in results]
    fault = class_wide_failure(made, total, "old1")
    assert (fault is not None) == course_fault
    if course_fault:
        said = str(fault)
        assert said.startswith("grading stopped, the course's fault (no student was given a grade for it)")
        assert "KeyError: 'grade_id'" in said and "old1" in said and "\n" not in said and "s1" not in said


def test_are_the_students_of_a_course_fault_given_no_grade(tmp_path):
    """Their submissions' rows (the 0 with the reason) and any autograded folder removed: collected, not graded,
    for the next run; another assignment's and other students' rows stay?"""
    from nbgrader.api import Gradebook

    from coursekit.grading.run import _not_graded_after_all
    from support.synthetic_class import ASSIGNMENT, make_student, write_class

    url = write_class(tmp_path, [make_student("s1"), make_student("s2"), make_student("s3")])
    _not_graded_after_all(tmp_path, url, ASSIGNMENT, ["s1"], {0: "s2"})
    with Gradebook(url) as gradebook:
        assert sorted(s.student.id for s in gradebook.find_assignment(ASSIGNMENT).submissions) == ["s3"]
    assert not (tmp_path / "autograded" / "s1" / ASSIGNMENT).exists()
    assert (tmp_path / "autograded" / "s3" / ASSIGNMENT).exists()

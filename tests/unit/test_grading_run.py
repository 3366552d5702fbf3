"""Does `make grade` stop on bad arguments before it opens a gradebook or starts a worker, and stop a student at one
student's time?"""
import time

import pytest


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

"""Does `make grade` stop on bad arguments before it opens a gradebook or starts a worker?"""
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

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

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

"""Does a lock file taken without waiting (coursekit.locks) go to one process at a time, and tell who still holds it?"""
import os
import subprocess
import sys

from coursekit.locks import held, take

HOLD = ("import sys, time\nfrom coursekit.locks import take\nassert take(sys.argv[1]) is not None\n"
        "print('held', flush=True)\ntime.sleep(30)")


def test_does_a_lock_another_process_holds_stay_its(tmp_path):
    path = tmp_path / "uid.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert take(path) is None and held(path)
    finally:
        holder.kill()
        holder.wait()
    assert not held(path)  # its holder is gone: free, whoever it was


def test_is_a_lock_taken_here_free_again_once_closed(tmp_path):
    fd = take(tmp_path / "service.pid")
    assert fd is not None and (tmp_path / "service.pid").exists()
    os.close(fd)
    assert take(tmp_path / "service.pid") is not None


def test_is_a_missing_or_unreadable_lock_file_left_alone(tmp_path):
    """What cannot be opened is not ours to judge: held, so no caller removes what it guards."""
    assert held(tmp_path / "nothing.lock")

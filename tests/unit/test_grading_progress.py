"""Does coursekit.grading.progress show done/total, failures so far, an honest ETA and a useful summary?"""
import pytest

from coursekit.grading.progress import Progress, StudentResult, format_duration


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize("seconds, text", [(0, "0:00"), (59.6, "1:00"), (75, "1:15"), (3725, "1:02:05"),
                                           (None, "?"), (-3, "0:00")])
def test_does_a_duration_read_like_a_clock(seconds, text):
    """m:ss under an hour, h:mm:ss above; unknown shows "?"?"""
    assert format_duration(seconds) == text


def test_is_the_eta_the_pace_so_far_times_what_is_left():
    """2 of 10 done after 20 s -> 80 s left; no estimate before the first result?"""
    clock = Clock()
    progress = Progress(10, clock)
    assert progress.eta() is None
    clock.now += 20
    progress.record(StudentResult("a", True, seconds=10))
    line = progress.record(StudentResult("b", False, "NotJSONError: bad", seconds=10))
    assert progress.eta() == pytest.approx(80)
    assert line.startswith("[ 2/10] FAILED b") and "failed so far: 1" in line and "ETA 1:20" in line


def test_does_the_summary_list_each_failure_with_its_reason():
    """Counts of graded / failed / not graded, each failed student with the reason, and what to do next?"""
    clock = Clock()
    progress = Progress(3, clock)
    progress.record(StudentResult("ok_student", True))
    progress.record(StudentResult("broken", False, "NotJSONError: Notebook does not appear to be JSON"))
    clock.now += 65
    summary = progress.summary(Progress.INTERRUPTED)
    assert summary.splitlines()[0].startswith("Interrupted: 1 graded, 1 failed, 1 not graded, of 3 in 1:05")
    assert "  FAILED broken: NotJSONError: Notebook does not appear to be JSON" in summary
    assert "make grade" in summary.splitlines()[-1]
    assert "FAILED" not in Progress(0, clock).summary()

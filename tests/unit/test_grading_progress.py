"""Does coursekit.grading.progress show done/total, failures so far, an honest ETA and a useful summary, in the course's
language?"""
import re

import pytest

from coursekit.canary import Budget
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
    progress = Progress(10, clock, lang="en")
    assert progress.eta() is None
    clock.now += 20
    progress.record(StudentResult("a", True, seconds=10))
    line = progress.record(StudentResult("b", False, "NotJSONError: bad", seconds=10))
    assert progress.eta() == pytest.approx(80)
    assert line.startswith("[ 2/10] FAILED b") and "failed so far: 1" in line and "ETA 1:20" in line


def test_does_the_summary_list_each_failure_with_its_reason():
    """Counts of graded / failed / not graded, each failed student with the reason, and what to do next?"""
    clock = Clock()
    progress = Progress(3, clock, lang="en")
    progress.record(StudentResult("ok_student", True))
    progress.record(StudentResult("broken", False, "NotJSONError: Notebook does not appear to be JSON"))
    clock.now += 65
    summary = progress.summary(Progress.INTERRUPTED)
    assert summary.splitlines()[0].startswith("Interrupted: 1 graded, 1 failed, 1 not graded, of 3 in 1:05")
    assert "  FAILED broken: NotJSONError: Notebook does not appear to be JSON" in summary
    assert "make grade" in summary.splitlines()[-1]
    assert "FAILED" not in Progress(0, clock, lang="en").summary()


def test_does_a_chinese_course_read_the_same_in_chinese():
    """The course's default: the same line and summary in Chinese (no English word of ours), the same numbers?"""
    clock = Clock()
    progress = Progress(3, clock)
    clock.now += 20
    line = progress.record(StudentResult("broken", False, "NotJSONError: bad", seconds=10))
    progress.record(StudentResult("ok_student", True, notes=["changed test cell"]))
    summary = progress.summary(Progress.INTERRUPTED)
    assert line == "[1/3] 失败 broken（10.0 秒）· 已失败 1 · 预计还需 0:40"
    assert summary.splitlines()[0] == "已中断：1 名已评分，1 名失败，1 名未评分，共 3 名，用时 0:20，每名 10.00 秒"
    assert "  失败   broken：NotJSONError: bad" in summary and "  注意   ok_student：changed test cell" in summary
    ours = summary.replace("NotJSONError: bad", "").replace("changed test cell", "")
    assert not re.findall(r"[A-Za-z]{3,}", ours.replace("broken", "").replace("ok_student", "").replace("make grade",
                                                                                                       ""))


@pytest.mark.parametrize("budget, why", [
    (Budget(30.0, "floor", 0.21, 10.0), "3 cell timeouts of 10 s"),
    (Budget(45.0, "canary", 1.5, 10.0), "30 × the release's 1.50 s of grading"),
    (Budget(14.0, "config", None, 6.0), "c.CourseKit.student_seconds"),
])
def test_does_the_summary_name_who_went_over_the_time_and_where_the_time_came_from(budget, why):
    """The students stopped at one student's time, in one line with that time and how it was set; nobody else?"""
    progress = Progress(3, Clock(), lang="en")
    progress.budget = budget
    progress.record(StudentResult("sleeper", False, "took too long", budget.seconds, over_budget=True))
    progress.record(StudentResult("broken", False, "NotJSONError: bad"))
    progress.record(StudentResult("fine", True))
    over = [line for line in progress.summary().splitlines() if line.startswith("  OVER TIME")]
    assert over == [f"  OVER TIME sleeper: at most {budget.seconds:g} s per student ({why}); stopped there and scored 0"]
    progress.results.pop(0)
    assert "OVER TIME" not in progress.summary()


def test_does_make_grade_say_only_the_catalogues_words_in_the_pseudo_locale():
    """Each progress line and the summary (failures, notes, a student over time), in the pseudo-locale: no word
    outside a catalogue message but the students and their reasons?"""
    from coursekit.language import PSEUDO
    from support.pseudo import left_over

    clock, data = Clock(), ("sleeper", "broken", "fine", "NotJSONError: bad", "took too long", "changed test cell")
    progress = Progress(3, clock, lang=PSEUDO)
    progress.budget = Budget(45.0, "canary", 1.5, 10.0)
    clock.now += 20
    lines = [progress.record(StudentResult("sleeper", False, "took too long", 45.0, over_budget=True)),
             progress.record(StudentResult("broken", False, "NotJSONError: bad", seconds=10)),
             progress.record(StudentResult("fine", True, notes=["changed test cell"]))]
    lines += progress.summary(Progress.INTERRUPTED).splitlines()
    assert [(line, left_over(line, data)) for line in lines if left_over(line, data)] == []

"""What does the canary leave for the other tools (coursekit.canary), and how is one student's time derived from it?

Running the release in a real sandboxed kernel is make grade's (tests/integration/test_course_robustness.py reads what
the shared class's workers left); here, what is written and read back, and the rule for one student's time.
"""
import pytest

from coursekit import canary
from coursekit.record import GRADED, CellRecord, Check

RECORD = CellRecord("test1_scores", 1, 4.0, 1.75, GRADED, "", (Check("verify.1", True, "返回 0", True),))


def _course(tmp_path, config: str = ""):
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\n{config}", encoding="utf-8")
    return tmp_path


def test_does_what_the_canary_found_come_back_as_it_was_written(tmp_path):
    """The release's records and its measured seconds, read back equal; the file where RUN_FILE says?"""
    run = canary.ReleaseRun("ch04_attention", {"test1_scores": RECORD}, 0.21)
    canary._remember(tmp_path, run)
    assert (tmp_path / "grading-logs" / "canary-ch04_attention.json").is_file()
    assert canary.last_run(tmp_path, "ch04_attention") == run
    assert canary.release_records(tmp_path, "ch04_attention") == {"test1_scores": RECORD}


@pytest.mark.parametrize("text", ["", "{", '{"assignment": "a", "records": {}, "seconds": -1}',
                                  '{"assignment": "a", "records": {"t": {"schema": 9}}}'])
def test_is_a_file_that_cannot_be_read_as_none_having_run(tmp_path, text):
    """A half-written, broken or foreign file: as if no canary ran (the next one writes it again)?"""
    (tmp_path / "grading-logs").mkdir()
    (tmp_path / "grading-logs" / "canary-a.json").write_text(text, encoding="utf-8")
    assert canary.last_run(tmp_path, "a") is None and canary.release_records(tmp_path, "a") == {}


@pytest.mark.parametrize("config, seconds, budget", [
    ("c.Execute.timeout = 10\n", None, canary.Budget(30.0, "floor", None, 10.0)),       # nothing measured yet
    ("c.Execute.timeout = 10\n", 0.22, canary.Budget(30.0, "floor", 0.22, 10.0)),       # 30 × 0.22 s < the floor
    ("c.Execute.timeout = 10\n", 2.5, canary.Budget(75.0, "canary", 2.5, 10.0)),        # a slow machine: 30 × 2.5 s
    ("", None, canary.Budget(90.0, "floor", None, 30.0)),                               # nbgrader's cell timeout, 30 s
    ("c.Execute.timeout = 10\nc.CourseKit.student_seconds = 14\n", 2.5,
     canary.Budget(14.0, "config", None, 10.0)),                                        # the config's word wins
])
def test_is_one_students_time_derived_from_the_release_unless_the_config_sets_it(tmp_path, config, seconds, budget):
    """30 × the release's warm grading time, at least three cell timeouts; c.CourseKit.student_seconds when set?"""
    course = _course(tmp_path, config)
    if seconds is not None:
        canary._remember(course, canary.ReleaseRun("ch04_attention", {}, seconds))
    assert canary.student_budget(course, ["ch04_attention"]) == budget


def test_does_the_slowest_measured_edition_count(tmp_path):
    """Two editions measured: the slower one's time (one budget for every student of the course)?"""
    course = _course(tmp_path, "c.Execute.timeout = 1\n")
    canary._remember(course, canary.ReleaseRun("a", {}, 0.2))
    canary._remember(course, canary.ReleaseRun("a_en", {}, 0.4))
    assert canary.student_budget(course, ["a", "a_en"]).seconds == pytest.approx(12.0)


def test_does_a_course_that_cannot_take_the_file_only_say_so(tmp_path, capsys):
    """grading-logs/ cannot be made (a file stands there): nothing raised, one line in the log, nothing remembered?"""
    (tmp_path / "grading-logs").write_text("not a folder", encoding="utf-8")
    canary._remember(tmp_path, canary.ReleaseRun("a", {}, 0.2))
    assert "canary-a.json not written" in capsys.readouterr().err and canary.last_run(tmp_path, "a") is None

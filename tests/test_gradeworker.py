"""Does coursekit.gradeworker turn nbgrader's error log into one honest reason per failed student?"""
from coursekit.gradeworker import failure_reason

DB_TRACE = ("Traceback (most recent call last):\n  File \"x.py\", line 1\nsqlalchemy.exc.OperationalError: "
            "(sqlite3.OperationalError) database is locked")


def test_is_the_course_reason_preferred():
    """ZeroOnFailureExporter's 'Not graded automatically …' is the reason, without the student prefix?"""
    messages = ["There was an error processing assignment: /c/submitted/s/hw",
                "s: Not graded automatically, scored 0: NotJSONError: bad. After fixing …",
                "Traceback (most recent call last):\n  …\nNotJSONError: bad"]
    assert failure_reason(messages) == "Not graded automatically, scored 0: NotJSONError: bad. After fixing …"


def test_is_a_gradebook_error_called_what_it_is():
    """A locked or unreachable gradebook is reported as such (not as "run nbgrader db upgrade")?"""
    messages = [DB_TRACE, "There was an error accessing the nbgrader database. This may occur if you recently "
                          "upgraded nbgrader. … `nbgrader db upgrade`."]
    reason = failure_reason(messages)
    assert reason.startswith("gradebook unavailable") and reason.endswith("database is locked")
    assert "db upgrade" not in reason


def test_is_there_always_a_reason():
    """A traceback's last line, else the first message, else a placeholder (never an empty reason)?"""
    assert failure_reason(["Traceback (most recent call last):\n  …\nKeyError: 'cells'"]) == "KeyError: 'cells'"
    assert failure_reason(["", "No notebooks were matched by 'x'"]) == "No notebooks were matched by 'x'"
    assert failure_reason([]) == "nbgrader reported an error without a message"


def test_does_the_worker_keep_the_course_output_cap_and_start_kernels_ahead(tmp_path, monkeypatch):
    """The course's executor (CappedExecute) gains the warm start in a worker; nothing else is replaced?"""
    from nbgrader.preprocessors import Execute

    from coursekit.gradeworker import make_app
    from coursekit.output_cap import CappedExecute
    from coursekit.paths import copy_course
    from coursekit.warm_execute import WarmExecute

    monkeypatch.chdir(tmp_path)  # make_app changes into the course
    course = copy_course(tmp_path / "course")
    steps = make_app(course, "ch04_attention", f"sqlite:///{tmp_path / 'gradebook.db'}").config.Autograde[
        "autograde_preprocessors"]
    executors = [s for s in steps if issubclass(s, Execute)]
    assert len(executors) == 1 and issubclass(executors[0], WarmExecute) and issubclass(executors[0], CappedExecute)
    cold = make_app(course, "ch04_attention", f"sqlite:///{tmp_path / 'gradebook.db'}", warm=False)
    assert [s for s in cold.config.Autograde["autograde_preprocessors"] if issubclass(s, Execute)] == [CappedExecute]

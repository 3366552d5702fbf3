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

"""Does coursekit.grading.worker tell one honest reason per failed student, from data rather than the log?"""
import sqlalchemy.exc

from coursekit.grading.worker import GRADEBOOK_TROUBLE, failure_reason
from coursekit.plugins.failures import Failure


class _Exporter:
    failure = None


class _Converter:
    """What failure_reason reads of nbgrader's converter: its exporter and the exception it caught."""

    def __init__(self, failure=None, error=None):
        self.exporter, self.error = _Exporter(), error
        self.exporter.failure = failure


def test_is_the_course_reason_preferred():
    """ZeroOnFailureExporter's recorded reason (the gradebook's comment) is the reason, whatever nbgrader caught?"""
    failure = Failure("s", "NotJSONError: bad", "Not graded automatically, scored 0: NotJSONError: bad. After …")
    assert failure_reason(_Converter(failure, ValueError("x"))) == failure.reason


def test_is_a_gradebook_error_called_what_it_is():
    """A locked or unreachable gradebook is reported as such (not as "run nbgrader db upgrade")?"""
    error = sqlalchemy.exc.OperationalError("INSERT …", {}, Exception("database is locked"))
    reason = failure_reason(_Converter(error=error))
    assert reason.startswith(GRADEBOOK_TROUBLE) and "database is locked" in reason and "db upgrade" not in reason


def test_is_there_always_a_reason():
    """The caught exception's type and message, else a pointer to the log (never an empty reason)?"""
    assert failure_reason(_Converter(error=KeyError("cells"))) == "KeyError: 'cells'"
    assert "worker's log" in failure_reason(_Converter())


def test_does_the_worker_keep_the_course_output_cap_and_start_kernels_ahead(tmp_path, monkeypatch):
    """The course's executor (CappedExecute) gains the warm start in a worker; nothing else is replaced?"""
    from nbgrader.preprocessors import Execute, SaveAutoGrades

    from coursekit.grading.warm_execute import WarmExecute
    from coursekit.grading.worker import make_app
    from coursekit.paths import copy_course
    from coursekit.plugins.output_cap import CappedExecute
    from coursekit.plugins.saved_grades import SaveAutoGradesAtOnce

    monkeypatch.chdir(tmp_path)  # make_app changes into the course
    course = copy_course(tmp_path / "course")
    steps = make_app(course, "ch04_attention", f"sqlite:///{tmp_path / 'gradebook.db'}").config.Autograde[
        "autograde_preprocessors"]
    executors = [s for s in steps if issubclass(s, Execute)]
    assert len(executors) == 1 and issubclass(executors[0], WarmExecute) and issubclass(executors[0], CappedExecute)
    assert SaveAutoGradesAtOnce in steps and SaveAutoGrades not in steps  # the course's one-commit saving stays
    cold = make_app(course, "ch04_attention", f"sqlite:///{tmp_path / 'gradebook.db'}", warm=False)
    [cold_executor] = [s for s in cold.config.Autograde["autograde_preprocessors"] if issubclass(s, Execute)]
    assert issubclass(cold_executor, WarmExecute) and issubclass(cold_executor, CappedExecute)  # stopped at once
    assert cold.config.WarmExecute.start_ahead is False

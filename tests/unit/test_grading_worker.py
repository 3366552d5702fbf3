"""Does coursekit.grading.worker tell one honest reason per failed student, from data rather than the log?"""
from coursekit.grading.worker import failure_reason
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


def test_is_there_always_a_reason():
    """The caught exception's type and message, else a pointer to the log (never an empty reason)?"""
    assert failure_reason(_Converter(error=KeyError("cells"))) == "KeyError: 'cells'"
    assert "worker's log" in failure_reason(_Converter())


def test_does_the_worker_grade_with_nbgraders_own_execute_and_the_courses_steps(tmp_path, monkeypatch):
    """A worker's app runs nbgrader's Execute itself (the course's kernel manager and hooks under it, named by the
    worker as by the config) and the course's one-commit saving: nothing of nbgrader's replaced by the worker?"""
    from nbgrader.preprocessors import Execute, SaveAutoGrades

    from coursekit.grading.worker import make_app
    from coursekit.kernel import HOOKS, GradingKernelManager
    from coursekit.paths import copy_course
    from coursekit.plugins.saved_grades import SaveAutoGradesAtOnce

    monkeypatch.chdir(tmp_path)  # make_app changes into the course
    course = copy_course(tmp_path / "course")
    app = make_app(course, "ch04_attention", f"sqlite:///{tmp_path / 'gradebook.db'}")
    steps = app.config.Autograde["autograde_preprocessors"]
    assert [s for s in steps if issubclass(s, Execute)] == [Execute]
    assert SaveAutoGradesAtOnce in steps and SaveAutoGrades not in steps
    assert app.config.Execute.kernel_manager_class is GradingKernelManager
    assert {trait: app.config.Execute[trait] for trait in HOOKS} == HOOKS


def test_does_the_converter_hand_each_notebook_the_answers_of_the_copy_it_replaces(tmp_path):
    """Before nbgrader removes a student's autograded copy (``--force``), the worker's converter reads its answers;
    each notebook's resources then carry that notebook's, and a notebook never graded before carries none?"""
    import nbformat
    from nbformat.v4 import new_markdown_cell, new_notebook
    from nbgrader.coursedir import CourseDirectory

    from coursekit.autograded import ANSWERS_BEFORE
    from coursekit.grading.worker import _Recording

    coursedir = CourseDirectory(root=str(tmp_path))
    autograded = tmp_path / "autograded" / "s1" / "a1"
    autograded.mkdir(parents=True)
    answer = new_markdown_cell("我写的回答")
    answer.metadata["nbgrader"] = {"grade_id": "q1", "grade": True, "solution": True, "points": 1}
    nbformat.write(new_notebook(cells=[answer, new_markdown_cell("no nbgrader cell")]), autograded / "nb.ipynb")
    (tmp_path / "submitted" / "s1" / "a1").mkdir(parents=True)
    converter = _Recording(coursedir=coursedir)
    converter.force = True
    assert converter.init_destination("a1", "s1") and not autograded.exists()  # nbgrader's own removal, after the read
    submitted = tmp_path / "submitted" / "s1" / "a1"
    assert converter.init_single_notebook_resources(str(submitted / "nb.ipynb"))["nbgrader"][ANSWERS_BEFORE] == {
        "q1": "我写的回答"}
    assert ANSWERS_BEFORE not in converter.init_single_notebook_resources(str(submitted / "other.ipynb"))["nbgrader"]


def test_is_only_an_unreachable_gradebook_tried_again(monkeypatch):
    """A worker meeting the gradebook unreachable tries the student once more (it may be back); any other fault of the
    machine stops at once. Told apart by the fault's message id, whatever language it is said in?"""
    import pytest

    from coursekit.faults import InfrastructureFault
    from coursekit.grading import worker

    unreachable = InfrastructureFault("fault.gradebook_unreachable", "fault.fix_gradebook", error="refused")
    full = InfrastructureFault("fault.disk_full", "fault.fix_disk", where="")
    for fault, tries in ((unreachable, 2), (full, 1)):
        calls = []

        def convert(app, student, fault=fault, calls=calls):
            calls.append(student)
            raise fault
        monkeypatch.setattr(worker, "_convert", convert)
        with pytest.raises(InfrastructureFault) as raised:
            worker.grade_student(None, "s1", retries=1)
        assert raised.value is fault and len(calls) == tries
    outcomes = iter([unreachable, "KeyError: 'x'"])

    def convert_then(app, student):
        outcome = next(outcomes)
        if isinstance(outcome, InfrastructureFault):
            raise outcome
        return outcome
    monkeypatch.setattr(worker, "_convert", convert_then)
    result = worker.grade_student(None, "s1", retries=1)
    assert not result.ok and result.reason == "KeyError: 'x'"

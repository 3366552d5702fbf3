"""coursekit.faults: is each failure the machine's or the notebook's, decided from evidence, and said in one line?

The fault table of the real commands (make grade, the grading service) is tests/integration/test_faults.py;
here the one rule they share, on errors made by hand.
"""
import errno
import shutil
import stat

import pytest
import sqlalchemy.exc
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from coursekit.faults import InfrastructureFault, KernelDidNotStart, TemplateDidNotStart, decide, grader_unreadable

COURSE = "/srv/course"
# what a canary that failed returns (coursekit.canary.canary_fault): a fault of the machine, its ids and values
_RELEASE_FAULT = InfrastructureFault("fault.release_ungradable", "fault.fix_sandbox", assignment="a1",
                                     kind="OSError", error="bwrap: execvp failed")
NEVER = lambda: pytest.fail("the canary was asked, but the error alone decides")  # noqa: E731

def _wrapped(error: BaseException, cause=None, context=None) -> BaseException:
    """``error`` raised from ``cause`` (``raise … from``) or while ``context`` was being handled."""
    error.__cause__, error.__context__ = cause, context
    return error


# (error, the machine's? (a text the one line must hold, or None: the notebook's))
EVIDENT = [
    (sqlalchemy.exc.OperationalError("SELECT …", {}, Exception("connection refused")), "gradebook cannot be reached"),
    (sqlalchemy.exc.InterfaceError("SELECT …", {}, Exception("closed")), "gradebook cannot be reached"),
    (TemplateDidNotStart("exit status 1: bwrap: execvp /x/bin/python: No such file or directory"),
     "bwrap: execvp /x/bin/python"),
    (OSError(errno.ENOSPC, "No space left on device", f"{COURSE}/autograded/s1/a/a.ipynb"), "the machine's disk is full"),
    (OSError(errno.EROFS, "Read-only file system", f"{COURSE}/autograded/s1"), "read-only"),
    (OSError(errno.EACCES, "Permission denied", f"{COURSE}/gradebook.db"), "permission denied"),
    (OSError(errno.EACCES, "Permission denied", "/home/student/x"), None),  # not the course's: the notebook's
    (DeadKernelError("Kernel died"), None),
    # a full disk wrapped: shutil.copytree's list of failures (only their text survives), a cause, a context, arguments
    (shutil.Error([("/c/submitted/s1/a/a.ipynb", "/tmp/attn-template-x/kernel-y/submission/a.ipynb",
                    "[Errno 28] No space left on device: '/tmp/attn-template-x/kernel-y/submission/a.ipynb'")]),
     "the machine's disk is full (/tmp/attn-template-x/kernel-y/submission/a.ipynb)"),
    (shutil.Error([("/c/r/a", "/tmp/q/a", "[Errno 122] Disk quota exceeded: '/tmp/q/a'")]), "disk quota is used up"),
    (_wrapped(RuntimeError("copy failed"), cause=OSError(errno.ENOSPC, "No space left on device", "/tmp/x")),
     "the machine's disk is full (/tmp/x)"),
    (_wrapped(KeyError("x"), context=OSError(errno.ENOSPC, "No space left on device")), "the machine's disk is full"),
    (RuntimeError("kernel failed", [OSError(errno.EDQUOT, "Disk quota exceeded", "/var/tmp/y")]), "quota is used up"),
    # a student's words are never evidence: a copy that failed on the student's own file, an error that only says so
    (shutil.Error([("/c/submitted/s1/a/x", "/tmp/k/x", "[Errno 13] Permission denied: '/tmp/k/x'")]), None),
    (ValueError("[Errno 28] No space left on device (printed by a cell)"), None),
    (CellTimeoutError("A cell timed out"), None),
    (ValueError("Notebook does not appear to be JSON"), None),
]


@pytest.mark.parametrize("error, said", EVIDENT, ids=[f"{type(e).__name__}-{i}" for i, (e, _) in enumerate(EVIDENT)])
def test_is_each_error_the_machines_only_when_it_proves_it(error, said):
    fault = decide(error, COURSE, NEVER)
    if said is None:
        assert fault is None
    else:
        assert isinstance(fault, InfrastructureFault) and said in str(fault)
        assert str(fault).startswith("grading stopped, the machine's fault (no student was given a grade for it)")
        assert "\n" not in str(fault) and "run the command again" in str(fault)


@pytest.mark.parametrize("canary", [None, _RELEASE_FAULT])
def test_does_a_kernel_that_never_started_ask_the_canary(canary):
    """The release starts in the same sandbox: the submission's fault; it does not either: the machine's?"""
    asked = []
    fault = decide(KernelDidNotStart("the kernel died before it ran a cell"), COURSE, lambda: asked.append(1) or canary)
    assert asked == [1] and fault is canary


def test_is_a_fault_a_systemexit_so_nbgrader_stops_and_records_nothing():
    """nbgrader's converter catches Exception for each student: a fault must pass through it and stop the run."""
    fault = InfrastructureFault("fault.grader_missing", "fault.fix_grader_missing", grader="/srv/course/grader")
    assert isinstance(fault, SystemExit) and not isinstance(fault, Exception)
    assert fault.code == str(fault)


@pytest.mark.parametrize("privileged, mode, unreadable", [
    (True, 0o644, False), (True, 0o600, True), (False, 0o600, False), (False, 0o200, True)])
def test_is_a_grader_the_kernels_cannot_read_named_with_the_fix(tmp_path, privileged, mode, unreadable):
    """As root a kernel is another user (others' bits count); as a hub instructor it is that user (owner's bits)?"""
    grader = tmp_path / "grader"
    grader.mkdir()
    (grader / "checks.py").write_text("x = 1\n")
    (grader / "checks.py").chmod(mode)
    fault = grader_unreadable(grader, privileged)
    assert (fault is not None) == unreadable
    if unreadable:
        assert f"{grader / 'checks.py'} has mode {stat.filemode(0o100000 | mode)}" in str(fault)
        assert f"chmod -R a+rX {grader}" in str(fault)


def test_is_a_missing_grader_the_machines(tmp_path):
    assert "the grader" in str(grader_unreadable(tmp_path / "grader", True)) and "is missing" in str(
        grader_unreadable(tmp_path / "grader", True))


@pytest.mark.parametrize("canary", [None, _RELEASE_FAULT])
def test_does_a_template_that_died_under_a_notebook_ask_the_canary(monkeypatch, canary):
    """The kernel died and its template with it: the machine's only if the release cannot be graded either (a
    notebook that took its template down is graded 0 with the reason, the class goes on)?"""
    asked = []
    fault = decide(DeadKernelError("Kernel died"), COURSE, lambda: asked.append(1) or canary, template_died=True)
    assert asked == [1] and (fault is None) == (canary is None)
    if canary is not None:
        assert "template died" in str(fault)


def test_is_a_fault_said_in_its_readers_language_and_carried_between_processes_as_ids():
    """A fault is its message ids and values: said in Chinese for a Chinese course (the catalogue's words around the
    values), English as str() (logs, nbgrader's exit); pickled to the parent process (coursekit.grading.pool) it comes
    back the same fault, still to be said in any language?"""
    import pickle

    from coursekit.faults import CourseFault
    from coursekit.language import WORDS

    for fault in (_RELEASE_FAULT, CourseFault("fault.class_wide", "fault.fix_course_notebooks", count=3,
                                              assignment="a1", error="KeyError: 'grade_id'")):
        again = pickle.loads(pickle.dumps(fault))
        assert type(again) is type(fault) and (again.cause, again.fix, again.values) == (fault.cause, fault.fix,
                                                                                       fault.values)
        whose = WORDS.template("zh", fault.WHOSE).split("{")[0]
        assert again.said("zh").startswith(whose) and fault.values["assignment"] in again.said("zh")
        assert str(again) == again.code == fault.said("en") != fault.said("zh")

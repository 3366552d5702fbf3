"""Does a student's Jupyter server start the kernel template Validate forks from, as it starts (coursekit.plugins.students)?

The server extension reads the settings Validate reads (nbgrader's config files: here the current folder's, as in
a student's home on the hub, with the hub's ``GradingKernelManager.sandbox = False``) and starts the template in
the background; the first Validate then forks from it instead of waiting for its imports.
"""
import logging
import threading

from coursekit.plugins import students
from coursekit.sandbox import forkserver


class _Server:
    log = logging.getLogger("test-students")


def test_is_the_template_running_before_any_validate(tmp_path, monkeypatch):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.Execute.kernel_manager_class = 'coursekit.kernel.GradingKernelManager'\n"
        "c.GradingKernelManager.sandbox = False\n")
    monkeypatch.chdir(tmp_path)
    forkserver._stop_all()
    students._start_template(_Server())
    started = forkserver.running()
    try:
        assert started is not None and started.alive()
        assert "--unsandboxed" in started.process.args
    finally:
        forkserver._stop_all()


def test_does_the_server_start_it_in_the_background(monkeypatch):
    """The extension's load returns at once: the template starts in a thread of its own?"""
    began, release = threading.Event(), threading.Event()

    def slow(serverapp):
        began.set()
        release.wait(10)

    monkeypatch.setattr(students, "_start_template", slow)
    monkeypatch.setattr(students.feedback_watch, "start", lambda serverapp: None)
    monkeypatch.setattr(students, "name_unanswered_questions", lambda: None)
    students._load_jupyter_server_extension(_Server())
    assert began.wait(10)
    release.set()

"""Does a student's Jupyter server start the kernel template Validate forks from once their Lab is up
(coursekit.plugins.students)?

The server extension reads the settings Validate reads (nbgrader's config files: here the current folder's, as in
a student's home on the hub, with the hub's ``GradingKernelManager.sandbox = False``) and starts the template in
the background at the Lab's first ask for the feedback status, not during the log-in; the first Validate then forks
from it instead of waiting for its imports.
"""
import logging
import threading
import types

from coursekit.plugins import students
from coursekit.sandbox import forkserver


class _Server:
    """What the extension's load uses of a Jupyter server: its log, base URL and web application."""
    log = logging.getLogger("test-students")
    base_url = "/"

    def __init__(self):
        self.web_app = types.SimpleNamespace(settings={}, add_handlers=lambda host, handlers: None)


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


def test_does_the_server_start_it_in_the_background_once_the_lab_is_up(monkeypatch):
    """Loading the extension starts nothing; the Lab's first ask (feedback_watch's LAB_UP) starts the template in a
    thread of its own and returns at once; later asks start nothing more?"""
    began, release, calls = threading.Event(), threading.Event(), []

    def slow(serverapp):
        calls.append(serverapp)
        began.set()
        release.wait(10)

    monkeypatch.setattr(students, "_start_template", slow)
    monkeypatch.setattr(students.feedback_watch, "start", lambda serverapp: None)
    monkeypatch.setattr(students, "name_unanswered_questions", lambda: None)
    server = _Server()
    students._load_jupyter_server_extension(server)
    assert not began.wait(0.3)
    lab_up = server.web_app.settings[students.feedback_watch.LAB_UP]
    lab_up()
    lab_up()
    assert began.wait(10)
    release.set()
    assert calls == [server]

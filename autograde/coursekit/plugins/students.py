"""The students' Jupyter server extension: their Validate as the course's; their feedback watched.

A student's Validate button runs nbgrader's ``Validator`` in the student's own Jupyter server,
on their own notebook, with the hub's system-wide settings: the course's kernel (a cell runner
forked from a pre-imported template, outside the sandbox since it is the student's own account:
``c.GradingKernelManager.sandbox = False``) and this extension, enabled in the same settings
(``jpserver_extensions``). When the server starts, it makes the Validator remind the student of the written
questions still unanswered, by name, apart from the code's verdict (:func:`.validation.name_unanswered_questions`):
nbgrader offers no setting for that, so it is done here, by the one program that shows it.

Validate's first press would wait ≈ 2 s for the kernel template's imports, so the server starts the template
in the background (:meth:`coursekit.kernel.GradingKernelManager.start_template`) once the student's Lab is up: at the Lab's
first request to :mod:`.feedback_watch` (:data:`.feedback_watch.LAB_UP`), which the course's Lab extension sends
when its plug-ins start. Started with the server, its imports (≈ 1.2 s of CPU) competed with the server's own
start and the Lab's loading for the log-in's cores (benchmarks/bench_hub.py). It lives as long as the server, as it
would after that first press; without a Lab the first Validate starts it.

An LMS launch lands a learner on :mod:`.open_assignment`: the launch's assignment fetched and opened.

It also watches the student's submissions' feedback status (:mod:`.feedback_watch`) and tells their
Lab as soon as feedback is out, or why it will not come automatically (the course's Lab extension,
``coursekit/labextension``, shows it), and files the regrade requests the student makes from a feedback page
(:mod:`.regrade_requests`).
"""
import threading

from . import feedback_watch, open_assignment, regrade_requests
from ..kernel import GradingKernelManager
from .validation import name_unanswered_questions

__all__ = ["EXTENSION"]

EXTENSION = __name__  # what jpserver_extensions names


def _jupyter_server_extension_points():
    return [{"module": EXTENSION}]


def _load_jupyter_server_extension(serverapp) -> None:
    name_unanswered_questions()
    serverapp.web_app.add_handlers(".*$", open_assignment.handlers(serverapp.base_url))  # where an LMS launch lands
    serverapp.log.info("the course's Validate: unanswered written questions named as a reminder")
    serverapp.web_app.settings[feedback_watch.LAB_UP] = _once(
        lambda: threading.Thread(target=_start_template, args=(serverapp,), name="kernel-template", daemon=True).start())
    try:
        watch = feedback_watch.start(serverapp)
    except Exception:  # Validate stays the course's; only the notifications are missing, and the log says why
        serverapp.log.exception("the course's feedback watch could not start: no notifications in this Lab")
        return
    serverapp.web_app.add_handlers(".*$", regrade_requests.handlers(serverapp.base_url))  # from the feedback page
    if watch is not None:
        serverapp.log.info(f"feedback of course {watch.course_id} watched every {feedback_watch.LOOK_SECONDS:g} s; "
                           f"the Lab is told by the event {feedback_watch.SCHEMA_ID}")


def _once(action):
    """``action`` the first time the result is called; nothing after."""
    lock, done = threading.Lock(), []

    def call() -> None:
        with lock:
            if not done:
                done.append(True)
                action()
    return call


def _start_template(serverapp) -> None:
    """The kernel template Validate forks from, started ahead; a failure is only logged (Validate then starts it)."""
    from nbgrader.server_extensions.validate_assignment.handlers import ValidateAssignmentHandler

    try:
        config = ValidateAssignmentHandler.load_config(None)  # the settings Validate reads (the loader uses no handler)
        GradingKernelManager(config=config).start_template()
    except Exception:  # noqa: BLE001 -- the first Validate starts it again and reports what is wrong
        serverapp.log.exception("the kernel template for Validate could not be started ahead")

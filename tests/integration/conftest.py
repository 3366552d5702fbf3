"""The integration tier's shared fixtures: the graded classes (tests/support/classes.py), built once."""
import contextlib
import os
import subprocess

import pytest

from coursekit.sandbox import missing_tool
from support import lab_page, setup_clock
from support.classes import generated_course, grade_both
from support.hub_tools import course_hub, require_hub_machine, spawn_servers


@pytest.fixture(scope="session")
def bystanders():
    """Processes that have nothing to do with grading, started before it: no submission may touch them."""
    started = [subprocess.Popen(["sleep", "3600"])]
    if os.geteuid() == 0:  # another user's process too
        started.append(subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "3600"]))
    yield started
    for process in started:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def generated(request, tmp_path_factory):
    """The chapter's course generated once per worker (release/ and the gradebook's rows), never changed: a test
    works on a copy (``support.classes.copy_generated``)."""
    with setup_clock.timed(request, "a generated course"):
        return generated_course(tmp_path_factory.mktemp("generated"))


@pytest.fixture(scope="session")
def graded_classes(request, tmp_path_factory, bystanders, generated):
    """(shared, serial): the whole table by `make grade`, a few of it by one serial `nbgrader autograde`.

    Every kernel in the sandbox: without bubblewrap these tests skip with the line saying what to
    install (under CI=true they fail instead).
    """
    problem = missing_tool()
    if problem and os.environ.get("CI") == "true":
        pytest.fail(problem)
    if problem:
        pytest.skip(problem)
    with setup_clock.timed(request, "graded classes (both graded side by side)"):
        shared, serial = grade_both(tmp_path_factory.mktemp("classes"), generated)
    setup_clock.record(request, f"  of which make grade of the shared class ({len(shared.expected)} notebooks)",
                       shared.seconds)
    setup_clock.record(request, f"  of which serial nbgrader autograde ({len(serial.expected)} notebooks)",
                       serial.seconds)
    return shared, serial


@pytest.fixture(scope="session")
def shared_class(graded_classes):
    return graded_classes[0]


@pytest.fixture(scope="session")
def serial_class(graded_classes):
    return graded_classes[1]


@pytest.fixture(scope="session")
def course_hub_plan(request, tmp_path_factory):
    """One course hub for the session (an instructor and two students, each a Unix user), always stopped.

    test_hub.py walks the course loop on it in Chromium and types the instructor's commands into a hub
    terminal; on the state it left, test_hub_isolation.py probes who can read what and test_hub_secrets.py
    walks the filesystem as a student (each runs the loop with nbgrader's CLI first when it runs without
    test_hub.py), which then resumes the grading service.
    """
    require_hub_machine()
    with contextlib.ExitStack() as stack:
        with setup_clock.timed(request, "session hub (user environment, hub, servers)"):
            plan = stack.enter_context(course_hub(tmp_path_factory.mktemp("hub"), "jupyterhub.log"))
            spawn_servers(plan, plan.users)  # started side by side while the first test gets ready
        yield plan


@pytest.fixture(scope="module")
def hub_browser(tmp_path_factory):
    """Chromium for a hub module's users (test_hub.py), closed after the module."""
    require_hub_machine()
    with lab_page.chromium_browser(tmp_path_factory.mktemp("chromium-home"), "the hub browser tests") as browser:
        yield browser

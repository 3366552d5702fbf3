"""The hub's people on disk: Unix users (or demo homes), the hub's Jupyter settings, the exchange, the course.

Root (CI, TLJH): every hub user is a Unix user with a private home (mode 700), and nbgrader's
exchange is a world-writable folder owned by the instructor, exactly the permissions nbgrader
expects (nbgrader#1340, #1406: the exchange root 777, ``inbound`` 733 so students can submit
but not list, ``feedback`` 711 with unguessable file names). Not root: demo mode, one Unix
account, homes under the hub's state folder.

As TLJH does, the settings every server shares are system-wide, in one folder readable by all
(``plan.settings``, the servers' ``JUPYTER_CONFIG_PATH``), not a copy per home; only the
instructor's home gets settings of its own: their course and the marking page.
"""
import json
import os
import pathlib
import pwd
import stat
import subprocess

from coursekit.marking import enable as marking
from coursekit.assignments import CourseKit
from coursekit.paths import copy_course
from coursekit.settings import course_config
from coursekit.plugins import students
from coursekit.service import control as service_control

# The formgrader is an <iframe> inside JupyterLab; JupyterHub >= 4.1 sends "frame-ancestors 'none'"
# (nbgrader#1870), which blanks it. 'self' lets the user's own Lab frame it and nobody else.
# Terminals: without a shell command, Jupyter starts a login shell, and Debian's /etc/profile then
# sets PATH back to the system's, losing the user environment's commands (nbgrader, python).
SERVER_CONFIG = {"ServerApp": {
    "tornado_settings": {"headers": {"Content-Security-Policy": "frame-ancestors 'self'"}},
    "terminado_settings": {"shell_command": ["/bin/bash"]},
    "jpserver_extensions": {students.EXTENSION: True}}}  # Validate names the unanswered written questions
LAB_OVERRIDES = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}
SERVER_CONFIG_FILE = "jupyter_server_config.json"  # a .d folder only enables extensions
LAB_OVERRIDES_FILE = "labconfig/default_setting_overrides.json"
# nbgrader's instructor tools in JupyterLab (its "Create Assignment" side tab, the Formgrader and Course List menu
# items): off in every server by the system-wide settings, on again by a folder only the instructor's server has
# first on its JUPYTER_CONFIG_PATH (a user's ~/.jupyter comes after that path: it could not turn them on).
INSTRUCTOR_TOOLS = ("@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list")
PAGE_CONFIG_FILE = "labconfig/page_config.json"


def page_config(instructor: bool) -> dict:
    """JupyterLab's page config hiding nbgrader's instructor tools from students (``instructor``: showing them)."""
    return {"disabledExtensions": {plugin: not instructor for plugin in INSTRUCTOR_TOOLS}}


def is_root() -> bool:
    return os.geteuid() == 0


def unix_user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def ensure_unix_user(name: str) -> pathlib.Path:
    """Create Unix user ``name`` (own group, home in /home) unless it exists; its private home."""
    if not unix_user_exists(name):
        subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", name],
                       check=True, capture_output=True)
    home = pathlib.Path(pwd.getpwnam(name).pw_dir)
    home.chmod(0o700)  # some useradd defaults leave homes world-readable
    return home


def remove_unix_user(name: str) -> None:
    """Delete ``name``, its home and its processes (test clean-up)."""
    if unix_user_exists(name):
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        subprocess.run(["userdel", "--remove", name], capture_output=True)


def _write(path: pathlib.Path, text: str, mode=None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)


def write_system_settings(plan) -> None:
    """The settings every server reads (``plan.settings``): exchange and course id, the course's Validate
    (its kernel, and :mod:`coursekit.plugins.students`), frame policy and terminal shell, a quiet Lab without
    nbgrader's instructor tools (:data:`INSTRUCTOR_TOOLS`). Readable by all, written by the hub only."""
    folder = plan.settings
    lines = ["c = get_config()  # noqa: F821 -- written by autograde/hub/accounts.py",
             f"c.Exchange.root = {plan.exchange!r}", f"c.CourseDirectory.course_id = {plan.course_id!r}",
             "# Validate runs the course's kernel: forked from a pre-imported template, as the student (no sandbox)",
             'c.Execute.kernel_manager_class = "coursekit.kernel.GradingKernelManager"',
             "c.GradingKernelManager.sandbox = False",
             "# what the course's assignments preload in their kernels (their plug-ins; the graders stay the instructor's)",
             f"c.CourseKit.assignments = {_plugins_only(plan)!r}"]
    _write(folder / "nbgrader_config.py", "\n".join(lines) + "\n", 0o644)
    _write(folder / SERVER_CONFIG_FILE, json.dumps(SERVER_CONFIG, indent=1), 0o644)
    _write(folder / LAB_OVERRIDES_FILE, json.dumps(LAB_OVERRIDES, indent=1), 0o644)
    _write(folder / PAGE_CONFIG_FILE, json.dumps(page_config(instructor=False), indent=1), 0o644)
    _write(plan.instructor_settings / PAGE_CONFIG_FILE, json.dumps(page_config(instructor=True), indent=1), 0o644)
    for sub in (folder.parent, folder, *(p for p in folder.rglob("*") if p.is_dir()),
                *(p for p in plan.instructor_settings.rglob("*") if p.is_dir()), plan.instructor_settings):
        sub.chmod(0o755)


def config_path(plan, user: str) -> str:
    """``JUPYTER_CONFIG_PATH`` of ``user``'s server: the hub's system-wide settings, and for the instructor first the
    folder turning nbgrader's instructor tools back on (:data:`INSTRUCTOR_TOOLS`)."""
    folders = [plan.instructor_settings, plan.settings] if user == plan.instructor else [plan.settings]
    return os.pathsep.join(str(folder) for folder in folders)


def _plugins_only(plan) -> dict:
    """The course's ``c.CourseKit.assignments`` without their graders (what a student's server may know); {} before
    the instructor's course is there."""
    course_dir = plan.course_dir() if plan.instructor in plan.homes else None
    config = course_config(course_dir) if course_dir is not None and course_dir.is_dir() else None
    declared = CourseKit(config=config).assignments
    return {name: {"plugin": entry["plugin"]} for name, entry in declared.items() if entry.get("plugin")}


def write_user_settings(home: pathlib.Path, plan, course_dir=None) -> None:
    """The instructor's ~/.jupyter (``course_dir`` given): their course's nbgrader settings and root,
    and the marking page (:mod:`coursekit.marking.enable`). A student's home gets nothing: their
    settings are the hub's system-wide ones (:func:`write_system_settings`)."""
    if course_dir is None:
        return
    jupyter = pathlib.Path(home) / ".jupyter"
    lines = ["c = get_config()  # noqa: F821 -- written by autograde/hub/accounts.py",
             f"load_subconfig({str(pathlib.Path(course_dir) / 'nbgrader_config.py')!r})  # noqa: F821",
             f"c.CourseDirectory.root = {str(course_dir)!r}",
             f"c.Exchange.root = {plan.exchange!r}", f"c.CourseDirectory.course_id = {plan.course_id!r}"]
    _write(jupyter / "nbgrader_config.py", "\n".join(lines) + "\n")
    marking.write(jupyter, jupyter / "lab" / "user-settings", f"/user/{plan.instructor}/", course_dir)


def reachable_by_others(path) -> bool:
    """Could a user other than the owner (and its group) enter ``path``: others may search it and every parent?"""
    path = pathlib.Path(path).resolve()
    return all(p.stat().st_mode & stat.S_IXOTH for p in (path, *path.parents))


def require_private(path, what: str) -> None:
    """Stop the hub before it starts when students could enter ``path`` (it holds ``what``)."""
    if reachable_by_others(path):
        raise RuntimeError(f"{path} can be entered by every user, and it holds {what}: students could read "
                           f"them. Make it private (chmod o-rwx {path}, or clone the repository into a "
                           "private folder such as /root), then start the hub again")


def chown_tree(path: pathlib.Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    for root, dirs, files in os.walk(path):
        for name in [root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)]:
            os.chown(name, entry.pw_uid, entry.pw_gid, follow_symlinks=False)


def make_exchange(plan) -> None:
    """nbgrader's exchange root: everybody may enter and write (nbgrader then locks inbound/feedback)."""
    exchange = pathlib.Path(plan.exchange)
    exchange.mkdir(parents=True, exist_ok=True)
    if plan.unix_users:
        chown_tree(exchange, plan.instructor)  # release_assignment chmods the root: it must own it
    exchange.chmod(0o777)


def make_student_folder(plan, user: str) -> None:
    """As root, before ``user``'s server starts: ``<exchange>/<course>/students/<user>/``, where the course publishes
    what only that student may read (their extension: :func:`coursekit.service.student_status.publish_dates`). The
    instructor's (who writes it), the student's group (who reads it), setgid so each file the instructor writes
    there keeps that group, 2750; ``students/`` itself 711 (nobody lists who has a folder); the course's folder of the
    exchange as nbgrader's release makes it (the instructor's, 755), when it is not there yet."""
    if not plan.unix_users or user == plan.instructor:
        return
    teacher, student = pwd.getpwnam(plan.instructor), pwd.getpwnam(user)
    course = pathlib.Path(plan.exchange) / plan.course_id
    for folder, gid, mode in ((course, teacher.pw_gid, 0o755), (course / "students", teacher.pw_gid, 0o711),
                              (course / "students" / user, student.pw_gid, 0o2750)):
        if not folder.is_dir():
            folder.mkdir()
            os.chown(folder, teacher.pw_uid, gid)
            folder.chmod(mode)
    mine = course / "students" / user
    if (mine.stat().st_uid, mine.stat().st_gid) != (teacher.pw_uid, student.pw_gid):  # the instructor's tools made it
        for path in [mine, *mine.iterdir()]:                                           # first (700, their group)
            os.chown(path, teacher.pw_uid, student.pw_gid, follow_symlinks=False)
        mine.chmod(0o2750)


def prepare_people(plan, source_course: pathlib.Path) -> None:
    """Homes, settings, the instructor's course copy and the exchange, as the plan says."""
    for user in plan.users:
        home = ensure_unix_user(user) if plan.unix_users else pathlib.Path(plan.homes[user])
        home.mkdir(parents=True, exist_ok=True)
        plan.homes[user] = str(home)
    course_dir = plan.course_dir()
    if not course_dir.exists():  # a restarted hub keeps the instructor's work
        copy_course(course_dir, source_course)
    if plan.service_paused:
        service_control.pause_file(course_dir).parent.mkdir(parents=True, exist_ok=True)
        service_control.pause_file(course_dir).write_text("paused by the hub's plan\n")
    instructor_home = pathlib.Path(plan.homes[plan.instructor])
    write_user_settings(instructor_home, plan, course_dir)
    if plan.unix_users:
        chown_tree(instructor_home, plan.instructor)
    write_system_settings(plan)
    make_exchange(plan)

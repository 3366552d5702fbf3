"""The hub's people on disk: Unix users (or demo homes), their Jupyter/nbgrader settings, the exchange, the course.

Root (CI, TLJH): every hub user is a Unix user with a private home (mode 700), and nbgrader's
exchange is a world-writable folder owned by the instructor, exactly the permissions nbgrader
expects (nbgrader#1340, #1406: the exchange root 777, ``inbound`` 733 so students can submit
but not list, ``feedback`` 711 with unguessable file names). Not root: demo mode, one Unix
account, homes under the hub's state folder.
"""
import json
import os
import pathlib
import pwd
import subprocess

from coursekit.marking import enable as marking
from coursekit.paths import copy_course

# The formgrader is an <iframe> inside JupyterLab; JupyterHub >= 4.1 sends "frame-ancestors 'none'"
# (nbgrader#1870), which blanks it. 'self' lets the user's own Lab frame it and nobody else.
SERVER_CONFIG = {"ServerApp": {"tornado_settings": {"headers": {
    "Content-Security-Policy": "frame-ancestors 'self'"}}}}
LAB_SETTINGS = {"@jupyterlab/apputils-extension/notification.jupyterlab-settings":
                {"fetchNews": "false", "checkForUpdates": False}}


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


def _write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_user_settings(home: pathlib.Path, plan, course_dir=None) -> None:
    """~/.jupyter: the nbgrader exchange and course id, the formgrader's frame policy, a quiet Lab;
    for the instructor also the marking page (:mod:`coursekit.marking.enable`)."""
    jupyter = pathlib.Path(home) / ".jupyter"
    lines = ["c = get_config()  # noqa: F821 -- written by autograde/hub/accounts.py"]
    if course_dir is not None:  # the instructor: the course's own settings first
        lines.append(f"load_subconfig({str(pathlib.Path(course_dir) / 'nbgrader_config.py')!r})  # noqa: F821")
        lines.append(f"c.CourseDirectory.root = {str(course_dir)!r}")
    lines += [f"c.Exchange.root = {plan.exchange!r}", f"c.CourseDirectory.course_id = {plan.course_id!r}"]
    _write(jupyter / "nbgrader_config.py", "\n".join(lines) + "\n")
    _write(jupyter / "jupyter_server_config.json", json.dumps(SERVER_CONFIG, indent=1))
    for name, values in LAB_SETTINGS.items():
        _write(jupyter / "lab" / "user-settings" / name, json.dumps(values))
    if course_dir is not None:  # the instructor: the marking page (/marking/, menu 批改) on the course
        marking.write(jupyter, jupyter / "lab" / "user-settings", f"/user/{plan.instructor}/", course_dir)


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


def prepare_people(plan, source_course: pathlib.Path) -> None:
    """Homes, settings, the instructor's course copy and the exchange, as the plan says."""
    for user in plan.users:
        home = ensure_unix_user(user) if plan.unix_users else pathlib.Path(plan.homes[user])
        home.mkdir(parents=True, exist_ok=True)
        plan.homes[user] = str(home)
    course_dir = plan.course_dir()
    if not course_dir.exists():  # a restarted hub keeps the instructor's work
        copy_course(course_dir, source_course)
    for user in plan.users:
        home = pathlib.Path(plan.homes[user])
        write_user_settings(home, plan, course_dir if user == plan.instructor else None)
        if plan.unix_users:
            chown_tree(home, user)
    make_exchange(plan)

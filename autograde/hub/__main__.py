"""``python -m hub`` from autograde/ (what ``make hub`` runs): the course hub until Ctrl-C.

While it runs it holds the lock of ``<state>/launcher.pid``: a second ``make hub`` on the same folder
says so and stops. ``make hub-remove`` (``--remove``) changes nothing while a hub runs unless told to
(``--force``, ``FORCE=1``; on a terminal it asks); then it stops the running hub (SIGTERM, which stops
JupyterHub, the proxy, the servers and the grading service), keeps the instructor's course as a dated
archive (:mod:`hub.archive`: the gradebook, every submission and mark) and only then removes the hub's users
and files.
"""
import argparse
import contextlib
import dataclasses
import fcntl
import json
import os
import pathlib
import shutil
import signal
import sys
import threading
import time

from hub import accounts, launch, lti, userenv
from hub import plan as hub_plan
from hub.archive import ARCHIVES, archive_course

INSTRUCTOR, STUDENTS = "attn-instructor", ("attn-student1", "attn-student2", "attn-student3")
# As root the hub's exchange and settings must lie outside the repository, which students may not enter.
DEFAULT_STATE = pathlib.Path("/srv/attention-hub") if accounts.is_root() else launch.STATE / "hub"


def _previous_passwords(state: pathlib.Path) -> dict:
    """Keep the passwords a previous ``make hub`` printed."""
    path = state / "hub" / "plan.json"
    return json.loads(path.read_text())["passwords"] if path.exists() else {}


def _lti_lines(plan) -> str:
    """What an LMS administrator types in, and how people log in, when the hub runs with LTI settings."""
    if not plan.lti:
        return ""
    values = "\n".join(f"  {name:<22} {value}" for name, value in lti.registration(plan).items())
    return (f"LTI 1.3 (platform {plan.lti['issuer']}, client {plan.lti['client_id']}): students and instructors "
            f"come from the LMS's course page; /hub/login takes the local admin only (the instructor below).\n"
            f"{lti.contexts_line(plan)}.\n"
            f"Register the tool in the LMS with (docs/deploy-lms.md):\n{values}\n")


def _banner(plan) -> str:
    mode = ("one Unix user per hub user (root)" if plan.unix_users else
            "DEMO MODE: not root, so every hub user is YOUR Unix account and students are not isolated")
    logins = "\n".join(f"  {user:<18} {plan.passwords[user]}" + ("   (instructor, hub admin)"
                       if user == plan.instructor else "") for user in plan.users)
    return (f"\nCourse hub running: {plan.url}\nMode: {mode}\nLog in as (user, password):\n{logins}\n"
            f"{_lti_lines(plan)}Instructor: Nbgrader menu > Formgrader. Students: Nbgrader menu > Assignment List.\n"
            f"Everything the hub writes is in {plan.state} (log: hub/jupyterhub.log). Ctrl-C stops it.\n")


LAUNCHER = "launcher.pid"
STOP_SECONDS = 60  # for a running hub to stop everything it started


def _lock_file(state: pathlib.Path) -> int:
    state.mkdir(parents=True, exist_ok=True)
    return os.open(state / LAUNCHER, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


def hold(state: pathlib.Path) -> int:
    """This process is the hub of ``state`` (the lock stays held until it exits); exits when another one is."""
    fd = _lock_file(state)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(f"a hub already runs on {state} (pid {os.pread(fd, 32, 0).decode().strip()}): "
                 "stop it first (Ctrl-C in its terminal)")
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def running_pid(state: pathlib.Path):
    """The pid of the hub running on ``state``, or None when none does (its launcher's lock is free)."""
    if not (state / LAUNCHER).exists():
        return None
    fd = _lock_file(state)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        return int(os.pread(fd, 32, 0).decode().strip() or 0)
    finally:
        os.close(fd)


def confirmed_removal(state: pathlib.Path, force: bool) -> None:
    """Go on only when no hub runs on ``state``, or ``force``, or the instructor says so on a terminal; else stop,
    having changed nothing."""
    pid = running_pid(state)
    if pid is None or force:
        return
    question = f"a hub is running on {state} (pid {pid}): stop it, archive its course and remove it? [y/N] "
    if sys.stdin.isatty() and input(question).strip().lower() in ("y", "yes"):
        return
    sys.exit(f"make hub-remove: a hub is running on {state} (pid {pid}); nothing was removed. Stop it first "
             "(Ctrl-C in its terminal), or run `make hub-remove FORCE=1` to stop it, archive its course and remove it")


def keep_course(state: pathlib.Path, archives: pathlib.Path):
    """The instructor's course of the hub on ``state``, archived before anything goes; the archive, or None when
    that hub never made one. An archive that cannot be written stops the removal."""
    saved = state / "hub" / "plan.json"
    course = hub_plan.load(saved).course_dir() if saved.exists() else None
    if course is None or not course.is_dir():
        return None
    try:
        return archive_course(course, archives)
    except OSError as error:
        sys.exit(f"make hub-remove: the course {course} could not be archived ({error}); nothing was removed")


def stop_running(state: pathlib.Path, timeout: float = STOP_SECONDS):
    """Stop the hub running on ``state``, if one is, and wait until it has stopped all it started; its pid or None."""
    if not (state / LAUNCHER).exists():
        return None
    fd = _lock_file(state)
    try:
        with contextlib.suppress(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return None  # nobody holds it: no hub runs
        pid = int(os.pread(fd, 32, 0).decode().strip() or 0)
        print(f"a hub is running on {state} (pid {pid}): stopping it first …", flush=True)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return pid
            time.sleep(0.2)
        sys.exit(f"the hub (pid {pid}) did not stop within {timeout:.0f} s: stop it by hand, then run this again")
    finally:
        os.close(fd)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--state", type=pathlib.Path, default=DEFAULT_STATE,
                        help=f"the hub's folder: private files, exchange, system-wide settings (default {DEFAULT_STATE})")
    parser.add_argument("--user-env", type=pathlib.Path, default=launch.USER_ENV,
                        help=f"the users' shared Python environment (default {launch.USER_ENV})")
    parser.add_argument("--remove", action="store_true",
                        help="stop the hub if it runs, then delete the course's Unix users, their homes, the hub's "
                             "state and the user environment")
    parser.add_argument("--lti", type=pathlib.Path, default=None,
                        help="LTI 1.3 settings (a TOML file, docs/deploy-lms.md): log-in from the LMS's course page, "
                             "scores back to its gradebook; without it, passwords as always")
    parser.add_argument("--force", action="store_true",
                        help="with --remove: go on even while the hub runs (it is stopped; its course archived first)")
    parser.add_argument("--archives", type=pathlib.Path, default=ARCHIVES,
                        help=f"with --remove: where the course's archive is written (default {ARCHIVES})")
    parser.add_argument("--demo", action="store_true",
                        help="every hub user is your own account, even as root (no Unix users, no user environment)")
    args = parser.parse_args(argv)
    state = args.state.resolve()
    if args.remove:
        confirmed_removal(state, args.force)
        stop_running(state)
        kept = keep_course(state, args.archives)
        if kept is not None:
            print(f"the instructor's course (gradebook, submissions, marks) is kept in {kept} (tar -xzf opens it)")
        users = [] if args.demo else [INSTRUCTOR, *STUDENTS, *lti.launched_users(state)]
        for user in users:
            accounts.remove_unix_user(user)
        shutil.rmtree(state, ignore_errors=True)
        removed = [str(state), *(userenv.remove(args.user_env) if accounts.is_root() and not args.demo else [])]
        print(f"removed {'the users ' + ', '.join(users) + ' (if any) and ' if users else ''}{', '.join(removed)}")
        return
    try:
        settings = lti.load(args.lti) if args.lti else None
    except ValueError as error:  # one line naming the file and the setting, as docs/deploy-lms.md says
        sys.exit(f"make hub: {error}")
    if accounts.is_root() and not args.demo:  # before the users' environment is built (a minute), not after
        try:
            launch.require_private_course(launch.REPO / "autograde")
        except RuntimeError as problem:
            sys.exit(f"make hub: {problem}")
    hold(state)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill` stops the hub as cleanly as Ctrl-C
    plan = launch.make_plan(state, INSTRUCTOR, () if settings else STUDENTS, port=args.port, user_env=args.user_env,
                            unix_users=False if args.demo else None, passwords=_previous_passwords(state),
                            lti=dataclasses.asdict(settings) if settings else None)
    with launch.running_hub(plan, launch.REPO / "autograde"):
        print(_banner(plan), flush=True)
        try:
            threading.Event().wait()
        except (KeyboardInterrupt, SystemExit):
            print("stopping the hub ...", flush=True)


if __name__ == "__main__":
    main()

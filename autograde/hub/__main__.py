"""``python -m hub`` from autograde/ (what ``make hub`` runs): the course hub until Ctrl-C."""
import argparse
import json
import pathlib
import shutil
import signal
import sys
import threading

from hub import accounts, launch, userenv

INSTRUCTOR, STUDENTS = "attn-instructor", ("attn-student1", "attn-student2", "attn-student3")
# As root the hub's exchange and settings must lie outside the repository, which students may not enter.
DEFAULT_STATE = pathlib.Path("/srv/attention-hub") if accounts.is_root() else launch.STATE / "hub"


def _previous_passwords(state: pathlib.Path) -> dict:
    """Keep the passwords a previous ``make hub`` printed."""
    path = state / "hub" / "plan.json"
    return json.loads(path.read_text())["passwords"] if path.exists() else {}


def _banner(plan) -> str:
    mode = ("one Unix user per hub user (root)" if plan.unix_users else
            "DEMO MODE: not root, so every hub user is YOUR Unix account and students are not isolated")
    logins = "\n".join(f"  {user:<18} {plan.passwords[user]}" + ("   (instructor, hub admin)"
                       if user == plan.instructor else "") for user in plan.users)
    return (f"\nCourse hub running: {plan.url}\nMode: {mode}\nLog in as (user, password):\n{logins}\n"
            f"Instructor: Nbgrader menu > Formgrader. Students: Nbgrader menu > Assignment List.\n"
            f"Everything the hub writes is in {plan.state} (log: hub/jupyterhub.log). Ctrl-C stops it.\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--state", type=pathlib.Path, default=DEFAULT_STATE,
                        help=f"the hub's folder: private files, exchange, system-wide settings (default {DEFAULT_STATE})")
    parser.add_argument("--user-env", type=pathlib.Path, default=launch.USER_ENV,
                        help=f"the users' shared Python environment (default {launch.USER_ENV})")
    parser.add_argument("--remove", action="store_true",
                        help="delete the course's Unix users, their homes, the hub's state and the user environment")
    args = parser.parse_args(argv)
    if args.remove:
        for user in (INSTRUCTOR, *STUDENTS):
            accounts.remove_unix_user(user)
        shutil.rmtree(args.state, ignore_errors=True)
        removed = [str(args.state), *(userenv.remove(args.user_env) if accounts.is_root() else [])]
        print(f"removed the users {INSTRUCTOR}, {', '.join(STUDENTS)} (if any) and {', '.join(removed)}")
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill` stops the hub as cleanly as Ctrl-C
    plan = launch.make_plan(args.state, INSTRUCTOR, STUDENTS, port=args.port, user_env=args.user_env,
                            passwords=_previous_passwords(args.state.resolve()))
    with launch.running_hub(plan, launch.REPO / "autograde"):
        print(_banner(plan), flush=True)
        try:
            threading.Event().wait()
        except (KeyboardInterrupt, SystemExit):
            print("stopping the hub ...", flush=True)


if __name__ == "__main__":
    main()

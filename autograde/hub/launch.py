"""Start the course hub on 127.0.0.1, wait until it answers, and always stop it with everything it started.

``running_hub(state, ...)`` is what the tests use; ``python -m hub`` (``make hub``) keeps the hub
running until Ctrl-C. ``<state>`` (mode 711) holds the hub's private files in ``hub/`` (mode 700:
database, cookie secret, plan with passwords, log), nbgrader's shared exchange in ``exchange/`` and
the servers' system-wide Jupyter settings in ``etc/jupyter/``. The users' servers run the shared
user environment (:mod:`hub.userenv`, default ``/opt/attention-hub/user``), never the repository,
which students need not enter: with Unix users the hub refuses to start while they could.
"""
import contextlib
import json
import os
import pathlib
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from hub import accounts, lti, userenv
from hub import plan as hub_plan
from hub.build_lock import build_lock

REPO = pathlib.Path(__file__).resolve().parents[2]
STATE = REPO / ".state"
USER_ENV = pathlib.Path("/opt/attention-hub/user")  # as TLJH's /opt/tljh/user: one per machine, shared by every hub
PROXY_PACKAGE = "configurable-http-proxy@5"
PROXY_MARK = f".installed-{PROXY_PACKAGE}"  # written once npm has finished installing it
CONFIG = pathlib.Path(__file__).with_name("jupyterhub_config.py")


def ensure_proxy(prefix: pathlib.Path = STATE / "hub-proxy") -> pathlib.Path:
    """configurable-http-proxy from npm, installed under .state/ (never globally); its executable.

    Installed by one process at a time (another hub, a second pytest worker, may need it at the same
    moment), and taken as installed only once npm has finished (:data:`PROXY_MARK`).
    """
    executable = prefix / "node_modules" / ".bin" / "configurable-http-proxy"
    mark = prefix / PROXY_MARK
    if mark.exists() and executable.exists():
        return executable
    if not (shutil.which("npm") and shutil.which("node")):
        raise RuntimeError("node and npm are needed for JupyterHub's proxy: apt-get install nodejs npm")
    with build_lock(prefix):
        if not (mark.exists() and executable.exists()):  # a half-made install (npm interrupted) is made again
            prefix.mkdir(parents=True, exist_ok=True)
            env = dict(os.environ, npm_config_cache=str(STATE / "npm"))
            subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund",
                            "--loglevel=error", PROXY_PACKAGE], check=True, env=env, cwd=prefix)
            mark.write_text(PROXY_PACKAGE + "\n")
    return executable


def make_plan(state, instructor, students, port=None, unix_users=None, passwords=None,
              user_env=USER_ENV, service_paused=False, lti=None) -> hub_plan.HubPlan:
    """Ports, passwords, homes and paths for a hub whose files live in ``state``; with Unix users,
    the shared user environment at ``user_env`` is built or brought up to date first."""
    state = pathlib.Path(state).resolve()
    unix_users = accounts.is_root() if unix_users is None else unix_users
    users = [instructor, *students]
    passwords = dict(passwords or {})
    for user in users:
        passwords.setdefault(user, hub_plan.new_password(user))
    python = userenv.ensure(user_env) if unix_users else pathlib.Path(sys.executable)  # demo: one account
    return hub_plan.HubPlan(
        state=str(state), unix_users=unix_users, instructor=instructor, students=list(students),
        passwords=passwords, homes={u: str(state / "homes" / u) for u in users},
        exchange=str(state / "exchange"), python=str(python),
        proxy=str(ensure_proxy()),
        port=port or hub_plan.free_port(), hub_port=hub_plan.free_port(),
        proxy_api_port=hub_plan.free_port(), api_token=secrets.token_hex(32), service_paused=service_paused,
        lti=lti)


def require_private_course(source_course: pathlib.Path) -> None:
    """Neither the repository nor the course copied from may be open to the hub's users (a RuntimeError saying which
    and the command that closes it): checked before anything is built."""
    accounts.require_private(REPO, "the course's master (autograde/source), grader and rubrics")
    accounts.require_private(source_course, "the course's master, grader and rubrics")


def prepare(plan, source_course: pathlib.Path) -> pathlib.Path:
    """Folders with the right modes, the people, the plan file; returns the plan's path. With Unix
    users, first: neither the repository nor the course copied from may be open to them."""
    if plan.unix_users:
        require_private_course(source_course)
    state = pathlib.Path(plan.state)
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o711)  # users reach exchange/ and nothing else
    (state / "hub").mkdir(exist_ok=True)
    (state / "hub").chmod(0o700)
    accounts.prepare_people(plan, source_course)
    if plan.lti:
        lti.prepare(plan)
    return plan.save()


def api(plan, path, method="GET", body=None, token=None):
    """The hub's REST API (``/hub/api/<path>``) with the course-admin token; decoded JSON or None."""
    request = urllib.request.Request(
        f"{plan.url}hub/api/{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {token or plan.api_token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        payload = response.read()
    return json.loads(payload) if payload else None


def _wait_ready(plan, process, log_path, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterHub exited with {process.returncode}; log {log_path}:\n"
                               + pathlib.Path(log_path).read_text(errors="replace")[-4000:])
        with contextlib.suppress(OSError, urllib.error.URLError):
            if api(plan, "") is not None:
                return
        time.sleep(0.5)
    raise TimeoutError(f"JupyterHub not answering on {plan.url} after {timeout:.0f} s; see {log_path}")


def _processes_of(state: str) -> list:
    """PIDs whose environment names this hub's state folder: single-user servers and their kernels."""
    needle = f"ATTN_HUB_STATE={state}\0".encode()
    pids = []
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if needle in (proc / "environ").read_bytes() + b"\0":
                pids.append(int(proc.name))
    return pids


def stop(plan, process) -> None:
    """SIGTERM lets the hub stop the servers and the proxy; whatever survives 30 s is killed."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the proxy is in the hub's process group
    for pid in _processes_of(plan.state):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait()


@contextlib.contextmanager
def running_hub(plan, source_course, timeout=120):
    """Prepare ``plan``, run JupyterHub while the block runs (log: <state>/hub/jupyterhub.log)."""
    plan_path = prepare(plan, source_course)
    log_path = pathlib.Path(plan.state) / "hub" / "jupyterhub.log"
    env = dict(os.environ, ATTN_HUB_PLAN=str(plan_path))
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(CONFIG)], cwd=pathlib.Path(plan.state) / "hub",
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_ready(plan, process, log_path, timeout)
        yield plan
    finally:
        stop(plan, process)

"""Does the grading service find submissions made through an exchange plug-in — ngshare, the server exchange of
Kubernetes hubs — with nbgrader 0.9, and call an unreachable ngshare the machine's fault?

A JupyterHub of its own on 127.0.0.1 (a dummy login, no servers spawned) runs ngshare as a managed service; the
instructor and two students call nbgrader's CLI with ngshare_exchange's classes and their hub tokens, as their Lab
terminals would: release ps1 (from the installed nbgrader wheel), fetch, submit. Then the service's inbox
(:class:`coursekit.service.inbox.Inbox`, the course's configured ExchangeList) lists them, and nbgrader's collect
through the same exchange brings them into the course. ngshare is not in the test extra: without it (``pip install
ngshare ngshare_exchange``, see docs/deploy-hub.md) the module skips, under CI=true too.
"""
import contextlib
import importlib.util
import json
import os
import pathlib
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

import nbgrader
import pytest

# Found, not imported: ngshare_exchange reads $USER (or $JUPYTERHUB_USER) as it is imported and fails without it.
FOUND = {name: importlib.util.find_spec(name) for name in ("ngshare", "ngshare_exchange")}
if not all(FOUND.values()):
    pytest.skip("ngshare is not installed (pip install ngshare ngshare_exchange; docs/deploy-hub.md)", allow_module_level=True)

from hub.launch import ensure_proxy  # noqa: E402
from support.lab_server import free_port  # noqa: E402

pytestmark = pytest.mark.timeout(300)

COURSE_ID, ASSIGNMENT, TEACHER, STUDENTS = "course101", "ps1", "teacher", ("s1", "s2")
USER_GUIDE = pathlib.Path(nbgrader.__file__).parent / "docs" / "source" / "user_guide"
PACKAGES = str(pathlib.Path(FOUND["ngshare"].origin).resolve().parents[1])  # where ngshare lives: on every child's path
# ngshare 0.6 stores nothing under SQLAlchemy 2 (its releases "succeed" and vanish: docs/deploy-hub.md), which nbgrader
# 0.9 and JupyterHub 6 allow: the server runs from a Python of its own with SQLAlchemy 1.4, as it would be deployed.
SERVER_PYTHON = os.environ.get("NGSHARE_PYTHON", sys.executable)
# ngshare binds 0.0.0.0 as a hub service (ngshare.main); the tests' servers listen on 127.0.0.1 only.
NGSHARE = """import sys
from tornado.httpserver import HTTPServer
listen = HTTPServer.listen
HTTPServer.listen = lambda self, port, address="", **kw: listen(self, port, "127.0.0.1", **kw)
from ngshare.ngshare import main
main(sys.argv[1:])
"""
INBOX = """import json
from coursekit.service.inbox import Inbox, course_config
inbox = Inbox(course_config("."), ".")
try:
    found = inbox.newest([{assignment!r}])
    print(json.dumps({{"kind": inbox.describe(), "found": {{s.student: [s.timestamp, str(s.folder)] for s in found.values()}}}}))
except Exception as error:
    print(json.dumps({{"error": type(error).__name__, "message": str(error)}}))
"""


def _hub_config(base, hub_port, proxy_port, api_port, ngshare_port, admin_token) -> pathlib.Path:
    config = base / "jupyterhub_config.py"
    config.write_text(f"""c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{proxy_port}"
c.JupyterHub.hub_ip, c.JupyterHub.hub_port = "127.0.0.1", {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{str(ensure_proxy())!r}]
c.JupyterHub.db_url = "sqlite:///{base / 'hub.sqlite'}"
c.JupyterHub.cookie_secret_file = "{base / 'cookie_secret'}"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {set((TEACHER, *STUDENTS))!r}
c.Authenticator.admin_users = {{{TEACHER!r}}}
c.JupyterHub.services = [
    {{"name": "test-admin", "api_token": {admin_token!r}}},
    {{"name": "ngshare", "url": "http://127.0.0.1:{ngshare_port}", "cwd": "{base}",
      "command": [{SERVER_PYTHON!r}, "{base / 'ngshare_local.py'}", "--admins", {TEACHER!r},
                  "--database", "sqlite:///{base / 'ngshare.db'}", "--storage", "{base / 'ngshare-files'}"],
      "environment": {{"PYTHONPATH": {PACKAGES if SERVER_PYTHON == sys.executable else ""!r}}}}}]
c.JupyterHub.load_roles = [{{"name": "test-admin", "services": ["test-admin"],
                            "scopes": ["admin:users", "tokens", "list:users", "read:users"]}}]
""")
    (base / "ngshare_local.py").write_text(NGSHARE)
    return config


def _api(url, token, method="GET", body=None):
    request = urllib.request.Request(url, method=method, headers={"Authorization": f"token {token}"},
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def _wait(what, check, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            if check():
                return
        time.sleep(0.5)
    raise TimeoutError(f"waited {timeout} s for {what}")


@contextlib.contextmanager
def ngshare_hub(base: pathlib.Path):
    """The hub with ngshare running; yields (hub API URL, ngshare URL, admin token)."""
    ports, admin_token = [free_port() for _ in range(4)], secrets.token_hex(16)
    config = _hub_config(base, *ports, admin_token)
    log = open(base / "jupyterhub.log", "wb")
    hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=base, stdout=log,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                           env=dict(os.environ, PYTHONPATH=PACKAGES))
    api, ngshare_url = f"http://127.0.0.1:{ports[0]}/hub/api", f"http://127.0.0.1:{ports[3]}/services/ngshare"
    try:
        _wait("the hub's API", lambda: _api(f"{api}/", admin_token) is not None)
        _wait("ngshare", lambda: urllib.request.urlopen(f"{ngshare_url}/healthz", timeout=5).status == 200)
        yield api, ngshare_url, admin_token
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(hub.pid, signal.SIGTERM)
        try:
            hub.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait(timeout=10)
        for pidfile in base.glob("*.pid"):  # the proxy, should the hub have left it running
            with contextlib.suppress(ValueError, ProcessLookupError, OSError):
                os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)
        log.close()


def _nbgrader_config(folder: pathlib.Path, ngshare_url: str, extra: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(
        f"import ngshare_exchange\nc = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"ngshare_exchange.configureExchange(c, {ngshare_url!r})\n{extra}")


def _as(user, token, *command, cwd):
    """``command`` as hub user ``user`` would run it in their Lab's terminal (their token, their own Jupyter data)."""
    home = pathlib.Path(cwd)
    env = dict(os.environ, JUPYTERHUB_USER=user, USER=user, JUPYTERHUB_API_TOKEN=token, PYTHONPATH=PACKAGES,
               JUPYTER_DATA_DIR=str(home / ".jupyter-data"), JUPYTER_CONFIG_DIR=str(home / ".jupyter-config"),
               PATH=os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
    # ngshare_exchange logs a failed request and returns: nbgrader's exit status stays 0, so its log is read too
    failed = done.returncode != 0 or "| ERROR]" in done.stderr or "| CRITICAL]" in done.stderr
    assert not failed, f"{user}: {' '.join(command[2:5])} failed:\n{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
    return done


def _inbox(course, token):
    done = _as(TEACHER, token, sys.executable, "-c", INBOX.format(assignment=ASSIGNMENT), cwd=course)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    base = tmp_path_factory.mktemp("ngshare")
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("JupyterHub's proxy needs node and npm (apt-get install nodejs npm)")
    version = subprocess.run([SERVER_PYTHON, "-c", "import sqlalchemy, ngshare; print(sqlalchemy.__version__)"],
                             capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=PACKAGES)).stdout.strip()
    if not version.startswith("1."):
        pytest.skip(f"ngshare 0.6 loses what it stores under SQLAlchemy {version or '?'}: set NGSHARE_PYTHON to a "
                    "Python with ngshare and sqlalchemy<2 (docs/deploy-hub.md)")
    with ngshare_hub(base) as (api, ngshare_url, admin_token):
        tokens = {}
        for user in (TEACHER, *STUDENTS):  # the hub made their accounts from allowed_users as it started
            tokens[user] = _api(f"{api}/users/{user}/tokens", admin_token, "POST", {"note": "test"})["token"]
        yield {"base": base, "api": api, "ngshare": ngshare_url, "tokens": tokens}


def test_are_submissions_through_ngshare_listed_and_collected(hub):
    """Released, fetched and submitted through ngshare: does the service's inbox list each student's newest
    submission (no folder: ngshare keeps them), and does collect through the same exchange bring the same ones?"""
    base, tokens = hub["base"], hub["tokens"]
    course = base / "course"
    _nbgrader_config(course, hub["ngshare"])
    shutil.copytree(USER_GUIDE / "source" / ASSIGNMENT, course / "source" / ASSIGNMENT)
    manage = (sys.executable, "-m", "ngshare_exchange.course_management")
    _as(TEACHER, tokens[TEACHER], *manage, "create_course", COURSE_ID, TEACHER, cwd=course)
    for student in STUDENTS:
        _as(TEACHER, tokens[TEACHER], *manage, "add_student", COURSE_ID, student, cwd=course)
    for step in ("generate_assignment", "release_assignment"):
        _as(TEACHER, tokens[TEACHER], sys.executable, "-m", "nbgrader", step, ASSIGNMENT, cwd=course)
    submitted = {}
    for student in STUDENTS:
        home = base / "homes" / student
        _nbgrader_config(home, hub["ngshare"])
        fetched = _as(student, tokens[student], sys.executable, "-m", "nbgrader", "fetch_assignment", ASSIGNMENT, cwd=home)
        assert (home / ASSIGNMENT / "problem1.ipynb").is_file(), f"{student} fetched no problem1.ipynb:\n" \
            f"{fetched.stderr[-3000:]}\n{sorted(str(p.relative_to(home)) for p in home.rglob('*'))}"
        for _ in range(2 if student == "s1" else 1):  # s1 submits twice: only the newest counts
            _as(student, tokens[student], sys.executable, "-m", "nbgrader", "submit", ASSIGNMENT, cwd=home)
            cached = sorted((home / ".jupyter-data" / "nbgrader_cache" / COURSE_ID).glob(f"{student}+{ASSIGNMENT}+*"))
            submitted[student] = (cached[-1] / "timestamp.txt").read_text().strip()
            time.sleep(1.1)
    listed = _inbox(course, tokens[TEACHER])
    assert "error" not in listed, f"the inbox could not list ngshare's submissions: {listed}"
    assert listed["kind"] == "ngshare_exchange.list.ExchangeList", listed
    assert {s: ts for s, (ts, _) in listed["found"].items()} == submitted, (listed, submitted)
    assert all(folder == "None" for _, folder in listed["found"].values()), "ngshare keeps no inbound folder"
    _as(TEACHER, tokens[TEACHER], sys.executable, "-m", "nbgrader", "collect", "--update", ASSIGNMENT, cwd=course)
    for student, timestamp in submitted.items():
        stamp = course / "submitted" / student / ASSIGNMENT / "timestamp.txt"
        assert stamp.read_text().strip() == timestamp, f"collect brought {student}'s {stamp.read_text()!r}"


def test_is_an_unreachable_ngshare_the_machines_fault(hub):
    """ngshare's classes log a failed request and go on: does the inbox say it cannot list, not 'nothing'?"""
    course = hub["base"] / "course-elsewhere"
    _nbgrader_config(course, f"http://127.0.0.1:{free_port()}/services/ngshare")
    listed = _inbox(course, hub["tokens"][TEACHER])
    assert listed.get("error") == "InboxUnreadable" and "cannot list the submissions" in listed["message"], listed

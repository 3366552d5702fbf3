"""Who is on the hub and where everything lives: one JSON file shared by the launcher and the hub's config.

The launcher writes ``<state>/hub/plan.json``; ``jupyterhub_config.py`` reads it back (path in the
``ATTN_HUB_PLAN`` environment variable), so the two never disagree about ports, users or paths.
"""
import dataclasses
import json
import os
import pathlib
import secrets
import socket

COURSE_ID = "attention-ch04"


@dataclasses.dataclass
class HubPlan:
    state: str                 # the hub's own folder: database, cookie secret, proxy pid, logs
    unix_users: bool           # True: one Unix user per hub user (needs root); False: demo mode
    instructor: str
    students: list
    passwords: dict            # {user: password}; the hub's only authentication
    homes: dict                # {user: home folder}
    exchange: str              # nbgrader's shared exchange root
    python: str                # the shared user environment's interpreter: every single-user server and kernel
    proxy: str                 # configurable-http-proxy executable (npm, under .state/)
    port: int                  # the public URL's port (the proxy)
    hub_port: int
    proxy_api_port: int
    api_token: str             # a hub service token with admin scopes, for tests and scripts
    course_id: str = COURSE_ID
    service_paused: bool = False  # the grading service starts paused (the tests' hub: its loop grades by hand)
    lti: dict | None = None    # LTI 1.3 settings (hub/lti.py); None: log-in by password, as without an LMS

    @property
    def users(self) -> list:
        return [self.instructor, *self.students]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def settings(self) -> pathlib.Path:
        """The hub's system-wide Jupyter settings (``JUPYTER_CONFIG_PATH`` of every server), readable by all."""
        return pathlib.Path(self.state) / "etc" / "jupyter"

    @property
    def instructor_settings(self) -> pathlib.Path:
        """Settings only the instructor's server reads, before :attr:`settings` (nbgrader's instructor tools on)."""
        return pathlib.Path(self.state) / "etc" / "jupyter-instructor"

    def course_dir(self) -> pathlib.Path:
        """The instructor's course (source/, release/, submitted/, gradebook.db ...)."""
        return pathlib.Path(self.homes[self.instructor]) / "course"

    def save(self) -> pathlib.Path:
        path = pathlib.Path(self.state) / "hub" / "plan.json"  # private: mode 700 folder
        path.write_text(json.dumps(dataclasses.asdict(self), indent=1))
        path.chmod(0o600)  # passwords and the admin token
        return path


def load(path=None) -> HubPlan:
    path = pathlib.Path(path or os.environ["ATTN_HUB_PLAN"])
    return HubPlan(**json.loads(path.read_text()))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def new_password(user: str) -> str:
    """A password nobody can guess; readable enough to type from the terminal."""
    return f"{user}-{secrets.token_urlsafe(9)}"

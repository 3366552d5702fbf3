"""A throw-away JupyterLab server for the real-browser test.

``lab_server(base_dir)`` starts JupyterLab from the repository's ``.venv`` on 127.0.0.1,
a free port and a random token, with every Jupyter/IPython/matplotlib directory inside
``base_dir``: the user's settings, workspaces and news never reach the page, and the
server only sees ``base_dir/notebooks`` (callers put *copies* of notebooks there, so a
save or autosave can never write over the repository's files). On exit it stops the
server, its kernels and any kernel nbgrader's Validate started, also after a failure.
"""
import contextlib
import json
import os
import pathlib
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

REPO = pathlib.Path(__file__).resolve().parents[2]
VENV_PYTHON = REPO / ".venv" / "bin" / "python"

# User settings that keep the page deterministic: no news/update toast over the
# notebook, no autosave, and every cell kept in the DOM (no virtual scrolling), so
# the test can read each cell's prompt and outputs.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}

_STATE_DIRS = {
    "JUPYTER_CONFIG_DIR": "config",
    "JUPYTER_DATA_DIR": "data",
    "JUPYTER_RUNTIME_DIR": "runtime",
    "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces",
    "IPYTHONDIR": "ipython",
    "MPLCONFIGDIR": "matplotlib",
    "ATTNKIT_CACHE_DIR": "attnkit-cache",  # what Validate draws (attnkit.static), not in ~/.cache
}


@dataclass
class LabServer:
    """A running server: its base URL (ends with ``/``), token, notebook root and log."""

    url: str
    token: str
    root_dir: pathlib.Path
    log_path: pathlib.Path

    def notebook_url(self, name: str) -> str:
        """URL opening ``root_dir/name`` in a fresh (``reset``) workspace."""
        return f"{self.url}lab/tree/{name}?reset&token={self.token}"

    def api(self, path: str, method: str = "GET", body=None):
        """Call the REST API (``body``: sent as JSON); returns the decoded JSON body (or None when empty)."""
        request = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"},
            data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _environment(base_dir: pathlib.Path, token: str) -> dict:
    # npm_config_cache: JupyterLab asks npm for its prefix at start-up; npm's log stays in base_dir.
    env = dict(os.environ, JUPYTER_PLATFORM_DIRS="1", JUPYTER_TOKEN=token, npm_config_cache=str(base_dir / "npm"))
    env.pop("JUPYTER_PATH", None)
    for var, sub in _STATE_DIRS.items():
        env[var] = str(base_dir / sub)
        (base_dir / sub).mkdir(parents=True, exist_ok=True)
    for name, values in LAB_SETTINGS.items():
        path = base_dir / _STATE_DIRS["JUPYTERLAB_SETTINGS_DIR"] / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return env


def _command(root_dir: pathlib.Path, port: int) -> list:
    return [
        str(VENV_PYTHON), "-m", "jupyterlab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root_dir}", "--ServerApp.allow_root=True",  # CI runs as root
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: the tests ask Lab's models, not timers
        # Safety net should this process die without cleaning up: the orphaned
        # server stops itself after 10 idle minutes.
        "--ServerApp.shutdown_no_activity_timeout=600",
        "--MappingKernelManager.cull_idle_timeout=600",
    ]


def _wait_ready(server: LabServer, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {process.returncode}:\n{server.log()}")
        with contextlib.suppress(OSError, urllib.error.URLError):
            if server.api("api/status") is not None:
                return
        time.sleep(0.25)
    raise TimeoutError(f"JupyterLab not ready after {timeout:.0f} s:\n{server.log()}")


def _kernel_pids(runtime_dir: pathlib.Path) -> list:
    """PIDs of processes started with a connection file in our runtime dir (our kernels)."""
    needle = str(runtime_dir).encode()
    pids = []
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if needle in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
    return pids


def _stop(server: LabServer, process: subprocess.Popen, runtime_dir: pathlib.Path) -> None:
    # Graceful first: the server shuts its kernels down itself.
    with contextlib.suppress(Exception):
        server.api("api/shutdown", method="POST")
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=15)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
    # Kernels run in sessions of their own; kill the ones still holding our runtime dir.
    for pid in _kernel_pids(runtime_dir):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def lab_server(base_dir: pathlib.Path, timeout: float = 90):
    """Run JupyterLab on ``base_dir/notebooks`` while the block runs; yield a LabServer."""
    root_dir = base_dir / "notebooks"
    root_dir.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(24)
    env = _environment(base_dir, token)
    port = free_port()
    server = LabServer(f"http://127.0.0.1:{port}/", token, root_dir, base_dir / "jupyterlab.log")
    with open(server.log_path, "wb") as log:
        # cwd = base_dir: nbgrader's Validate reads nbgrader_config.py from the server's cwd.
        process = subprocess.Popen(
            _command(root_dir, port), cwd=base_dir, env=env, stdin=subprocess.DEVNULL,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_ready(server, process, timeout)
        yield server
    finally:
        _stop(server, process, base_dir / _STATE_DIRS["JUPYTER_RUNTIME_DIR"])

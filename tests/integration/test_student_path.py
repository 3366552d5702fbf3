"""Do the README's lines for students without make work as written, in a fresh venv?

The "Without make" section gives five lines (venv, activate, ``pip install uv``, ``uv pip install -e .``,
``jupyter lab notebooks/ch04_attention.ipynb``). This test copies the working tree to a temp
folder, runs the macOS/Linux block there as one bash script with ``python`` on PATH, waits
for the JupyterLab it starts and checks that it serves the chapter with the widget
extensions, and that the explorer can be created in that venv; then stops it. Jupyter's
folders live in the temp folder; a config file there only says what a student's desktop
would not need (no browser to open, a known port and token, root allowed as on CI). pip and
uv use their caches in the home folder, as on a machine where the chapter was installed before:
uv hard-links the packages from its cache into the venv (≈ 5 s; ``pip install -e .`` took ≈ 30 s).
"""
import contextlib
import json
import os
import pathlib
import re
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from support.lab_server import REPO, free_port

README = REPO / "README.md"


def block(kind: str) -> list:
    """The lines of the fenced block right after ``<!-- student-path: kind -->`` in the README."""
    match = re.search(rf"<!-- student-path: {kind} -->\n```\w*\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert match, f"README has no student-path block for {kind}"
    return [line for line in match.group(1).splitlines() if line.strip()]


def copy_of_the_repository(into: pathlib.Path) -> pathlib.Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True,
                           capture_output=True).stdout.split(b"\0")
    archive = subprocess.run(["tar", "-cf", "-", "--null", "-T", "-"], cwd=REPO, input=b"\0".join(files),
                             check=True, capture_output=True).stdout
    into.mkdir()
    subprocess.run(["tar", "-xf", "-"], cwd=into, input=archive, check=True)
    return into


def environment(tmp: pathlib.Path, port: int, token: str) -> dict:
    """The user's environment, with ``python`` on PATH and Jupyter's folders and config in ``tmp``."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys._base_executable)  # a plain Python, as a student has
    config = tmp / "jupyter-config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(json.dumps({
        "ServerApp": {"open_browser": False, "ip": "127.0.0.1", "port": port, "port_retries": 0, "allow_root": True},
        "IdentityProvider": {"token": token}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "JUPYTER", "PYTHON"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", JUPYTER_CONFIG_DIR=str(config),
               JUPYTER_DATA_DIR=str(tmp / "jupyter-data"), JUPYTER_RUNTIME_DIR=str(tmp / "jupyter-runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp / "lab-settings"), JUPYTERLAB_WORKSPACES_DIR=str(tmp / "lab-ws"),
               IPYTHONDIR=str(tmp / "ipython"), MPLCONFIGDIR=str(tmp / "mpl"), npm_config_cache=str(tmp / "npm"))
    return env


def get(url: str, token: str) -> str:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def wait_for_lab(url: str, token: str, process, log: pathlib.Path, timeout: float = 420) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the documented lines stopped with {process.returncode}:\n{log.read_text()[-4000:]}")
        with contextlib.suppress(OSError, urllib.error.URLError):
            get(url + "api/status", token)
            return
        time.sleep(1)
    raise AssertionError(f"no JupyterLab after {timeout:.0f} s:\n{log.read_text()[-4000:]}")


def test_windows_lines_are_the_same_commands():
    """Are the Windows lines the macOS/Linux ones but for the activation line?"""
    windows, posix = block("windows"), block("posix")
    assert windows[1] == r".venv\Scripts\activate" and posix[1] == "source .venv/bin/activate"
    assert windows[:1] + windows[2:] == posix[:1] + posix[2:]
    assert posix == ["python -m venv .venv", "source .venv/bin/activate", "pip install uv", "uv pip install -e .",
                     "jupyter lab notebooks/ch04_attention.ipynb"]


@pytest.mark.timeout(600)
def test_documented_lines_open_the_chapter_in_a_fresh_venv(tmp_path):
    """Run as written in a copy of the repository: does JupyterLab serve the chapter, with anywidget, and does the explorer work there?"""
    repo = copy_of_the_repository(tmp_path / "chapter")
    port, token = free_port(), secrets.token_hex(16)
    env = environment(tmp_path, port, token)
    log = tmp_path / "student.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(["bash", "-e", "-c", "\n".join(block("posix"))], cwd=repo, env=env,
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_for_lab(url, token, process, log)
        # given a file, the server's root is its folder: notebooks/
        chapter = json.loads(get(url + "api/contents/ch04_attention.ipynb?content=0", token))
        assert chapter["type"] == "notebook"
        page = get(url + "lab/tree/ch04_attention.ipynb", token)
        extensions = {e["name"] for e in json.loads(re.search(
            r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S).group(1)
        )["federated_extensions"]}
        assert {"anywidget", "@jupyter-widgets/jupyterlab-manager"} <= extensions, extensions
        made = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-c",
                               "from attnkit.figures import sharpness_explorer; print(type(sharpness_explorer()).__name__)"],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=120)
        assert made.stdout.strip() == "SharpnessExplorer", made.stderr
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=5)  # a student's Ctrl-C; nothing of this copy is kept
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

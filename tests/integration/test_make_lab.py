"""Does the README's `make lab` serve the chapter on 127.0.0.1 with a token, state kept in .state/?"""
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from support.lab_server import REPO, free_port

NEWS_SETTINGS = REPO / ".state/jupyter/lab-settings/@jupyterlab/apputils-extension/notification.jupyterlab-settings"


def _wait_for_url(log_path, process, port, timeout=90.0) -> str:
    pattern = rf"http://127\.0\.0\.1:{port}/lab/tree/notebooks/ch04_attention\.ipynb\?token=\w+"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, log_path.read_text(errors="replace"))
        if found:
            return found.group(0)
        assert process.poll() is None, log_path.read_text(errors="replace")
        time.sleep(0.25)
    raise TimeoutError(log_path.read_text(errors="replace"))


def _wait_listening(log_path, process, port, timeout=60.0) -> None:
    """jupyter_server prints its URL first and binds the port when its event loop starts."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, log_path.read_text(errors="replace")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    log = log_path.read_text(errors="replace")
    raise TimeoutError(f"nothing listens on {port} {timeout:.0f} s after the URL was printed:\n{log}")


def test_make_lab_prints_the_chapter_url_and_serves_it(tmp_path):
    """Is the printed URL the chapter's, token-protected, with the news pop-up switched off?"""
    port, log_path = free_port(), tmp_path / "make-lab.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            ["make", "lab", f"LAB_ARGS=--port={port} --ServerApp.port_retries=0 --no-browser"],
            cwd=REPO, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = _wait_for_url(log_path, process, port)
        _wait_listening(log_path, process, port)
        token = url.rsplit("=", 1)[1]
        api = f"http://127.0.0.1:{port}/api/contents/notebooks/ch04_attention.ipynb?content=0"
        with pytest.raises(urllib.error.HTTPError, match="403"):
            urllib.request.urlopen(api, timeout=10)  # no token, no notebook
        request = urllib.request.Request(api, headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["name"] == "ch04_attention.ipynb"
        assert json.loads(NEWS_SETTINGS.read_text())["fetchNews"] == "false"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)

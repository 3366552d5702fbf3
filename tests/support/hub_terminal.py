"""A hub user's JupyterLab terminal, typed into as a person would: the terminals REST API and its websocket.

``with Terminal(plan, user) as terminal: status, output = terminal.run("cd ~/course && make grade")``
opens a terminal on the user's own server (``POST /user/<name>/api/terminals``, their own hub
token), talks to it over ``/user/<name>/terminals/websocket/<terminal>`` (``["stdin", text]`` out,
``["stdout", text]`` back), types each command followed by an end marker that the shell prints
with the command's exit status, and deletes the terminal when the block ends. What the instructor
grades with is whatever that terminal's shell finds, as in docs/deploy-hub.md.
"""
import asyncio
import json
import re
import secrets
import threading

from coursekit.paths import ASSIGNMENT
from support.hub_tools import server_api, user_token

__all__ = ["Terminal", "make_grade", "nbgrader_autograde", "COURSE_FOLDER"]

COURSE_FOLDER = "~/course"  # where the hub put the instructor's course (docs/deploy-hub.md)
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\r")


class Terminal:
    """One terminal of ``user``'s server, open while the ``with`` block runs."""

    def __init__(self, plan, user):
        self.plan, self.user = plan, user
        self.token = user_token(plan, user)
        self.name = self._socket = None
        # Its own event loop in its own thread: the caller may be inside one (Playwright's sync API is).
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def _wait(self, coroutine, timeout=None):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def __enter__(self):
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        status, model = server_api(self.plan, self.user, "terminals", self.token, "POST")
        assert status == 200, f"opening a terminal on {self.user}'s server: HTTP {status}"
        self.name = model["name"]
        url = f"ws://127.0.0.1:{self.plan.port}/user/{self.user}/terminals/websocket/{self.name}"
        request = HTTPRequest(url, headers={"Authorization": f"token {self.token}"})
        async def connect():
            return await websocket_connect(request)

        self._socket = self._wait(connect(), 60)
        return self

    def run(self, command: str, timeout: float = 600) -> tuple:
        """Type ``command`` and Enter; (its exit status, what the terminal showed, control codes removed)."""
        marker = secrets.token_hex(4)
        # The terminal echoes what is typed: the marker is split by quotes there, whole only in the output.
        typed = f'{command}; echo "@@{marker[:4]}""{marker[4:]} $?@@"\r'
        done = re.compile(rf"@@{marker} (\d+)@@")
        return self._wait(self._read_until(typed, done, command, timeout))

    async def _read_until(self, typed, done, command, timeout):
        await self._socket.write_message(json.dumps(["stdin", typed]))
        shown, deadline = "", self._loop.time() + timeout
        while True:
            remaining = deadline - self._loop.time()
            message = await asyncio.wait_for(self._socket.read_message(), max(remaining, 0.01))
            if message is None:
                raise RuntimeError(f"{self.user}'s terminal closed while running {command!r}:\n{shown[-3000:]}")
            kind, *content = json.loads(message)
            if kind == "stdout":
                shown += _CONTROL.sub("", content[0])
                found = done.search(shown)
                if found:
                    return int(found.group(1)), shown[:found.start()]

    def __exit__(self, *exc):
        if self._socket is not None:
            self._loop.call_soon_threadsafe(self._socket.close)
        server_api(self.plan, self.user, f"terminals/{self.name}", self.token, "DELETE")
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


def make_grade(plan, extra: str = "") -> tuple:
    """The instructor grades the collected class as the docs say: ``make grade`` in a hub terminal."""
    with Terminal(plan, plan.instructor) as terminal:
        return terminal.run(f"cd {COURSE_FOLDER} && make grade WORKERS=2 {extra}".rstrip())


def nbgrader_autograde(plan, student: str) -> tuple:
    """``nbgrader autograde`` (the serial path the docs name) for one student, in a hub terminal."""
    with Terminal(plan, plan.instructor) as terminal:
        return terminal.run(f"cd {COURSE_FOLDER} && nbgrader autograde {ASSIGNMENT} --student {student} --force")

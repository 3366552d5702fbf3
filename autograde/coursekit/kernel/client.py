"""The grading kernel's client: nbclient drives a cell runner as if it were an ipykernel.

nbgrader executes a notebook with nbclient, which talks to a kernel through a jupyter_client
``KernelClient``: ``execute`` a cell, read its replies from the shell channel and its outputs
from the IOPub channel. A grading kernel here is a cell runner (:mod:`coursekit.sandbox.cells`)
that writes each message ipykernel would publish as one JSON line to a socket.
:class:`RunnerClient` is that socket seen through the client interface nbclient uses (the
public one: :meth:`execute`, :meth:`kernel_info`, ``shell_channel.get_msg``,
``iopub_channel.get_msg``, :meth:`is_alive`), so nbclient's own code runs every cell: its
timeout and interrupt, its dead-kernel check, its output handling, its hooks.

The runner is the student's process, so what it sends is untrusted. A line grading cannot read
(too long, not JSON, not a message) stops the kernel: nbclient then finds it dead, and that
notebook scores 0 with ``DeadKernelError``. Messages of a kind nbclient would not store are
dropped, and every output is weighed by the notebook's :class:`~.output_cap.OutputCap` before
nbclient sees it.

With a grader process (:mod:`.grader_process`), a test cell it grades is graded just before it runs
(nbclient's ``on_cell_execute`` hook, :func:`.execute.grade_test_cell`, finds this client as
:func:`current`): the runner serves the grader's calls, then runs the cell, and whatever the kernel
prints for that cell is replaced by the grader's verdict (:class:`.grader_process.Verdict`).
"""
import asyncio
import collections
import datetime
import signal
import socket
import threading
import time
import uuid
from queue import Empty

from ..autograded import NOTEBOOK_KEY, TIMINGS_KEY
from ..faults import KernelDidNotStart
from ..sandbox.channel import ChannelBroken, Reader, send
from .output_cap import OutputCap

__all__ = ["RunnerClient", "current"]

OUTPUTS = {"stream", "display_data", "update_display_data", "execute_result", "error", "clear_output"}
SIZED = {"stream", "display_data", "execute_result", "error"}  # what OutputCap weighs
SHELL = {"execute_reply"}
KERNEL_INFO = {"status": "ok", "protocol_version": "5.3", "implementation": "ipython", "banner": "", "help_links": []}
_CURRENT = threading.local()  # the client nbclient is driving in this thread (its hooks get only the cell)


def current():
    """The :class:`RunnerClient` this thread's nbclient drives now, or None."""
    return getattr(_CURRENT, "client", None)


class _Wire:
    """The runner's socket, read without blocking: each message sorted into the shell or the IOPub queue."""

    def __init__(self, sock, sort, fail):
        self.sock, self.reader, self.sort, self.fail = sock, Reader(sock), sort, fail
        self.fd = sock.fileno()  # kept: the kernel manager may close the socket before nbclient stops the client
        self.queues = {"shell": collections.deque(), "iopub": collections.deque()}
        self.broken = ""  # why the runner can no longer be read ("" while it can)
        self.closed = False
        self._readable = None

    def pump(self) -> None:
        """Read every complete message that has arrived (none of it waits); wake whoever waits for one."""
        read = False
        while not self.broken:
            try:
                message = self.reader.next(0)
            except ChannelBroken as exc:
                self.fail(str(exc), exc.closed)
                break
            if message is None:
                break
            self.sort(message)
            read = True
        if read or self.broken:
            self._wake()  # the other queue's reader may be waiting for what was just read

    async def get(self, queue: str, timeout):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self.pump()
            if self.queues[queue]:
                return self.queues[queue].popleft()
            left = None if deadline is None else deadline - time.monotonic()
            if self.broken and queue == "shell":
                raise Empty  # nbclient then asks whether the kernel is alive: it is not
            if left is not None and left <= 0:
                raise Empty
            if self.broken:
                await asyncio.sleep(left if left is not None else 3600)  # IOPub waits until nbclient cancels it
                continue
            await self.wait_readable(left)

    def close(self) -> None:
        """Stop watching the socket, then close it (a watch left behind would outlive the descriptor's number)."""
        self._wake()
        self.sock.close()

    async def wait_readable(self, timeout) -> None:
        """Until the socket has something to read, or ``timeout`` seconds; one watch shared by both queues."""
        loop = asyncio.get_running_loop()
        if self._readable is None or self._readable.done():
            self._readable = loop.create_future()
            loop.add_reader(self.fd, self._wake)
        try:
            await asyncio.wait_for(asyncio.shield(self._readable), timeout)
        except asyncio.TimeoutError:
            pass

    def _wake(self) -> None:
        """End the watch (at once, so that a later one is never removed by this one's leftovers), waking its waiters."""
        if self._readable is not None and not self._readable.done():
            self._readable.get_loop().remove_reader(self.fd)
            self._readable.set_result(None)


class _Channel:
    """What nbclient calls on ``kc.shell_channel`` and ``kc.iopub_channel``."""

    def __init__(self, wire: _Wire, queue: str):
        self.wire, self.queue = wire, queue

    async def get_msg(self, timeout=None):
        return await self.wire.get(self.queue, timeout)

    def msg_ready(self) -> bool:
        self.wire.pump()
        return bool(self.wire.queues[self.queue])


class RunnerClient:
    """A ``KernelClient`` for nbclient over one cell runner's socket (see the module docstring)."""

    allow_stdin = False

    def __init__(self, sock, process, cap: OutputCap, log, on_broken=None, grader=None, timeouts=(30, 4), clock=None):
        self.process, self.cap, self.log, self.on_broken = process, cap, log, on_broken
        self.clock = clock or (time.perf_counter(),) * 2  # when its kernel manager started the runner; when ready
        self.grader, self.timeouts, self.lang = grader, timeouts, "zh"  # timeouts: the cell's, then after an interrupt
        self.wire = _Wire(sock, self._sort, self._break)
        self.shell_channel, self.iopub_channel = _Channel(self.wire, "shell"), _Channel(self.wire, "iopub")
        self.session_id, self.language_info = uuid.uuid4().hex, None
        self._parent, self._clear_pending = "", False
        self._served, self._sent_channel = True, False
        self.verdict_next = self._verdict = None  # the grader's verdict on the next cell; on the cell running
        self.files = None  # what the runner sent when asked for the files its cells wrote (sandbox.side_files)
        self.notebook = None  # the notebook nbclient runs (.execute.start_notebook)

    # ---------- what nbclient calls ----------

    def start_channels(self, *args, **kwargs) -> None:
        _CURRENT.client = self  # the socket is connected already

    def stop_channels(self) -> None:
        if current() is self:
            _CURRENT.client = None
        self.wire.close()

    @property
    def channels_running(self) -> bool:
        return not self.wire.broken

    async def wait_for_ready(self, timeout=None) -> None:
        """Until the runner has said which language it runs: its first message, before any cell."""
        deadline = time.monotonic() + (60 if timeout is None else timeout)
        while True:
            self.wire.pump()
            if self.language_info is not None:
                return
            if self.wire.broken or not await self.is_alive():
                raise KernelDidNotStart(f"the kernel died before it ran a cell ({self.wire.broken or 'it exited'})")
            if time.monotonic() > deadline:
                raise KernelDidNotStart(f"the kernel did not answer within {timeout} s")
            await self.wire.wait_readable(min(0.25, deadline - time.monotonic()))

    def kernel_info(self) -> str:
        msg_id = self._new_parent()
        self.wire.queues["shell"].append(self._message("kernel_info_reply",
                                                       dict(KERNEL_INFO, language_info=self.language_info)))
        return msg_id

    def execute(self, code: str, silent: bool = False, store_history: bool = True, user_expressions=None,
                allow_stdin=None, stop_on_error: bool = True, **kwargs) -> str:
        msg_id = self._new_parent()
        self.cap.start_cell()
        self._clear_pending = False
        self._verdict, self.verdict_next = self.verdict_next, None
        request = {"code": code}
        if self._verdict is not None:  # the kernel's test cell shows the verdict too (coursekit.environ.GRADED)
            request["graded"] = self._verdict.shown()
        try:
            send(self.wire.sock, request)
        except OSError as exc:  # it died, or stopped reading: nbclient finds out through is_alive
            self._break(f"the kernel did not take the next cell ({exc})", closed=True)
        return msg_id

    async def fetch_files(self, limits: dict, timeout: float) -> dict | None:
        """The files the kernel's cells wrote next to the notebook, as the runner sends them (untrusted data:
        :func:`coursekit.sandbox.side_files.write` checks it); None if it does not answer within ``timeout`` s."""
        self.files = None
        try:
            send(self.wire.sock, {"files": limits})
        except OSError:
            return None
        deadline = time.monotonic() + timeout
        while self.files is None and not self.wire.broken and time.monotonic() < deadline:
            self.wire.pump()
            if self.files is None:
                await self.wire.wait_readable(min(0.25, max(deadline - time.monotonic(), 0)))
        return self.files

    def note_timings(self) -> None:
        """Write where the kernel's time went into the notebook it ran (told by nbclient's ``on_notebook_start``,
        :func:`.execute.start_notebook`): ``kernel`` (start until ready), ``cells`` (since), ``kernel_cpu``."""
        started, ready = self.clock
        seconds = {"kernel": ready - started, "cells": time.perf_counter() - ready,
                   "kernel_cpu": self.process.cpu_seconds()}
        if self.notebook is not None:
            self.notebook.setdefault("metadata", {}).setdefault(NOTEBOOK_KEY, {})[TIMINGS_KEY] = seconds

    # ---------- serving the grader's calls (.grader_process) ----------

    def serve_calls(self, kernel_end) -> None:
        """Ask the runner to serve the grader's calls until the grader is done (the channel goes with the first)."""
        self._served = False
        request = b'{"serve": true}\n'
        try:
            if not self._sent_channel and kernel_end is not None:
                socket.send_fds(self.wire.sock, [request], [kernel_end.fileno()])
                self._sent_channel = True
            else:
                self.wire.sock.sendall(request)
        except OSError as exc:
            self._break(f"the kernel did not take the grader's calls ({exc})", closed=True)

    def served(self) -> bool:
        return self._served or bool(self.wire.broken)

    def pump(self) -> None:
        self.wire.pump()

    def fileno(self) -> int:
        return self.wire.fd

    def interrupt(self) -> None:
        self.process.send_signal(signal.SIGINT)

    def stop(self) -> None:
        self.process.kill()

    async def is_alive(self) -> bool:
        """A runner that closed its socket or sent what grading cannot read runs no more cells: dead."""
        return not self.wire.broken and self.process.poll() is None

    # ---------- the runner's messages, as nbclient expects them ----------

    def _sort(self, line: dict) -> None:
        kind, content = line["msg_type"], line["content"]
        if self._verdict is not None and self._verdict.takes(kind, content):
            return None  # the kernel's own words on a test cell the grader graded: kept aside, never stored
        if not self._served and kind in OUTPUTS:
            return None  # printed by a function while the grader called it: never shown
        if kind == "served":
            self._served = True
        elif kind == "files":
            self.files = content
        elif kind == "kernel_info" and self.language_info is None:
            if not isinstance(content.get("language_info"), dict):
                return self._break("a kernel_info without language_info")
            self.language_info = content["language_info"]
        elif kind in SHELL:
            reply = _reply(content) if self._verdict is None else self._verdict.reply(content)
            if reply is None:
                return self._break("an execute reply grading cannot read")
            self.wire.queues["shell"].append(self._message(kind, reply))
        elif kind == "status" and content.get("execution_state") == "idle":
            if self._verdict is not None:  # in their place: the grader's verdict, outside the output budget (it is
                for kind_, content_ in self._verdict.outputs():  # the grader's, a few kB, and the report reads it)
                    self.wire.queues["iopub"].append(self._message(kind_, content_))
                self._verdict = None
            note = self.cap.note()
            if note is not None:
                self.wire.queues["iopub"].append(self._message("stream", note))
            self.wire.queues["iopub"].append(self._message("status", {"execution_state": "idle"}))
        elif kind == "execute_input" or (kind == "status" and content.get("execution_state") == "busy"):
            self.wire.queues["iopub"].append(self._message(kind, content))
        elif kind in OUTPUTS:
            self._output(kind, content)

    def _output(self, kind: str, content: dict) -> None:
        if not _well_formed(kind, content):
            return self._break(f"an unreadable {kind} message")
        if kind == "clear_output":
            self._clear_pending = bool(content.get("wait"))
            if not self._clear_pending:
                self.cap.clear_cell()
        elif kind in SIZED:
            if self._clear_pending:  # a delayed clear happens at the next output: count as nbclient stores
                self.cap.clear_cell()
                self._clear_pending = False
            content = self.cap.admit(kind, content)
            if content is None:
                return None
        self.wire.queues["iopub"].append(self._message(kind, content))

    def _message(self, kind: str, content: dict) -> dict:
        header = {"msg_id": uuid.uuid4().hex, "msg_type": kind, "session": self.session_id, "username": "",
                  "date": datetime.datetime.now(datetime.timezone.utc), "version": "5.3"}
        return {"header": header, "msg_id": header["msg_id"], "msg_type": kind, "parent_header": {"msg_id": self._parent},
                "metadata": {}, "content": content, "buffers": []}

    def _new_parent(self) -> str:
        self._parent = uuid.uuid4().hex
        return self._parent

    def _break(self, why: str, closed: bool = False) -> None:
        """The runner cannot be read any more: stop it (nbclient then finds it dead); say why in the log."""
        if not self.wire.broken:
            self.wire.broken, self.wire.closed = why, closed
            if not closed:
                self.log.error("Kernel died while waiting for execute reply: it sent %s", why)
            if self.on_broken is not None:
                self.on_broken()
        return None


def _reply(content: dict):
    """The runner's execute reply in the shape nbclient and nbgrader read; None if it is not one."""
    status = content.get("status")
    if status == "ok":
        return {"status": "ok", "execution_count": content.get("execution_count")}
    fields = {key: content.get(key) for key in ("ename", "evalue", "traceback")}
    if status != "error" or not isinstance(fields["ename"], str) or not isinstance(fields["evalue"], str) or \
            not isinstance(fields["traceback"], list) or not all(isinstance(line, str) for line in fields["traceback"]):
        return None
    return {"status": "error", "execution_count": content.get("execution_count"), **fields}


def _well_formed(kind: str, content: dict) -> bool:
    """Does ``content`` have what nbclient reads of a ``kind`` message, with the right types?"""
    if kind == "stream":
        return isinstance(content.get("name"), str) and isinstance(content.get("text"), str)
    if kind == "error":
        return _reply(dict(content, status="error")) is not None
    if kind in ("display_data", "update_display_data", "execute_result"):
        return isinstance(content.get("data"), dict) and isinstance(content.get("metadata", {}), dict)
    return True

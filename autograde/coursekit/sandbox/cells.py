"""A grading kernel without the kernel protocol: ipykernel's own shell, its messages written to one socket.

A forked kernel of :mod:`.template` normally starts ipykernel, and the worker drives it with
nbclient over ZeroMQ: per student, that protocol (ipykernel's request handling, its IOPub thread,
ZMQ's callbacks, nbclient's polling) costs about as much CPU as the cells themselves. Here the
forked child runs the cells itself, in the shell ipykernel builds (``ZMQInteractiveShell`` with
ipykernel's cell compiler; the template builds it once, :func:`prepare`), so the outputs are the
ones ipykernel makes (tracebacks, rich displays, ``execute_result``, ``input()`` refused by
ipykernel's own method), but every message ipykernel would publish goes as one JSON line to the
socket the worker listens on (:mod:`.channel`): ``execute_input``, ``stream``, ``display_data`` …,
``error``, then ``execute_reply`` and ``status: idle``. The grading process reads them through
:class:`coursekit.kernel.client.RunnerClient`, nbclient's kernel client, so nbclient's own
code stores them.

What differs from ipykernel, on purpose: streams are sent when something else is sent or the cell
ends (ipykernel: every 0.2 s), and output written straight to file descriptors 1 and 2 (a
subprocess, C code) is read back after each cell, not as it arrives. No thread is started.

The worker is trusted, this process is not: it is the student's own, and the worker treats every
line it sends as untrusted data.
"""
import importlib
import json
import os
import signal
import socket
import struct
import sys

from jupyter_client.jsonutil import json_default

from ..environ import CALL_HOOK, GRADED
from ..upstream import ipykernel
from ..upstream.ipykernel import INLINE
from ..upstream.jupyter_client import LineSession
from .bubblewrap import IPYTHONDIR
from .calls import Unsendable, buffers_of, decode, encode
from .channel import ChannelBroken, Reader, send
from . import side_files

__all__ = ["prepare", "inline_figures", "serve"]

FLUSH_AT = 256 * 1024  # characters of one stream kept before they are sent anyway
CAPTURED_FDS = ((1, "stdout"), (2, "stderr"))


class _Outbox(LineSession):
    """The session ipykernel's shell sends through: each message goes to the worker as one line."""

    def __init__(self, sock: socket.socket):
        super().__init__()
        self.sock, self._stream = sock, None  # _stream: [name, [pieces], size] not yet sent

    def write(self, name: str, text: str) -> None:
        """Text for stream ``name``, joined with what the same stream wrote just before."""
        if self._stream is not None and self._stream[0] != name:
            self.flush()
        if self._stream is None:
            self._stream = [name, [], 0]
        self._stream[1].append(text)
        self._stream[2] += len(text)
        if self._stream[2] >= FLUSH_AT:
            self.flush()

    def flush(self) -> None:
        if self._stream is not None:
            name, pieces, _ = self._stream
            self._stream = None
            self._line("stream", {"name": name, "text": "".join(pieces)})

    def put(self, msg_type: str, content: dict) -> None:
        self.flush()
        self._line(msg_type, content)

    def _line(self, msg_type: str, content: dict) -> None:
        line = json.dumps({"msg_type": msg_type, "content": content}, default=json_default, ensure_ascii=False)
        data = line.encode("utf-8", "surrogatepass") + b"\n"
        # An interrupt (the cell timeout) must not cut a line in two: it waits until the line is out.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.sock.sendall(data)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class _Stream:
    """``sys.stdout`` / ``sys.stderr`` of the shell: text goes to the outbox."""

    encoding, errors = "utf-8", "strict"

    def __init__(self, outbox: _Outbox, name: str, fd: int):
        self._outbox, self.name, self._fd = outbox, name, fd

    def write(self, text) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self._outbox.write(self.name, text)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        pass  # sent with the next message or at the end of the cell, in order

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False

    def readable(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    @property
    def closed(self) -> bool:
        return False


class _FdCapture:
    """File descriptors 1 and 2 point at anonymous files; after a cell, what they hold becomes stream text."""

    def __init__(self):
        for fd, name in CAPTURED_FDS:
            memory = os.memfd_create(f"captured-{name}")
            os.dup2(memory, fd)
            os.close(memory)

    def drain(self, outbox: _Outbox) -> None:
        for fd, name in CAPTURED_FDS:
            data = self._take(fd)
            if data:
                outbox.write(name, data.decode("utf-8", "replace"))

    def discard(self) -> None:
        for fd, _ in CAPTURED_FDS:
            self._take(fd)

    @staticmethod
    def _take(fd: int) -> bytes:
        size = os.lseek(fd, 0, os.SEEK_CUR)
        if not size:
            return b""
        data = os.pread(fd, size, 0)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        return data


_PREPARED = []  # the shell the template built before its first fork (prepare), if it did


def prepare() -> None:
    """Build the shell in the template, before any student's code exists: each runner forked from it starts
    with its own copy-on-write copy of a shell no cell has run in, instead of building one (≈ 15 ms of a
    forked child's CPU, most of it copying the pages that building touches)."""
    os.environ["IPYTHONDIR"] = IPYTHONDIR  # where the kernel's environment puts it (coursekit.sandbox.bubblewrap)
    shell = ipykernel.new_shell()
    ipykernel.inline_backend(shell)  # done after the fork, this was ≈ 8 ms of each child's CPU
    _PREPARED.append(shell)


def inline_figures(shell) -> None:
    """A student's own matplotlib figures shown as a fresh ipykernel shows them.

    ipykernel makes matplotlib's inline backend the default (``MPLBACKEND``) before any cell runs; it
    takes effect when pyplot is first imported. The template has imported pyplot already, with Agg, so
    a kernel forked from it switches to the inline backend, as that first import would have: the template
    already did so for the shell it prepared (:func:`prepare`), any other shell is switched here.
    """
    os.environ.setdefault("MPLBACKEND", INLINE)
    if not any(prepared is shell for prepared in _PREPARED):
        ipykernel.inline_backend(shell)


def serve(sock: socket.socket) -> None:
    """Run cells the worker sends (``{"code": …}``) until it closes the connection; never returns.

    Between cells the worker may instead ask ``{"serve": …}``: then the grader process calls this
    student's functions, over the channel whose descriptor came with the first such request, until it
    says it is done (:func:`_serve_calls`); the runner then says ``served`` and waits for the next cell.
    """
    # A cell over its time is interrupted (SIGINT): whatever the process that started the runner ignored or blocked
    # (an ipykernel application ignores SIGINT, and exec keeps an ignored signal ignored), this one must end the cell.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.default_int_handler)
    outbox = _Outbox(sock)
    shell = _PREPARED[0] if _PREPARED else ipykernel.new_shell()  # what a new one prints goes to the kernel's log
    ipykernel.attach(shell, outbox)
    inline_figures(shell)
    capture = _FdCapture()
    before = side_files.snapshot()  # the folder as the kernel got it: what a cell adds may go back (side_files)
    sys.stdout, sys.stderr = _Stream(outbox, "stdout", 1), _Stream(outbox, "stderr", 2)
    hook = _call_hook()  # found before any student code exists
    outbox.put("kernel_info", {"language_info": ipykernel.language_info()})
    buffered, running, channel = b"", False, None
    while True:
        try:
            (request, fds), buffered = _next_request(sock, buffered)
            if request is None:
                os._exit(0)
            channel = socket.socket(fileno=fds[0]) if fds and channel is None else channel
            running = True
            if "serve" in request and channel is not None:
                _serve_calls(channel, shell, hook, capture)
                outbox.put("served", {})
            elif "files" in request:
                outbox.put("files", side_files.collect(before, **request["files"]))
            else:
                _graded_result(request.get("graded"))
                _run(shell, outbox, capture, request.get("code", ""))
            running = False
        except KeyboardInterrupt:
            if running:  # the interrupt came outside the cell's own code: the cell still ends, as interrupted
                running = False
                outbox.put("execute_reply", {"status": "error", "ename": "KeyboardInterrupt", "evalue": "",
                                             "traceback": [], "execution_count": shell.execution_count - 1})
                outbox.put("status", {"execution_state": "idle"})


def _next_request(sock: socket.socket, buffered: bytes):
    """``((the next request, descriptors that came with it), what is left)``; ``((None, []), b"")`` at the end."""
    fds = []
    while b"\n" not in buffered:
        chunk, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(4 * 4))
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += list(struct.unpack(f"{len(data) // 4}i", data[:len(data) - len(data) % 4]))
        if not chunk:
            return (None, []), b""
        buffered += chunk
    line, buffered = buffered.split(b"\n", 1)
    return (json.loads(line), fds), buffered


def _graded_result(graded) -> None:
    """The grader's verdict on the cell about to run, for the cell's own code to show (:data:`GRADED`, whose
    docstring in :mod:`coursekit.environ` says why); none: the cell was not graded by the grader."""
    if graded:
        os.environ[GRADED] = json.dumps(graded)
    else:
        os.environ.pop(GRADED, None)


def _call_hook():
    """How the student's functions are called for the grader: the assignment's own hook (:data:`CALL_HOOK`,
    "module:function", e.g. a chapter's delegation probe), else :func:`plain_call`."""
    name = os.environ.get(CALL_HOOK, "")
    if not name:
        return plain_call
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def plain_call(fn, args: tuple, watch=None) -> dict:
    """``fn(*args)``: what it returned, or the exception it raised (its type, first line and errno)."""
    try:
        return {"returned": fn(*args)}
    except (Exception, SystemExit) as exc:
        detail = str(exc).splitlines()[0][:200] if str(exc) else ""
        return {"error": f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__,
                "ename": type(exc).__name__, "errno": getattr(exc, "errno", None)}


def _serve_calls(channel: socket.socket, shell, hook, capture: _FdCapture) -> None:
    """Answer the grader's calls (``call``: a function of the notebook's namespace, its arguments) until ``done``."""
    reader = Reader(channel)
    streams = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = open(os.devnull, "w")  # what a graded call prints is never shown (grading drops it too)
    try:
        while (message := reader.next(3600)) is not None and message["msg_type"] != "done":
            send(channel, {"msg_type": "result", "content": _answer(message["content"], shell, hook)})
    except (OSError, ChannelBroken):  # the grader is gone: the worker finds out and says whose fault that is
        pass
    finally:
        sys.stdout.close()
        sys.stdout, sys.stderr = streams
        capture.discard()  # nor at the level of file descriptors


def _answer(request: dict, shell, hook) -> dict:
    fn = shell.user_ns.get(request.get("name"))
    if not callable(fn):
        return {"error": f"NameError: name {request.get('name')!r} is not defined", "ename": "NameError",
                "buffers": []}
    args, buffers = decode(request.get("args"))
    try:
        outcome = hook(fn, args, request.get("watch"))
    except KeyboardInterrupt:  # the time for this cell's grading ran out inside the call
        outcome = {"error": "KeyboardInterrupt", "ename": "KeyboardInterrupt", "timeout": True}
    try:
        returned, _ = encode((outcome.pop("returned", None),))
    except (Unsendable, MemoryError):  # an object, or too large: the grader sees no return value, the kernel goes on
        returned = None
    return {**outcome, "returned": returned, "buffers": buffers_of(buffers)}
def _run(shell, outbox: _Outbox, capture: _FdCapture, code: str) -> None:
    """One cell, as ipykernel's ``do_execute`` runs it (:func:`coursekit.upstream.ipykernel.execute`)."""
    ipykernel.execute(shell, code, outbox.put, lambda: capture.drain(outbox))

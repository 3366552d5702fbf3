"""The grader process: the course's grader, loaded where no student code ever runs, grading on the worker's request.

The kernel template (:mod:`.template`) forks it for a notebook's first test cell: a process with a
uid of its own (as root), its own PID and mount namespaces and fresh /tmp, which sees the course's
grader (read-only) where the student's kernel sees nothing. It holds two sockets:

* the worker's (trusted): ``{"grade": grade_id, "lang": …, "seed": …}`` in (the seed: the submission's, which the
  hidden inputs are drawn from), ``{"record": {"points", "text", "record"}}`` out. The score travels only here,
  never through the student's process;
* the channel to the student's kernel: the student's functions, called (:class:`RemoteFunction`):
  the arguments go over, the kernel's runner (:mod:`.cells`) calls the function and sends back what
  it returned and its arrays' buffers (:mod:`.calls`). That is the student's process talking: what
  cannot be read makes that call fail, never this process.

The grader is the course's package (``grader/__init__.py``): its ``grade(grade_id, functions, lang, seed)``
returns the record, and ``HANDLES`` names the test cells it grades (told to the
worker first, so that it sends only those).
"""
import os
import socket

from ..assignments import load_grader
from .calls import Unreadable, decode, encode, write_back
from .channel import ChannelBroken, Reader, send

__all__ = ["RemoteFunction", "Functions", "KernelGone", "serve"]

CALL_SECONDS = 3600  # the worker stops the kernel long before: a call never waits on its own clock


class KernelGone(RuntimeError):
    """The student's kernel stopped answering (it died, was stopped, or sent what cannot be read)."""


class StudentError(Exception):
    """The student's function raised; ``str()`` is its type and first line, as the kernel described it."""


class Functions:
    """The student's functions as the grader calls them, and what the calls of one test cell ran into."""

    def __init__(self, channel: socket.socket):
        self.channel, self.reader = channel, Reader(channel)
        self.gone = ""
        self._functions = {}
        self.start_cell()

    def start_cell(self) -> None:
        self.forbidden, self.limits = set(), set()  # delegation the probe saw; the sandbox's limits met

    def function(self, name: str) -> "RemoteFunction":
        """The same object for a name all notebook long, so that "this function hung" is remembered."""
        return self._functions.setdefault(name, RemoteFunction(self, name))

    def call(self, name: str, args: tuple, watch) -> dict:
        """One call in the kernel; its answer (``returned``, ``error`` …), the arrays ``args`` written back."""
        if self.gone:
            raise KernelGone(self.gone)
        message, roots = encode(args)
        try:
            send(self.channel, {"msg_type": "call", "content": {"name": name, "args": message, "watch": watch}})
            reply = self.reader.next(CALL_SECONDS)
            if reply is None or reply["msg_type"] != "result":
                raise ChannelBroken("no answer to a call")
            answer = reply["content"]
            write_back(roots, answer.get("buffers"))
        except (OSError, ChannelBroken, Unreadable, KeyError, TypeError, IndexError) as exc:
            self.gone = f"the kernel could not be asked ({type(exc).__name__}: {exc})"
            raise KernelGone(self.gone) from None
        answer["returned"] = _returned(answer.get("returned"))
        self.forbidden.update(str(f) for f in answer.get("forbidden") or ())
        if answer.get("limit"):
            self.limits.add(str(answer["limit"]))
        return answer

    def done(self) -> None:
        """Tell the kernel this cell's calls are over (it goes back to running cells)."""
        try:
            send(self.channel, {"msg_type": "done", "content": {}})
        except OSError:
            pass


def _returned(value):
    """What the function returned, as the kernel described it; a description that cannot be read is the student's
    value that could not cross (this call's check fails), not a broken kernel: the channel is still in step."""
    try:
        return decode(value)[0][0] if value else None
    except (Unreadable, IndexError):
        return Unreadable("the value it returned could not be read")


class RemoteFunction:
    """A student's function, called in their kernel: like the function itself for the grader's code."""

    def __init__(self, functions: Functions, name: str):
        self.functions, self.__name__, self.timed_out = functions, name, False

    def __repr__(self) -> str:
        return f"<the student's {self.__name__}>"

    def __call__(self, *args):
        answer = self._call(args, None)
        if answer.get("error"):
            raise StudentError(answer["error"])
        return answer["returned"]

    def call_observed(self, args: tuple, watch):
        """``(returned, error description or None, rebound)``: what attnkit.safecall.call_student reports."""
        answer = self._call(args, watch)
        return answer["returned"], answer.get("error") or None, bool(answer.get("rebound"))

    def _call(self, args: tuple, watch) -> dict:
        answer = self.functions.call(self.__name__, args, watch)
        if answer.get("timeout"):  # interrupted in the kernel: the cell's time ran out
            self.timed_out = True  # a grader need not call it again (attnkit.safecall.hung reads this)
            raise KeyboardInterrupt
        return answer


def serve(worker: socket.socket, channel: socket.socket, grader_path: str) -> None:
    """Load the grader, say which cells it grades, then grade what the worker asks until it closes; never returns."""
    try:
        grader = load_grader(grader_path)  # coursekit.assignments' one way of loading a grader
        handles = [str(grade_id) for grade_id in grader.HANDLES]
    except BaseException as exc:  # noqa: B036 -- the machine's fault: the worker says so and grades nobody
        send(worker, {"msg_type": "grader_failed", "content": {"error": f"{type(exc).__name__}: {exc}"}})
        os._exit(0)
    send(worker, {"msg_type": "grader_ready", "content": {"handles": handles}})
    functions, requests = Functions(channel), Reader(worker)
    try:
        while (request := requests.next(CALL_SECONDS * 24)) is not None:
            functions.start_cell()
            content = request["content"]
            verdict = grader.grade(content["grade"], functions, content.get("lang", "zh"), content["seed"])
            functions.done()
            send(worker, {"msg_type": "record", "content": verdict})
    except (ChannelBroken, OSError):  # the worker is done with this notebook
        pass
    os._exit(0)

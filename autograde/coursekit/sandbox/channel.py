"""The wire between a worker and a cell runner (:mod:`.cells`): one JSON object per line, both ways.

The runner is the student's process, so everything read from it is untrusted: a line longer
than :data:`MAX_LINE`, bytes that are not JSON, or a value that is not an object of strings is
:class:`ChannelBroken`, never a crash or unbounded memory in the worker. Reads wait at most the
time given and then return ``None``, so that the caller can look at the clock and the process.
"""
import json
import select
import socket
import time

__all__ = ["MAX_LINE", "ChannelBroken", "send", "Reader"]

MAX_LINE = 64 * 1024 ** 2  # one message: a large figure is a few MB; grading caps what it keeps at ≈ 1 MB


class ChannelBroken(Exception):
    """The other side closed the connection (``closed``) or sent something that is not a message."""

    def __init__(self, why: str, closed: bool = False):
        super().__init__(why)
        self.closed = closed


def send(sock: socket.socket, message: dict) -> None:
    sock.sendall(json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")


class Reader:
    """Messages from ``sock``, one at a time, each a dict."""

    def __init__(self, sock: socket.socket, max_line: int = MAX_LINE):
        self.sock, self.max_line = sock, max_line
        self._buffer, self._start = bytearray(), 0

    def next(self, timeout: float):
        """The next message, or ``None`` when none is complete within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            end = self._buffer.find(b"\n", self._start)
            if end >= 0:
                line = bytes(self._buffer[self._start:end])
                self._start = end + 1
                if self._start > 1024 ** 2:  # keep the buffer from growing with what was already read
                    del self._buffer[:self._start]
                    self._start = 0
                return _decode(line)
            if len(self._buffer) - self._start > self.max_line:
                raise ChannelBroken(f"a message longer than {self.max_line} bytes")
            if not select.select([self.sock], [], [], max(deadline - time.monotonic(), 0))[0]:
                return None
            try:
                chunk = self.sock.recv(1024 ** 2)
            except OSError as exc:
                raise ChannelBroken(f"the connection failed ({exc})", closed=True) from None
            if not chunk:
                raise ChannelBroken("the connection was closed", closed=True)
            self._buffer += chunk


def _decode(line: bytes) -> dict:
    try:
        message = json.loads(line)
    except ValueError as exc:  # UnicodeDecodeError is one
        raise ChannelBroken(f"a line that is not JSON ({exc})") from None
    if not isinstance(message, dict) or not isinstance(message.get("msg_type"), str) \
            or not isinstance(message.get("content"), dict):
        raise ChannelBroken("a message without a msg_type and a content object")
    return message

"""coursekit.sandbox.channel: does the worker read the runner's lines as data, and refuse what is not a message?"""
import socket
import threading
import time

import pytest

from coursekit.sandbox.channel import ChannelBroken, Reader, send


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    yield ours, theirs
    ours.close()
    theirs.close()


def test_does_a_message_sent_in_pieces_arrive_whole(pair):
    ours, theirs = pair
    line = b'{"msg_type": "stream", "content": {"name": "stdout", "text": "\xe4\xbd\xa0\xe5\xa5\xbd"}}\n'
    later = threading.Timer(0.1, lambda: theirs.sendall(line[20:]))
    theirs.sendall(line[:20])
    later.start()
    message = Reader(ours).next(timeout=5)
    later.join()
    assert message == {"msg_type": "stream", "content": {"name": "stdout", "text": "你好"}}


def test_are_two_messages_in_one_chunk_read_one_at_a_time(pair):
    ours, theirs = pair
    send(theirs, {"msg_type": "a", "content": {}})
    send(theirs, {"msg_type": "b", "content": {"x": 1}})
    reader = Reader(ours)
    assert [reader.next(1)["msg_type"], reader.next(1)["msg_type"]] == ["a", "b"]


def test_does_a_quiet_runner_give_none_after_the_timeout(pair):
    ours, _ = pair
    started = time.monotonic()
    assert Reader(ours).next(timeout=0.2) is None
    assert 0.15 < time.monotonic() - started < 2


@pytest.mark.parametrize("line, why", [
    (b"not json\n", "not JSON"),
    (b"\xff\xfe\n", "not JSON"),
    (b"[1, 2]\n", "without a msg_type"),
    (b'{"msg_type": 3, "content": {}}\n', "without a msg_type"),
    (b'{"msg_type": "stream", "content": "text"}\n', "without a msg_type"),
])
def test_is_a_line_that_is_not_a_message_refused_with_why(pair, line, why):
    ours, theirs = pair
    theirs.sendall(line)
    with pytest.raises(ChannelBroken, match=why):
        Reader(ours).next(1)


def test_is_an_endless_line_refused_before_it_fills_the_workers_memory(pair):
    ours, theirs = pair
    theirs.sendall(b"x" * 5000)
    with pytest.raises(ChannelBroken, match="longer than 1000 bytes"):
        Reader(ours, max_line=1000).next(1)


def test_is_a_closed_connection_broken(pair):
    ours, theirs = pair
    theirs.close()
    with pytest.raises(ChannelBroken, match="closed") as broken:
        Reader(ours).next(1)
    assert broken.value.closed

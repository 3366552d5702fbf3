"""jupyter_client's ``Session``, as the grading kernel's shell sends through it.

ipykernel's display hook and display publisher send every output with ``session.send(socket, message,
ident=…)``. The grading kernel (:mod:`coursekit.sandbox.cells`) gives them a session of its own whose
:meth:`LineSession.send` takes the same arguments as ``jupyter_client.session.Session.send`` and hands the
message's type and content to :meth:`LineSession.put`; nothing is signed, nothing goes over ZeroMQ.
"""
from jupyter_client.session import Session

__all__ = ["LineSession"]


class LineSession(Session):
    """A ``Session`` whose ``send`` calls :meth:`put` with the message's type and content (subclasses write it)."""

    def __init__(self):
        super().__init__(key=b"", check_pid=False)

    def send(self, stream, msg_or_type, content=None, parent=None, ident=None, buffers=None, track=False,
             header=None, metadata=None):
        if isinstance(msg_or_type, dict):
            msg_type, content = msg_or_type["msg_type"], msg_or_type["content"]
        else:
            msg_type = msg_or_type
        self.put(msg_type, content or {})

    def put(self, msg_type: str, content: dict) -> None:
        raise NotImplementedError

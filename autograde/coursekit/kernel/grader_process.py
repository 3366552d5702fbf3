"""The grading process's side of the grader process: ask it to grade a test cell, keep the kernel to its time.

The grader process (:mod:`coursekit.sandbox.grader_host`) is forked beside each notebook's kernel when
the course names a grader (``c.GradingKernelManager.grader``). :class:`GraderProcess` holds its socket
(only the grader and this process have it: the score never passes through the student's kernel) and
the kernel's end of the channel the grader calls the student's functions over, which goes to the
kernel with the first test cell. :meth:`GraderProcess.grade` asks for one cell while the kernel's
runner serves the calls, and waits for both within the cell's time: past it, the kernel is
interrupted (the function running is given up, as a cell timeout does); if the kernel still does not
answer, it is stopped, and the grader's record says so.

The grader process is trusted code: what it sends is the record. If it dies, cannot load the grader
or says nonsense, that is the machine's fault (:class:`coursekit.faults.InfrastructureFault`).
"""
import select
import socket
import time

from ..autograded import CELL_KEY
from ..faults import InfrastructureFault
from ..language import marked
from ..sandbox.channel import ChannelBroken, Reader, send
from .client import OUTPUTS

__all__ = ["GraderProcess", "Verdict", "READY_SECONDS"]

READY_SECONDS = 60  # to load the grader


class GraderProcess:
    """A started grader process: ``handles`` (the grade ids it grades), :meth:`grade`, :meth:`stop`; ``seed``: the
    submission's, which every request carries (:mod:`coursekit.seeds`)."""

    def __init__(self, process, sock: socket.socket, kernel_end: socket.socket, release, seed: str):
        self.process, self.sock, self.reader, self.seed = process, sock, Reader(sock), seed
        self.kernel_end, self._release = kernel_end, release  # the channel's end for the kernel, until sent
        self.handles = self._ready()

    def _ready(self) -> set:
        message = self._next(READY_SECONDS)
        if message is None or message["msg_type"] != "grader_ready":
            if message is None:
                raise InfrastructureFault(marked("fault.grader_silent"), marked("fault.fix_grader"))
            why = message["content"].get("error", "")
            raise InfrastructureFault(marked("fault.grader_not_loaded"), marked("fault.fix_grader"), error=why)
        return set(message["content"].get("handles") or ())

    def grade(self, grade_id: str, lang: str, runner, budget: float, grace: float) -> dict:
        """The grader's verdict on ``grade_id`` (``{"points", "text", "data"}``), the ``runner`` (the kernel's
        client) serving the calls meanwhile; ``budget`` s for it all, ``grace`` more after an interrupt."""
        runner.serve_calls(self.kernel_end)
        self.kernel_end = None  # the kernel has it now
        send(self.sock, {"msg_type": "grade", "content": {"grade": grade_id, "lang": lang, "seed": self.seed}})
        deadline, interrupted, verdict = time.monotonic() + budget, False, None
        while verdict is None or not runner.served():
            left = deadline - time.monotonic()
            if left <= 0:
                if interrupted:
                    runner.stop()  # it ignores the interrupt: the grader's next call finds it gone
                    deadline = time.monotonic() + READY_SECONDS
                else:
                    runner.interrupt()
                    interrupted, deadline = True, time.monotonic() + grace
                continue
            waiting = ([self.sock] if verdict is None else []) + ([runner] if not runner.served() else [])
            readable = select.select(waiting, [], [], min(left, 0.5))[0]
            if self.sock in readable:
                verdict = self._verdict()
            if runner in readable:
                runner.pump()
        return verdict

    def _verdict(self):
        message = self._next(0)
        if message is None:
            return None
        if message["msg_type"] != "record" or not isinstance(message["content"].get("points"), (int, float)):
            raise InfrastructureFault(marked("fault.grader_not_record"), marked("fault.fix_grading_log"))
        return message["content"]

    def _next(self, wait: float):
        try:
            return self.reader.next(wait)
        except ChannelBroken:
            raise InfrastructureFault(marked("fault.grader_stopped"), marked("fault.fix_grader_log"),
                                      status=self.process.poll())

    def stop(self) -> None:
        self.process.kill()
        self.process.wait_gone(2.0)
        for sock in (self.sock, self.kernel_end):
            if sock is not None:
                sock.close()
        self._release()


class Verdict:
    """The grader's verdict on one test cell, and what the kernel printed for it, kept aside to compare.

    The cell's outputs become the verdict's: its text on stdout, its data (the record the class report
    reads) as display data, its points as the cell's result (what nbgrader scores). The kernel's own
    outputs for the cell never reach the notebook; when they say something else than the verdict (a
    notebook that changed how floats print, replaced ``gradecell``, printed a forged record …), the cell's
    metadata says so (``coursekit.grader.kernel_agreed``) and ``make grade`` lists it.
    """

    def __init__(self, cell, verdict: dict):
        self.cell, self.points, self.text = cell, float(verdict["points"]), str(verdict.get("text", ""))
        self.data = verdict.get("data") if isinstance(verdict.get("data"), dict) else {}
        self.kernel, self.count = [], None

    def shown(self) -> dict:
        """What the kernel's test cell is to show (:data:`coursekit.environ.GRADED`: its second reader)."""
        return {"points": self.points, "text": self.text}

    def takes(self, kind: str, content: dict) -> bool:
        """Keep the kernel's output aside (True), or let the message through (status, input, reply)."""
        if kind == "execute_input":
            self.count = content.get("execution_count")
        if kind not in OUTPUTS:
            return False
        self.kernel.append((kind, content))
        return True

    def reply(self, content: dict) -> dict:
        """The cell ran, whatever the kernel says: the grader has graded it."""
        return {"status": "ok", "execution_count": content.get("execution_count", self.count)}

    def outputs(self) -> list:
        """The verdict as the cell's outputs; the cell notes whether the kernel showed the same."""
        result = {"data": {"text/plain": repr(self.points)}, "metadata": {}, "execution_count": self.count}
        shown = [("stream", {"name": "stdout", "text": self.text})] if self.text else []
        shown += [("display_data", {"data": self.data, "metadata": {}})] if self.data else []
        self.cell.setdefault("metadata", {}).setdefault(CELL_KEY, {})["grader"] = {"kernel_agreed": self._agreed()}
        return [*shown, ("execute_result", result)]

    def _agreed(self) -> bool:
        printed = "".join(c.get("text", "") for kind, c in self.kernel if kind == "stream" and c.get("name") == "stdout")
        results = [c.get("data", {}).get("text/plain") for kind, c in self.kernel if kind == "execute_result"]
        others = [kind for kind, c in self.kernel if kind not in ("stream", "execute_result")
                  or (kind == "stream" and c.get("name") != "stdout")]
        return printed.strip() == self.text.strip() and results == [repr(self.points)] and not others

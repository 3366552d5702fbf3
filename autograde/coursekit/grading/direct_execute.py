"""nbgrader's Execute without the kernel protocol: cells go to a forked, sandboxed cell runner over one socket.

With a kernel manager that can (:meth:`coursekit.plugins.GradingKernelManager.runs_cells_directly`:
sandboxed, forked from the template), :class:`DirectExecute` asks it for a cell runner
(:mod:`coursekit.sandbox.cells`) instead of an ipykernel, sends it each code cell and hands every
message it sends back to nbclient's own ``process_message``: the outputs are stored, capped
(:class:`~coursekit.plugins.output_cap.CappedExecute`) and checked by nbgrader exactly as before.
What nbclient does around a cell is done here the same way, in the same order: its hooks, the
cell timeout (interrupt, then nbgrader's ``CellTimeoutError`` output, then up to ``iopub_timeout``
for the interrupted cell to finish), a dead kernel (``DeadKernelError``). Any other manager, or
``coalesce_streams``, goes through nbclient and ipykernel unchanged (:class:`~.warm_execute.WarmExecute`).

Everything the runner sends is untrusted (it is the student's process): a message grading cannot
read ends that kernel as if it had died, and the student's notebook is not graded (0, with why).
"""
import datetime
import inspect
import os
import signal
import time

from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbconvert.preprocessors.execute import NotebookClient
from traitlets import Bool, default

from ..sandbox.channel import ChannelBroken, Reader, send
from ..settings import switched_on
from .warm_execute import TIMINGS, WarmExecute

__all__ = ["DirectExecute"]

# the runner's messages nbclient turns into outputs or execution counts; anything else is ignored
OUTPUT_MESSAGES = {"execute_input", "stream", "display_data", "update_display_data", "execute_result", "error",
                   "clear_output"}
POLL = 0.25  # seconds between looks at the runner process while a cell runs


class DirectExecute(WarmExecute):
    """nbgrader's Execute; cells run in a forked cell runner when the kernel manager can start one."""

    direct = Bool(help="Run the cells in a forked, sandboxed cell runner without ipykernel and nbclient's protocol "
                       "(coursekit.sandbox.cells), when the kernel manager can. Default: on, unless the environment "
                       "says ATTN_DIRECT=off.").tag(config=True)

    @default("direct")
    def _direct_default(self):
        return switched_on("ATTN_DIRECT")

    def preprocess(self, nb, resources=None, km=None):
        NotebookClient.__init__(self, nb, km)  # as nbconvert's preprocess: the config's traits, kernel manager's too
        manager = km or self.kernel_manager_class(config=self.config)
        if not (self.direct and not self.coalesce_streams and getattr(manager, "runs_cells_directly", bool)()):
            return super().preprocess(nb, resources, km)
        started = time.perf_counter()
        TIMINGS.clear()
        self.km = manager
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        folder = (self.resources or {}).get("metadata", {}).get("path") or "."
        try:
            self._process, sock = run_sync(manager.start_cell_runner)(folder, dict(os.environ))
            try:
                self._reader, self._sock = Reader(sock), sock
                sock.settimeout(self.timeout or 60)  # sends only: a runner that never reads its next cell
                self.nb.metadata["language_info"] = self._language_info()
                TIMINGS["kernel"] = time.perf_counter() - started
                for index, cell in enumerate(self.nb.cells):
                    self.preprocess_cell(cell, resources, index)
            finally:
                TIMINGS["kernel_cpu"] = self._process.cpu_seconds()
                sock.close()
        finally:
            manager.stop_cell_runner()
            self._reader = None
            TIMINGS["cells"] = time.perf_counter() - started - TIMINGS.get("kernel", 0.0)
        self.set_widgets_metadata()
        return self.nb, self.resources

    def execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        """nbclient's ``async_execute_cell``, step for step, with the runner in place of the kernel client."""
        if getattr(self, "_reader", None) is None:
            return super().execute_cell(cell, cell_index, execution_count, store_history)
        _hook(self.on_cell_start, cell=cell, cell_index=cell_index)
        if cell.cell_type != "code" or not cell.source.strip() or \
                self.skip_cells_with_tag in cell.metadata.get("tags", []):
            return cell
        if self.record_timing:
            cell["metadata"]["execution"] = {"iopub.status.busy": _now()}
        _hook(self.on_cell_execute, cell=cell, cell_index=cell_index)
        self._send({"code": cell.source})
        _hook(self.on_cell_complete, cell=cell, cell_index=cell_index)
        self.code_cells_executed += 1
        cell.outputs = []
        self.clear_before_next_output = False
        reply = self._collect(cell, cell_index)
        if execution_count:
            cell["execution_count"] = execution_count
        _hook(self.on_cell_executed, cell=cell, cell_index=cell_index, execute_reply=reply)
        if reply is not None and reply["content"]["status"] == "error":  # nbclient's check, which may raise
            run_sync(self._check_raise_for_error)(cell, cell_index, reply)
        self.nb["cells"][cell_index] = cell
        return cell

    def _collect(self, cell, cell_index) -> dict:
        """The runner's messages for this cell until it is idle; the execute reply nbclient would return."""
        timeout = self._get_timeout(cell)
        deadline = None if timeout is None else time.monotonic() + timeout
        reply, interrupted = None, False
        while True:
            wait = POLL if deadline is None else min(POLL, deadline - time.monotonic())
            message = self._next(max(wait, 0))
            if message is None:
                if deadline is None or time.monotonic() < deadline:
                    continue
                if reply is not None or interrupted:  # the reply came (or time ran out) but the cell never ended
                    raise CellTimeoutError.error_from_timeout_and_cell(
                        "Timeout waiting for IOPub output", self.iopub_timeout, cell)
                reply, interrupted = self._timed_out(timeout, cell), True
                deadline = time.monotonic() + self.iopub_timeout
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                if self.record_timing:
                    cell["metadata"]["execution"]["iopub.status.idle"] = _now()
                return reply
            if kind == "execute_reply":
                if reply is None and not interrupted:  # after a timeout nbclient keeps its own reply
                    reply = _checked_reply(content)
                    if reply is None:
                        self._broken("an execute reply grading cannot read")
                    if self.record_timing:
                        cell["metadata"]["execution"]["shell.execute_reply"] = _now()
                    deadline = None if deadline is None else time.monotonic() + self.iopub_timeout
            elif kind in OUTPUT_MESSAGES:
                self._output(kind, content, cell, cell_index)

    def _timed_out(self, timeout, cell):
        """What nbclient does when a cell's time is up: interrupt it and say so, or stop the notebook."""
        self.log.error("Timeout waiting for execute reply (%is)." % timeout)
        if not self.interrupt_on_timeout:
            raise CellTimeoutError.error_from_timeout_and_cell("Cell execution timed out", timeout, cell)
        self.log.error("Interrupting kernel")
        self._process.send_signal(signal.SIGINT)  # to the kernel itself, PID 1 of its namespace
        if self.error_on_timeout:
            return {"content": {**self.error_on_timeout, "status": "error"}}
        return None

    def _output(self, kind, content, cell, cell_index):
        msg = {"msg_type": kind, "header": {"msg_type": kind, "date": datetime.datetime.now(datetime.timezone.utc)},
               "parent_header": {"msg_id": f"cell-{cell_index}"}, "metadata": {}, "content": content}
        try:
            self.process_message(msg, cell, cell_index)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            self._broken(f"an unreadable {kind} message ({type(exc).__name__}: {exc})")

    def _next(self, timeout: float):
        try:
            message = self._reader.next(timeout)
        except ChannelBroken as exc:
            self._broken(str(exc), died=exc.closed)
        if message is None and self._process.poll() is not None:
            self._broken("the kernel exited", died=True)
        return message

    def _send(self, request: dict) -> None:
        try:
            send(self._sock, request)
        except OSError as exc:
            self._broken(f"the kernel did not take the next cell ({exc})", died=True)

    def _broken(self, why: str, died: bool = False):
        """Stop the kernel; a kernel that died says what nbclient says ("Kernel died"), one that sent what
        grading cannot read says that too."""
        self.log.error("Kernel died while waiting for execute reply: %s", why)
        self._process.kill()
        raise DeadKernelError("Kernel died" if died else f"Kernel died: it sent {why}")

    def _language_info(self) -> dict:
        """The runner's first message, sent before any cell ran: what ipykernel's kernel_info reply says."""
        message = self._next(30)
        if message is None or message["msg_type"] != "kernel_info" or \
                not isinstance(message["content"].get("language_info"), dict):
            self._broken("no kernel_info within 30 s")
        return message["content"]["language_info"]


def _hook(hook, **kwargs) -> None:
    """nbclient's ``run_hook``, without an event loop unless the hook is a coroutine (nbgrader's is not)."""
    if hook is not None:
        result = hook(**kwargs)
        if inspect.isawaitable(result):
            run_sync(_awaited)(result)


async def _awaited(awaitable):
    return await awaitable


def _checked_reply(content: dict) -> dict:
    """The runner's execute reply, in the shape nbgrader's ``on_cell_executed`` reads; None if it is not one."""
    status = content.get("status")
    if status == "ok":
        return {"content": {"status": "ok", "execution_count": content.get("execution_count")}}
    fields = {key: content.get(key) for key in ("ename", "evalue", "traceback")}
    if status != "error" or not isinstance(fields["ename"], str) or not isinstance(fields["evalue"], str) or \
            not isinstance(fields["traceback"], list) or not all(isinstance(line, str) for line in fields["traceback"]):
        return None
    return {"content": {"status": "error", "execution_count": content.get("execution_count"), **fields}}


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

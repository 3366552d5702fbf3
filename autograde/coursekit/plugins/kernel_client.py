"""The grading kernel's client: ready as soon as the kernel has answered, not 0.2 s later.

jupyter_client's ``wait_for_ready`` asks for ``kernel_info`` until the shell channel answers,
then empties the IOPub channel until it has been silent for 0.2 s: a fixed fifth of a second per
kernel, i.e. per student. :class:`GradingKernelClient` waits instead for the IOPub message that
ends the ``kernel_info`` request (status ``idle`` with that request as parent). That message also
proves IOPub connected, and once it is in, nothing of the start is left to drain. nbclient takes
only the messages of each cell's own request, so nothing read here could have been an output.
"""
import asyncio
import time
from queue import Empty

from jupyter_client.asynchronous import AsyncKernelClient

__all__ = ["GradingKernelClient"]

# Seconds to wait for the shell's reply, then for IOPub's idle, before asking again. IOPub's is
# short: a subscription made after the kernel published drops the message, and only a new
# request brings another.
_SHELL_WAIT, _IOPUB_WAIT = 0.5, 0.05


class GradingKernelClient(AsyncKernelClient):
    """AsyncKernelClient whose :meth:`wait_for_ready` ends with the kernel's first idle status."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            asked = self.kernel_info()
            reply = await self._next(self.shell_channel, asked, "kernel_info_reply", deadline, _SHELL_WAIT)
            idle = reply and await self._next(self.iopub_channel, asked, "idle", deadline, _IOPUB_WAIT)
            if idle:
                self._handle_kernel_info_reply(reply)
                return
            if not await self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

    @staticmethod
    async def _next(channel, parent: str, wanted: str, deadline: float, wait: float):
        """The first message on ``channel`` answering ``parent`` that is ``wanted`` (a msg_type, or
        the status ``"idle"``) within ``wait`` seconds; None if none came."""
        until = min(deadline, time.monotonic() + wait)
        while (left := until - time.monotonic()) > 0:
            try:
                msg = await channel.get_msg(timeout=left)
            except (Empty, asyncio.TimeoutError):
                return None
            if msg.get("parent_header", {}).get("msg_id") != parent:
                continue
            if msg["msg_type"] == wanted or (wanted == "idle" and msg["msg_type"] == "status"
                                               and msg["content"].get("execution_state") == "idle"):
                return msg
        return None

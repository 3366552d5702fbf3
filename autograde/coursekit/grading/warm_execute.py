"""nbgrader's Execute with the next student's kernel started ahead, and where the time went.

A long-lived grading worker (:mod:`coursekit.grading.worker`) uses :class:`WarmExecute` in place of
nbgrader's ``Execute`` in ``Autograde.autograde_preprocessors``. As soon as one student's kernel
is ready, a second kernel is launched for the NEXT student of the same worker; it boots while
the current student's cells run. It is still a fresh kernel: no student code has run in it.
Each kernel runs one notebook and is stopped after it, as nbgrader's own, but at once
(nbclient's ``shutdown_kernel="immediate"``) rather than asked to exit and waited for.

Only two things differ from a kernel nbgrader starts itself, and both are undone before the
first cell: the kernel was launched in the worker's folder (the course root) rather than the
student's autograded folder, so it changes directory there first (silently: no execution count,
no output); and it is launched while the previous student is graded, whose environment is the
same (``NBGRADER_EXECUTION=autograde``, set by nbgrader around the autograde step). The
kernel's ``sys.path`` ('' = the current folder) and namespace are then the same; only IPython's
directory history ``_dh`` still starts with the course root. tests/test_classgrade.py checks
that scores, comments, outputs and feedback equal serial ``nbgrader autograde``'s.
"""
import time

from jupyter_core.utils import ensure_async, run_sync
from nbgrader.preprocessors import Execute
from traitlets import Bool, Enum

from ..sandbox.forkserver import ForkedKernel

__all__ = ["WarmExecute", "TIMINGS", "shutdown_spare"]

# seconds of the last notebook: "kernel" (until ready), "cells", and "kernel_cpu" for a forked kernel; read by the worker
TIMINGS = {}
_SPARE = {}   # kernel name -> a started kernel manager no notebook has used yet


class WarmExecute(Execute):
    """nbgrader's Execute; takes the kernel started ahead when there is one and starts the next."""

    # Every output is in once the last cell replied; a graceful shutdown only makes the worker wait
    # about a second per student for the kernel process to exit on its own.
    shutdown_kernel = Enum(["graceful", "immediate"], default_value="immediate").tag(config=True)
    # Never for a sandboxed kernel: it gets its submission as it starts and sees no other folder
    start_ahead = Bool(True, help="Start the next student's kernel while this one's cells run "
                                  "(kernels that are not sandboxed only).").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._started, self._warm = time.perf_counter(), False
        TIMINGS.clear()
        try:
            return super().preprocess(nb, resources, km)
        finally:
            TIMINGS["cells"] = time.perf_counter() - self._started - TIMINGS.get("kernel", 0.0)

    async def _async_cleanup_kernel(self):
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        if isinstance(process, ForkedKernel):  # read before it is killed; a started kernel is reaped, and counted, by us
            TIMINGS["kernel_cpu"] = process.cpu_seconds()
        await super()._async_cleanup_kernel()

    _cleanup_kernel = run_sync(_async_cleanup_kernel)  # what nbconvert's preprocess calls (nbclient binds its own)

    def create_kernel_manager(self):
        name = self.kernel_name or self.nb.metadata.get("kernelspec", {}).get("name") or ""
        spare = _SPARE.pop(name, None)
        if spare is None or not spare.has_kernel:
            return super().create_kernel_manager()
        self.kernel_name, self.km, self._warm = name, spare, True
        return spare

    async def async_start_new_kernel_client(self):
        kc = await super().async_start_new_kernel_client()
        if self._warm:
            await self._enter_notebook_folder()
        TIMINGS["kernel"] = time.perf_counter() - self._started
        # A sandboxed kernel sees only the folder it was started for: one started ahead could serve no one else
        if self.start_ahead and not getattr(self.km, "sandbox", False):
            await self._start_spare()
        return kc

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    async def _enter_notebook_folder(self):
        """Where nbgrader would have started the kernel: the autograded notebook's folder."""
        folder = (self.resources or {}).get("metadata", {}).get("path")
        if not folder:
            return
        code = f"import os as _nbg_os; _nbg_os.chdir({folder!r}); del _nbg_os"
        msg_id = self.kc.execute(code, silent=True, store_history=False)
        reply = await self.async_wait_for_reply(msg_id)
        if reply is None or reply["content"]["status"] != "ok":
            raise RuntimeError(f"could not enter {folder} in the kernel started ahead: {reply}")

    async def _start_spare(self):
        """Launch (not wait for) the next student's kernel, with this kernel's name and arguments."""
        name = self.kernel_name or ""
        if name in _SPARE:
            return
        km = self.kernel_manager_class(kernel_name=name, config=self.config) if name else \
            self.kernel_manager_class(config=self.config)
        arguments = list(self.extra_arguments)
        if self.ipython_hist_file and not any(a.startswith("--HistoryManager.hist_file") for a in arguments):
            arguments.append(f"--HistoryManager.hist_file={self.ipython_hist_file}")
        await ensure_async(km.start_kernel(extra_arguments=arguments))
        _SPARE[name] = km


def shutdown_spare():
    """Stop the kernels started ahead that no student needed (end of the worker, Ctrl-C)."""
    while _SPARE:
        _, km = _SPARE.popitem()
        try:
            run_sync(km.shutdown_kernel)(now=True)
        finally:
            run_sync(km.cleanup_resources)()

"""nbclient, where a grading process has to undo what it leaves behind.

nbclient's ``NotebookClient.async_setup_kernel`` hands SIGINT and SIGTERM to its event loop while a notebook
runs and removes them afterwards, which leaves both at Python's defaults rather than at the handlers the
process had: a grading worker's own (stop cleanly after nbgrader's clean-up) would be lost after the first
notebook the process runs with a ``NotebookClient`` of its own (e.g. a plug-in drawing figures before grading,
:mod:`attnkit.figure_cache`).
:func:`keep_signal_handlers` puts them back. (nbgrader's ``Execute`` runs through the same code; the grading
kernel's client and manager, which nbclient drives, are :mod:`coursekit.kernel.client` and
:mod:`coursekit.kernel.manager`.)
"""
import contextlib
import signal
import threading

__all__ = ["keep_signal_handlers"]


@contextlib.contextmanager
def keep_signal_handlers():
    """The SIGINT and SIGTERM handlers of the main thread as they were before, whatever nbclient did meanwhile."""
    if threading.current_thread() is not threading.main_thread():  # nbclient leaves other threads' alone
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)

"""ipykernel's kernel, without its protocol: how it builds and wires its shell, and how it runs one cell.

The grading kernel (:mod:`coursekit.sandbox.cells`) runs cells in ipykernel's own shell but sends each message
as one line to the grading process instead of publishing it over ZeroMQ. ipykernel has no public way to run
a cell without its kernel (its sockets, threads and event loop), so these pieces of it are re-written here:

* :func:`new_shell` — the shell as ``IPythonKernel.__init__`` builds it (``ZMQInteractiveShell``, ipykernel's
  cell compiler), with IPython's default extension (``storemagic``) and history in memory;
* :func:`attach` — its display hook and display publisher sending through a session of ours, as
  ``IPythonKernel.__init__`` wires them; ``input()`` and ``getpass()`` refused by ipykernel's own
  ``raw_input``/``getpass`` (``_forward_input`` with stdin not allowed), so the error is ipykernel's;
* :func:`inline_backend` — matplotlib's inline backend, ipykernel's default (``IPKernelApp.init_gui_pylab``);
* :func:`execute` — one cell as ``IPythonKernel.do_execute`` runs it, its messages in the order
  ``Kernel.execute_request`` sends them (busy, input, outputs, reply, idle), the reply built alike;
* :func:`language_info` — what its ``kernel_info`` reply says of the language.
"""
import os
import sys
import types

__all__ = ["INLINE", "attach", "execute", "inline_backend", "language_info", "new_shell"]

INLINE = "module://matplotlib_inline.backend_inline"  # ipykernel's default matplotlib backend (MPLBACKEND)


class _NoStdin:
    """What ipykernel's ``Kernel.raw_input`` and ``getpass`` look at: nbclient's requests never allow stdin."""

    _allow_stdin = False


def new_shell():
    """ipykernel's shell, configured as IPKernelApp configures it for nbgrader (history in memory)."""
    from ipykernel.compiler import XCachingCompiler
    from ipykernel.zmqshell import ZMQInteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = ZMQInteractiveShell.instance(config=config, compiler_class=XCachingCompiler)
    shell.extension_manager.load_extension("storemagic")  # IPython's default extension, as in ipykernel
    return shell


def attach(shell, session) -> None:
    """``shell`` made this process's: its messages to ``session``, its environment and folders those of now."""
    import builtins
    import getpass

    from ipykernel.kernelbase import Kernel

    for hook in (shell.displayhook, shell.display_pub):
        hook.session, hook.pub_socket = session, None
    shell.displayhook.topic = None
    shell.init_environment()  # ipykernel's TERM, PAGER …: the environment was replaced after the fork
    shell.home_dir = os.path.expanduser("~")
    folders = shell.user_ns["_dh"]  # IPython's directory history starts where the kernel started
    folders[:] = [type(folders[0])(os.getcwd())] if folders else [os.getcwd()]
    os.makedirs(shell.profile_dir.location, exist_ok=True)  # this /tmp is not the template's
    shell.profile_dir.check_dirs()
    # ipykernel's own methods raise, so the error and its traceback are ipykernel's
    builtins.input = types.MethodType(Kernel.raw_input, _NoStdin())
    getpass.getpass = types.MethodType(Kernel.getpass, _NoStdin())


def inline_backend(shell) -> None:
    """pyplot, if imported, drawing with ipykernel's inline backend, and ``shell`` showing its figures."""
    if "matplotlib.pyplot" in sys.modules:
        from IPython.core.pylabtools import activate_matplotlib
        from matplotlib_inline.backend_inline import configure_inline_support

        activate_matplotlib(INLINE)
        configure_inline_support(shell, INLINE)


def language_info() -> dict:
    """The ``language_info`` of ipykernel's ``kernel_info`` reply."""
    from ipykernel.ipkernel import IPythonKernel

    return IPythonKernel.language_info


def execute(shell, code: str, put, after_run) -> None:
    """One cell, as ipykernel's ``do_execute`` runs it; ``put(msg_type, content)`` sends each message ipykernel
    would send around it, in its order; ``after_run()`` is called once the cell's code has run (even if it raised)."""
    put("status", {"execution_state": "busy"})
    put("execute_input", {"code": code, "execution_count": shell.execution_count})
    try:
        result = shell.run_cell(code, store_history=True, silent=False)
    finally:
        after_run()
    error = result.error_before_exec if result.error_before_exec is not None else result.error_in_exec
    if result.success and not getattr(shell, "_last_traceback_during_displayhook", False):
        reply = {"status": "ok"}
    else:
        reply = {"status": "error", "traceback": shell._last_traceback or [], "ename": type(error).__name__,
                 "evalue": str(error)}
    reply["execution_count"] = shell.execution_count - 1
    put("execute_reply", reply)
    put("status", {"execution_state": "idle"})

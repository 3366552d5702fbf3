"""The grader's bytecode, written by trusted code before a sandboxed kernel starts.

Each test cell loads the grader afresh from its files (``ATTN_GRADER``). The sandbox shows that folder
read-only, so a kernel cannot leave ``__pycache__`` there, and no other process imports the grader: every
load compiled its five files from source again, about 10 ms per test cell. :func:`compile_grader` writes
them once, outside the sandbox, as the instructor. Python checks each ``.pyc`` against its source's
mtime and size before using it, so a changed grader is compiled again here (or by the kernel, if this
could not write). A student cannot reach these files: the folder stays read-only inside the sandbox.
"""
import compileall
import pathlib

__all__ = ["compile_grader"]


def compile_grader(folder) -> bool:
    """Write missing or stale bytecode for the ``.py`` files of ``folder``; False if some could not be."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        return False
    # quiet=2: nothing printed, not even a file compileall could not write (the kernel then compiles it)
    return bool(compileall.compile_dir(str(folder), maxlevels=0, quiet=2))

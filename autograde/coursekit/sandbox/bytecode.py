"""Bytecode for what every test cell loads afresh, written by trusted code before a sandboxed kernel starts.

Each test cell loads the grader from its files (``ATTN_GRADER``) and a private copy of attnkit's
contract modules from attnkit's folder (``grader.integrity.pristine``). The sandbox shows both folders
read-only, so a kernel cannot leave ``__pycache__`` there; and where nothing else wrote it (the
grader is imported by no other process; attnkit installed in editable mode on a machine with
``PYTHONDONTWRITEBYTECODE``), every load compiled those files from source again: about 10 ms for the
grader and 10 ms for attnkit, in each test cell. :func:`compile_bytecode` writes them once, outside the
sandbox, as the instructor. Python checks each ``.pyc`` against its source's mtime and size before
using it, so a changed file is compiled again here (or by the kernel, if this could not write). A
student cannot reach these files: both folders stay read-only inside the sandbox.
"""
import compileall
import pathlib

__all__ = ["compile_bytecode"]


def compile_bytecode(folder) -> bool:
    """Write missing or stale bytecode for the ``.py`` files of ``folder``; False if some could not be."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        return False
    # quiet=2: nothing printed, not even a file compileall could not write (the kernel then compiles it)
    return bool(compileall.compile_dir(str(folder), maxlevels=0, quiet=2))

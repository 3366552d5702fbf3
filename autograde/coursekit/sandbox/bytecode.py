"""Bytecode for what sandboxed processes import from read-only folders, written by trusted code before they start.

The grader processes load their grader (``/run/attn/graders/<n>``), and kernels the modules of a plug-in's
package the template did not preload (attnkit's, in an editable install). The sandbox shows those folders
read-only, so no process there can leave ``__pycache__`` behind; where nothing else wrote it (a grader is
imported by no other process; ``PYTHONDONTWRITEBYTECODE`` set), every load compiled the files again, about
10 ms each time. :func:`compile_bytecode` writes them once, outside the sandbox, as the instructor. Python
checks each ``.pyc`` against its source's mtime and size before using it, so a changed file is compiled
again here (or in the process, if this could not write). A student cannot reach these files: the folders
stay read-only inside the sandbox, and the graders' are not in a kernel's world at all.
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

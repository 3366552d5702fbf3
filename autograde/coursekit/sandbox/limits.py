"""What one sandboxed grading kernel may use, and how a size is written ("2G", "64M", "300000").

:class:`Limits` is read from the course config (``c.GradingKernelManager.memory = "2G"`` …, see
:mod:`coursekit.kernel.manager`) and becomes each kernel's rlimits and tmpfs sizes (:mod:`.template`).
The defaults fit this chapter: the reference kernel needs about 0.9 GB of address space, a handful
of processes, and writes nothing but IPython's own scratch.
"""
import re
from dataclasses import dataclass

__all__ = ["Limits", "parse_size", "human_size"]

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)i?[bB]?\s*$")
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "t": 1024 ** 4}


def parse_size(text, what="size") -> int:
    """``"2G"`` -> 2147483648 bytes; an int passes through; anything else names ``what`` and the rule."""
    if isinstance(text, int) and not isinstance(text, bool) and text > 0:
        return text
    match = _SIZE.match(str(text))
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"{what} must be a positive size such as 2G, 512M or 300000 (bytes), got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def human_size(size: int) -> str:
    """2147483648 -> ``"2 GB"``: a size in the reasons a student reads, in units every language writes alike."""
    for unit, factor in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("kB", 1024)):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size} B"


@dataclass(frozen=True)
class Limits:
    memory: int = 2 * 1024 ** 3       # address space of each process (RLIMIT_AS)
    processes: int = 64               # processes and threads of the sandbox's user (RLIMIT_NPROC)
    scratch: int = 64 * 1024 ** 2     # the private home, with the copy of the submission (tmpfs)
    tmp: int = 64 * 1024 ** 2         # /tmp (tmpfs)
    file_size: int = 32 * 1024 ** 2   # any one file written (RLIMIT_FSIZE)
    open_files: int = 256             # file descriptors of each process (RLIMIT_NOFILE)

"""The sandbox around every grading kernel: a submission is hostile until proven otherwise.

* :mod:`.bubblewrap` — the command line: bubblewrap's namespaces and read-only binds, ``prlimit``'s
  limits, ``setpriv``'s unprivileged uid; what the kernel sees inside;
* :mod:`.identity` — which uid a kernel runs as (one of its own per kernel when grading as root);
* :mod:`.limits` — memory, processes, disk and files, as sizes the course config writes ("2G");
* :mod:`.bytecode` — the grader compiled outside the sandbox, which shows it read-only to the kernel.

:class:`coursekit.plugins.GradingKernelManager` starts kernels through it; autograde/README.md
("The sandbox") says what it keeps out and what it cannot.
"""
from .bubblewrap import GRADERS, HOME, SHARED, missing_tool, private_python
from .identity import Identity, abandoned, acquire, processes_of
from .limits import Limits, human_size, parse_size

__all__ = ["GRADERS", "HOME", "SHARED", "Identity", "Limits", "SandboxUnavailable", "abandoned", "acquire",
           "human_size", "missing_tool", "parse_size", "private_python", "processes_of"]


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot start on this machine; the message says what to install."""

"""The sandbox around every grading kernel, and the process that grades beside it: a submission is hostile until proven otherwise.

* :mod:`.bubblewrap` — the kernel template's command line: bubblewrap's namespaces and read-only binds, and
  what a kernel sees inside; :mod:`.isolate` — what each forked kernel does to wall itself off (mounts,
  namespaces, limits, its uid); :mod:`.identity` — which uid a kernel runs as (one of its own per kernel when
  grading as root); :mod:`.limits` — memory, processes, disk and files, as sizes the course config writes;
  :mod:`.cgroups` — each kernel's control group: its memory and processes capped as a whole;
* :mod:`.template` — the pre-imported kernel template, which forks each kernel and each grader process;
  :mod:`.forkserver` — the grading process's side of it;
* :mod:`.cells` — the student's kernel: a cell runner that speaks the messages nbclient reads, over
  :mod:`.channel` (one JSON object per line, read as untrusted);
* :mod:`.grader_host` — the grader process: an assignment's grader, calling the student's functions in the
  kernel, their arguments and results across the boundary as :mod:`.calls` encodes them;
* :mod:`.bytecode` — what sandboxed processes import from read-only folders, compiled outside;
* :mod:`.side_files` — files a notebook writes next to itself, brought back out (new, regular, capped).

:class:`coursekit.kernel.GradingKernelManager` starts kernels through it; autograde/README.md
("The sandbox") says what it keeps out and what it cannot.
"""
from .bubblewrap import GRADERS, HOME, SHARED, missing_tool, private_python
from .identity import Identity, abandoned, acquire, processes_of
from .limits import Limits, human_size, parse_size

__all__ = ["GRADERS", "HOME", "SHARED", "Identity", "Limits", "SandboxUnavailable", "abandoned", "acquire",
           "human_size", "missing_tool", "parse_size", "private_python", "processes_of"]


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot start on this machine; the message says what to install."""

"""The environment variables the course reads or sets (``ATTN_*``), each named here once.

Three are the instructor's switches, read where a command starts: :data:`COURSE_ID`, :data:`EXCHANGE` and
:data:`TIMEOUT` (``nbgrader_config.py``), :data:`SANDBOX` (:func:`coursekit.settings.sandbox_default`).

The others are set by grading for a sandboxed kernel (:func:`coursekit.sandbox.bubblewrap.environment`,
or :class:`coursekit.kernel.manager.GradingKernelManager` outside the sandbox) and read inside it:

* :data:`SANDBOX_MEMORY` — the kernel's memory limit, in words, for a student's ``MemoryError``
  (``attnkit.guard``);
* :data:`CALL_HOOK` — how the runner calls the student's functions for the grader (``module:function``,
  the assignment's plug-in's; :mod:`coursekit.sandbox.cells`);
* :data:`GRADED` — the grader's verdict on the test cell about to run, set by the runner just before it runs the
  cell (:mod:`coursekit.sandbox.cells`). The notebook's outputs are the verdict's, put there by the kernel's
  client (:class:`coursekit.kernel.grader_process.Verdict`); this is the verdict's one other reader: the test
  cell's own code (``attnkit.gradecell.run``) prints it and returns its points, so that what the kernel shows
  agrees with the notebook, and a cell that shows anything else is listed as tampered with
  (:func:`coursekit.autograded.tampered_cells`).

The grader's own path is never in anyone's environment: the grader process is handed it in its request.
"""

__all__ = ["CALL_HOOK", "COURSE_ID", "EXCHANGE", "GRADED", "SANDBOX", "SANDBOX_MEMORY", "TIMEOUT"]

COURSE_ID = "ATTN_COURSE_ID"
EXCHANGE = "ATTN_EXCHANGE"
TIMEOUT = "ATTN_TIMEOUT"
SANDBOX = "ATTN_SANDBOX"
SANDBOX_MEMORY = "ATTN_SANDBOX_MEMORY"
CALL_HOOK = "ATTN_CALL_HOOK"
GRADED = "ATTN_GRADED"

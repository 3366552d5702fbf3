"""The grading kernel: what runs a submission's cells, and the grader process beside it, for every command that grades.

nbgrader's ``Execute`` (nbclient) drives it, set by :func:`.execute.grade_with` (``nbgrader_config.py``
for nbgrader's own commands; ``make grade``'s and the service's workers on the app they build):

* :mod:`.manager` — :class:`GradingKernelManager` (``c.Execute.kernel_manager_class``): each notebook's
  kernel forked from the sandbox's template (:mod:`coursekit.sandbox`), and the grader process beside it;
* :mod:`.client` — nbclient's view of that kernel (a cell runner on a socket): the messages it reads,
  and in a graded test cell the grader's verdict in place of what the kernel printed;
* :mod:`.grader_process` — the grader process seen from here: a test cell graded within the cell's time;
  the :class:`~.grader_process.Verdict`;
* :mod:`.execute` — the hooks nbclient calls (a test cell graded just before it runs; the notebook the client
  runs, and its language) and :func:`grade_with`;
* :mod:`.output_cap` — what grading keeps of a cell's output.
"""
from .execute import HOOKS, grade_test_cell, grade_with, start_notebook
from .manager import GradingKernelManager

__all__ = ["GradingKernelManager", "HOOKS", "grade_test_cell", "grade_with", "start_notebook"]

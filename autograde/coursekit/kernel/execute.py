"""nbgrader's ``Execute`` set to grade: :func:`grade_with` names the kernel manager and the hooks nbclient calls.

nbgrader's own ``Execute`` runs every notebook, for autograde and validate alike. :func:`grade_with` sets
it, in a config, to start :class:`coursekit.kernel.manager.GradingKernelManager` and call the hooks below:
``nbgrader_config.py`` calls it for every nbgrader command, and ``make grade``'s and the service's workers
on the app they build. nbclient calls each hook with the notebook or the cell only. The hook finds the kernel's
client through :func:`coursekit.kernel.client.current`: the client this thread's nbclient drives, which its kernel
manager made (:meth:`coursekit.kernel.manager.GradingKernelManager.client`). nbgrader's ``Validator``
builds the stock ``Execute`` itself, so no subclass of ours could own these hooks on every path; the
thread is what both paths share.

* :func:`start_notebook` (``on_notebook_start``): the client told which notebook it runs: the verdicts and the
  output cap's notes in its language, and where the kernel's time went written into it when the kernel stops
  (:meth:`coursekit.kernel.client.RunnerClient.note_timings`; :func:`coursekit.autograded.kernel_seconds` reads
  it, for ``make grade``'s summary);
* :func:`grade_test_cell` (``on_cell_execute``): a test cell the grader grades is graded just before it
  runs (:meth:`coursekit.kernel.grader_process.GraderProcess.grade`), and the client told to show the
  verdict (:class:`coursekit.kernel.grader_process.Verdict`) in place of what the kernel prints.
"""
from ..language import of_notebook
from .client import current
from .grader_process import Verdict
from .manager import GradingKernelManager

__all__ = ["HOOKS", "grade_with", "grade_test_cell", "start_notebook"]


def grade_test_cell(cell, cell_index: int) -> None:
    """nbclient's ``on_cell_execute`` hook: a test cell the grader grades is graded now, before it runs, and the
    runner told what to show."""
    client = current()
    marks = cell.get("metadata", {}).get("nbgrader", {})
    if client is None or client.grader is None or cell.get("cell_type") != "code" or not marks.get("grade") \
            or marks.get("solution") or marks.get("grade_id") not in client.grader.handles:
        return
    budget, grace = client.timeouts
    client.verdict_next = Verdict(cell, client.grader.grade(marks["grade_id"], client.lang, client, budget, grace))


def start_notebook(notebook) -> None:
    """nbclient's ``on_notebook_start`` hook: the client runs ``notebook``; the grader writes its verdicts, and the
    output cap its notes, in the notebook's language (:func:`coursekit.language.of_notebook`: the student's metadata,
    so anything can be there; Chinese when it names none or a language the toolkit does not speak)."""
    client = current()
    if client is not None:
        client.notebook, client.lang = notebook, of_notebook(notebook)
        client.cap.lang = client.lang


# nbclient's hook traits (``c.Execute.<name>``) and what each is set to (:func:`grade_with`)
HOOKS = {"on_notebook_start": start_notebook, "on_cell_execute": grade_test_cell}


def grade_with(config) -> None:
    """Set nbgrader's ``Execute`` in ``config`` to run each notebook in a grading kernel, with the hooks above."""
    config.Execute.kernel_manager_class = GradingKernelManager
    for trait, hook in HOOKS.items():
        setattr(config.Execute, trait, hook)

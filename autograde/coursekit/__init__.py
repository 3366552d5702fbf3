"""The course toolkit: instructor-side code, one sub-package per job.

* :mod:`coursekit.grading` — ``make grade``: a class autograded by parallel nbgrader workers;
* :mod:`coursekit.report` — ``make report``: what the class got wrong, from the gradebook and the grader's records;
* :mod:`coursekit.marking` — the marking page: written answers marked by question in the instructor's Jupyter
  (a server extension; grouped answers, the rubric of ``rubrics/``, keyboard only);
* :mod:`coursekit.plugins` — what ``nbgrader_config.py`` plugs into nbgrader (kernel, output cap, failures,
  feedback, export);
* :mod:`coursekit.sandbox` — the sandbox around every grading kernel;
* :mod:`coursekit.upstream` — what the others copy or patch of upstream packages, one module per package,
  each piece fingerprinted by ``tests/unit/test_upstream.py``;
* at the top, what every job shares: :mod:`coursekit.paths` (where things are, which course),
  :mod:`coursekit.settings` (the course's nbgrader settings), :mod:`coursekit.gradebook` (the one
  rule that picks the gradebook) and :mod:`coursekit.autograded` (what an autograded notebook
  says beyond its scores).

Installed with the project (``pip install -e '.[course]'``); never imported by a student's kernel
(the kernel-side grader is the course's ``grader/``, loaded by path).
"""

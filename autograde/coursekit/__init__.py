"""The course toolkit: instructor-side code for any nbgrader course, one sub-package per job.

* :mod:`coursekit.grading` — ``make grade``: a class autograded by parallel nbgrader workers;
* :mod:`coursekit.service` — the grading service: each submission graded and its feedback released as it
  arrives;
* :mod:`coursekit.report` — ``make report``: what the class got wrong, from the gradebook and the graders' records;
* :mod:`coursekit.lms` — the course inside an LMS (LTI 1.3): the roster from the platform, the scores back to its
  gradebook (AGS), pending written answers as ``PendingManual``;
* :mod:`coursekit.marking` — the marking page: written answers marked by question in the instructor's Jupyter
  (a server extension; grouped answers, the rubric of ``rubrics/``, keyboard only);
* :mod:`coursekit.plugins` — what ``nbgrader_config.py`` plugs into nbgrader (the grading kernel and the grader
  process beside it, output cap, failures, feedback, release stubs, export);
* :mod:`coursekit.sandbox` — the sandbox around every grading kernel, and the grader process's side;
* :mod:`coursekit.upstream` — what the others copy or patch of upstream packages, one module per package,
  each piece fingerprinted by ``tests/unit/test_upstream.py``;
* at the top, what every job shares: :mod:`coursekit.paths` (where things are, which course),
  :mod:`coursekit.settings` (the course's nbgrader settings), :mod:`coursekit.assignments` (what each
  assignment adds to plain nbgrader: its plug-in and its grader; its editions in other languages),
  :mod:`coursekit.language` (a student reads their notebook's language, an instructor the course's),
  :mod:`coursekit.gradebook` (the one
  rule that picks the gradebook), :mod:`coursekit.record` (a grader's record of one test cell),
  :mod:`coursekit.autograded` (what an autograded notebook says beyond its scores),
  :mod:`coursekit.cell_names` (what each graded cell is called where students and instructors see it),
  :mod:`coursekit.student_files` (a file a student wrote, read as data that may be hostile),
  :mod:`coursekit.seeds` (the seed a submission's hidden inputs are drawn from: the course's secret and the
  submission, mixed), :mod:`coursekit.printable` (what a student had a hand in, safe to print on a terminal),
  :mod:`coursekit.inbound` (what may leave the exchange's ``inbound/``: every reader of a submission folder asks
  it), :mod:`coursekit.identity` (hub users as student ids: whose a folder is; an LMS's people named from their
  ``sub``),
  :mod:`coursekit.faults` (a failure of the machine is nobody's grade) and :mod:`coursekit.canary`
  (the untouched release graded first: does grading work here?); :mod:`coursekit.export` keeps the
  per-cell export's documented name.

Installed with the project (``pip install -e '.[course]'``). No module imports a chapter's package:
an assignment's plug-in (Chapter 4's is ``attnkit.course``) is named by the course config. A student's
kernel is a cell runner forked from :mod:`coursekit.sandbox.template`; it never sees a grader.
"""

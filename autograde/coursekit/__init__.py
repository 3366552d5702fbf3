"""The course toolkit: instructor-side code for any nbgrader course, one sub-package per job.

Its imports run down these floors (``tests/unit/test_layers.py``): a reader follows a submission down, never back up:

* on top, the instructor's tools: :mod:`coursekit.report` (``make report``: what the class got wrong) and
  :mod:`coursekit.marking` (the marking page: written answers marked by question, the rubric of ``rubrics/``);
* :mod:`coursekit.plugins` — what ``nbgrader_config.py`` plugs into nbgrader's converters (failures, feedback,
  release stubs) and the students' server extension;
* :mod:`coursekit.service` — the grading service: each submission graded and its feedback released as it
  arrives, on grading's workers;
* :mod:`coursekit.grading` — ``make grade``: a class autograded by parallel nbgrader workers;
* :mod:`coursekit.lms` — the course inside an LMS (LTI 1.3): the roster from the platform, the scores back to its
  gradebook (AGS), pending written answers as ``PendingManual``;
* :mod:`coursekit.kernel` — the grading kernel nbgrader's ``Execute`` drives, and the grader process beside it;
* :mod:`coursekit.sandbox` — the sandbox around every grading kernel, and the grader process's side;
* the modules every job shares, each importing only those named before it: :mod:`coursekit.environ` (the
  ``ATTN_*`` environment variables, each named once), :mod:`coursekit.contrast` (colours a person can read: WCAG's
  contrast ratio, the code colours of every page the course renders), :mod:`coursekit.locks` (file locks taken without
  waiting: whose a uid, a folder or the service is), :mod:`coursekit.language` (a student reads their notebook's language, an instructor the course's),
  :mod:`coursekit.printable` (what a student had a hand in, safe to print on a terminal),
  :mod:`coursekit.sanitise` (what a student wrote, as HTML safe to show an instructor: one allow-list),
  :mod:`coursekit.paths` (where things are, which course), :mod:`coursekit.record` (a grader's record of one test
  cell), :mod:`coursekit.student_files` (a file a student wrote, read as data that may be hostile),
  :mod:`coursekit.settings` (the course's nbgrader settings), :mod:`coursekit.identity` (hub users as student ids:
  whose a folder is; an LMS's people named from their ``sub``), :mod:`coursekit.seeds` (the seed a submission's
  hidden inputs are drawn from), :mod:`coursekit.assignments` (what each assignment adds to plain nbgrader: its
  plug-in and its grader; its editions), :mod:`coursekit.cell_names` (what each graded cell is called where
  students and instructors see it), :mod:`coursekit.stubs` (what a release puts where a solution was),
  :mod:`coursekit.gradebook` (the one rule that picks the gradebook; the walk from a grade to its student),
  :mod:`coursekit.due` (a piece of work's due date, and each student's extension, kept in the gradebook),
  :mod:`coursekit.late` (the late policy, through nbgrader's own hook, and the penalties kept right as marks change),
  :mod:`coursekit.people` (a student named as the gradebook names them, not by their id),
  :mod:`coursekit.grades` (a student's one grade, every surface's; a class's scores and pending answers),
  :mod:`coursekit.export` (``nbgrader export`` with a column per graded cell), :mod:`coursekit.faults` (a failure
  of the machine is nobody's grade), :mod:`coursekit.canary` (the untouched release graded first: does grading
  work here? what does it score, and how long may a student take?), :mod:`coursekit.autograded` (what an
  autograded notebook says beyond its scores),
  :mod:`coursekit.inbound` (what may leave the exchange's ``inbound/``), :mod:`coursekit.exchange` (nbgrader's
  collect and list through it), :mod:`coursekit.regrades` (a student's regrade request: what it may say, how it
  travels through the exchange and its answer back) and :mod:`coursekit.regrade_book` (where requests live once
  taken in: a table of the gradebook);
* at the bottom, :mod:`coursekit.upstream` — what the others copy or patch of upstream packages, one module per
  package, each piece fingerprinted by ``tests/unit/test_upstream.py``.

Installed with the project (``pip install -e '.[course]'``). No module imports a chapter's package: an assignment's
plug-in (Chapter 4's is ``attnkit.course``) is named by the course config. A student's kernel never sees a grader.
"""

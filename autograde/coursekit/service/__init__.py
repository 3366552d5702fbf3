"""The course grading service: feedback seconds after a student presses Submit.

Run by JupyterHub as a managed service (``autograde/hub/jupyterhub_config.py``), as the
instructor's Unix user, on the instructor's course folder; or by hand, ``python -m
coursekit.service`` in the course folder. One module per concept:

* :mod:`.inbox` — what was submitted: each student's newest complete, acceptable submission (nbgrader's folder
  exchange read through :mod:`coursekit.inbound` only; the refused folders, with why);
* :mod:`.fair_queue` — one pending job per student, students served in turn;
* :mod:`.policy` — when feedback goes out (on/off per assignment, cooldown, attempts, after the due date);
* :mod:`.dates` — each student's due date (their extension counted) for the policy, and the dates published for
  the students' Labs;
* :mod:`.journal` — what was done, kept across restarts, rewritten atomically;
* :mod:`.steps` — nbgrader's collect / generate_feedback / release_feedback for one student;
* :mod:`.notice` — the feedback page of a submission that could not be graded;
* :mod:`.student_status` — what a student may know of a submission's feedback and of the due dates, published for
  their server;
* :mod:`.worker` — what a grading process does with a job (the course's one grading path,
  :func:`coursekit.grading.worker.grade_student`, under :mod:`coursekit.grading.lock`); the processes
  themselves are :mod:`coursekit.grading.pool`'s, as ``make grade``'s;
* :mod:`.scheduler` — the main loop; :mod:`.log` — the instructor's log, student by student;
* :mod:`.control` — pause / resume; :mod:`.command` — ``python -m coursekit.service``.
"""

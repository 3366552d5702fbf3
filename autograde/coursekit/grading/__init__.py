"""``make grade``: autograde a whole class with several long-lived nbgrader workers.

* :mod:`.run` — the command: which students, the workers, progress and the closing summary;
* :mod:`.worker` — what one worker does: nbgrader's own autograde, set up once (after the canary), a student at a time;
* :mod:`.pool` — the worker processes and their messages (the grading service's too);
* :mod:`.selection` — who is submitted, graded already, or in this shard;
* :mod:`.progress` — the progress lines and the summary (pure bookkeeping);
* :mod:`.lock` — one grader at a time: the lock ``make grade`` and the grading service share.

``python -m coursekit.grading`` runs :func:`.run.main`.
"""

"""The course inside an LMS (LTI 1.3 Advantage): the roster from the platform, the scores back to its gradebook.

The hub takes the launches (``autograde/hub/lti_auth.py``, JupyterHub's ``jupyterhub-ltiauthenticator``) and holds
the tool's private key (``autograde/hub/lti_broker.py``); everything here runs as the instructor, on the course
folder, and reaches the LMS with tokens the hub hands it. One module per concept:

* :mod:`.launch` — what the course keeps of a launch (who, which role, which link, where the LMS's services are);
* :mod:`.score` — a student's score as AGS takes it, from the gradebook: one line item per piece of work, its
  editions sharing it; ``PendingManual`` while a written answer waits for marking, ``FullyGraded`` after;
* :mod:`.outbox` — on disk: what changed (the hooks' markers), what the LMS accepted, whether it is down;
* :mod:`.platform` — AGS line items and scores, NRPS memberships, over HTTP; whose failure it is;
* :mod:`.hub_client` — the hub's tokens and launches;
* :mod:`.roster` — the class from NRPS and launches into nbgrader's gradebook;
* :mod:`.sync` — one round: roster in, changed scores out, the LMS down noted and retried;
* :mod:`.command` — ``python -m coursekit.lms run|sync|status`` (the hub's LMS sync, ``make lms-sync``).

The grading service, the marking page and ``make grade`` only write a marker (:func:`.outbox.mark`): nothing of
theirs waits for the LMS, and a course with no ``lms/`` folder writes nothing.
"""

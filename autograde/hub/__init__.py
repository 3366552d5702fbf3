"""The course on JupyterHub: one instructor, a few students, nbgrader's exchange shared between them.

``python -m hub`` (from ``autograde/``; ``make hub`` runs it) starts the hub on 127.0.0.1.
Modules, in import order: ``plan`` (who and where, saved as JSON for the hub's config),
``build_lock`` (one installer at a time for the user environment and the proxy),
``userenv`` (the Python every user's server runs), ``accounts`` (Unix users or demo homes,
per-user nbgrader config, the exchange, the instructor's course copy), ``auth`` (the
per-user password authenticator), ``launch`` (start, wait, stop), ``jupyterhub_config``
(read by JupyterHub itself). See docs/deploy-hub.md.
"""

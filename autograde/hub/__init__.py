"""The course on JupyterHub: one instructor, a few students, nbgrader's exchange shared between them.

``python -m hub`` (from ``autograde/``; ``make hub`` runs it) starts the hub on 127.0.0.1. Modules, in
import order: :mod:`hub.plan` (who and where, saved as JSON for the hub's config), :mod:`hub.build_lock`
(one installer at a time for the user environment and the proxy), :mod:`hub.interpreter` (a base
interpreter every user can run), :mod:`hub.userenv` (the Python every user's server runs),
:mod:`hub.accounts` (Unix users or demo homes, per-user nbgrader config, the exchange, the instructor's
course copy), :mod:`hub.auth` (the per-user password authenticator), :mod:`hub.spawner` (JupyterHub's
local-process spawners, each server seen up as soon as it listens), :mod:`hub.launch` (start, wait,
stop), :mod:`hub.archive` (the instructor's course kept by ``make hub-remove``), :mod:`hub.jupyterhub_config`
(read by JupyterHub itself). See docs/deploy-hub.md.

Inside an LMS (``make hub LTI=<file>``, docs/deploy-lms.md): :mod:`hub.lti` (the LTI settings and what they change),
:mod:`hub.lti_auth` (log-in by launch, on JupyterHub's ``jupyterhub-ltiauthenticator``), :mod:`hub.lti_broker` (the
tool's key: its public JWKS, the course's access tokens, the launches kept).
"""

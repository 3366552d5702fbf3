"""JupyterHub settings for the course hub; every value comes from the launcher's plan (hub/plan.py).

Started by ``python -m hub`` (``make hub``) or the tests, never by hand:
``jupyterhub -f autograde/hub/jupyterhub_config.py`` with ``ATTN_HUB_PLAN=<state>/hub/plan.json``.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # autograde/: `import hub`

from hub import accounts, lti  # noqa: E402
from hub import plan as hub_plan  # noqa: E402
from hub.auth import CoursePasswordAuthenticator  # noqa: E402
from hub.spawner import CourseLocalProcessSpawner, CourseSimpleSpawner  # noqa: E402

plan = hub_plan.load()
private = os.path.join(plan.state, "hub")
c = get_config()  # noqa: F821 -- injected by traitlets

# 127.0.0.1 only: the public proxy, the hub's own API and the proxy's API.
c.JupyterHub.bind_url = plan.url
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = plan.hub_port
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{plan.proxy_api_port}"
c.ConfigurableHTTPProxy.command = [plan.proxy]
c.ConfigurableHTTPProxy.pid_file = os.path.join(private, "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{os.path.join(private, 'jupyterhub.sqlite')}"
c.JupyterHub.cookie_secret_file = os.path.join(private, "cookie_secret")
c.JupyterHub.pid_file = os.path.join(private, "jupyterhub.pid")

# JupyterHub's pages with the course's colours (templates/page.html: WCAG 2.1 AA contrast, docs/accessibility.md)
c.JupyterHub.template_paths = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")]

# Who may log in: the course, each with their own password; the instructor is the hub's admin.
c.JupyterHub.authenticator_class = CoursePasswordAuthenticator
c.CoursePasswordAuthenticator.passwords = plan.passwords
c.Authenticator.allowed_users = set(plan.users)
c.Authenticator.admin_users = {plan.instructor}

# A service token for scripts and tests (create user tokens, start servers), never given to users.
# The course's grading service (coursekit.service): started, and restarted when it dies, by the hub, as
# the instructor's Unix user, on their course; it grades each submission and releases its feedback.
course = str(plan.course_dir())
c.JupyterHub.services = [
    {"name": "course-admin", "api_token": plan.api_token},
    {"name": "grading-service", "command": [plan.python, "-m", "coursekit.service", "run", "--course", course],
     "cwd": course, "user": plan.instructor if plan.unix_users else "",
     "environment": {"PATH": os.pathsep.join([os.path.dirname(plan.python), "/usr/local/bin", "/usr/bin", "/bin"]),
                     "JUPYTER_CONFIG_PATH": str(plan.settings), "ATTN_EXCHANGE": plan.exchange,
                     "ATTN_COURSE_ID": plan.course_id, "ATTN_HUB_STATE": plan.state, "LANG": "C.UTF-8"}}]
c.JupyterHub.load_roles = [{
    "name": "course-admin", "services": ["course-admin"],
    "scopes": ["admin:users", "admin:servers", "tokens", "access:servers", "list:users", "read:users",
               "read:services"]}]  # read:services: whether the grading service runs (its pid), for scripts

# Every server: JupyterLab from the shared user environment (hub/userenv.py), opened on Lab; its
# commands first on PATH (terminals inherit it), the hub's system-wide settings on the config path.
c.Spawner.cmd = [plan.python, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120  # a first start on a busy 2-core machine
c.Spawner.http_timeout = 90
c.Spawner.environment = {
    "PATH": os.pathsep.join([os.path.dirname(plan.python), "/usr/local/bin", "/usr/bin", "/bin"]),
    # the instructor's own settings first: nbgrader's instructor tools, which students' Labs do not show
    "JUPYTER_CONFIG_PATH": lambda spawner: accounts.config_path(plan, spawner.user.name),
    "ATTN_EXCHANGE": plan.exchange, "ATTN_COURSE_ID": plan.course_id,
    "ATTN_HUB_STATE": plan.state}  # the launcher finds leftover processes by it

# JupyterHub's local-process spawners, each server seen up as soon as it listens (hub/spawner.py)
if plan.unix_users:
    c.JupyterHub.spawner_class = CourseLocalProcessSpawner  # each server runs as its user's Unix account
    # what only this student may read in the exchange (their extension), in a folder of theirs (as root, first)
    c.Spawner.pre_spawn_hook = lambda spawner: accounts.make_student_folder(plan, spawner.user.name)
else:
    c.JupyterHub.spawner_class = CourseSimpleSpawner  # SimpleLocalProcessSpawner's: one account, homes under state/
    if os.geteuid() == 0:  # demo mode forced as root (tests): Jupyter refuses root unless told
        c.Spawner.args = ["--ServerApp.allow_root=True"]
    c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(plan.state, "homes", "{username}")
    c.JupyterHub.template_vars = {"announcement": (
        "DEMO MODE (not root): every hub user runs as the same Unix account, so students are NOT "
        "isolated from each other. Run `sudo make hub` for one Unix user per student.")}

if plan.lti:  # log-in by LTI 1.3 launch, scores back to the LMS (hub/lti.py); without it, all of the above as it is
    lti.configure(c, plan)

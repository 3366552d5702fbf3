"""``GET <base_url>coursekit/open/<assignment>``: the assignment fetched (first time only) and opened in Lab.

Where an LMS launch lands a learner (``autograde/hub/lti_auth.py``): in their own server, as themselves, nbgrader's
own ``fetch_assignment`` with the hub's settings (what the Assignment List's Fetch does), unless the assignment's
folder is there already (their work is never fetched over); then Lab opens its notebook. An assignment not released
yet gets a page saying so, with the way to the Lab.
"""
import asyncio
import html
import pathlib
import re
import sys

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

__all__ = ["PATH", "handlers"]

PATH = "coursekit/open"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")  # an nbgrader assignment id, never a path
FETCH_SECONDS = 120


async def fetch(root: pathlib.Path, assignment: str) -> str:
    """``nbgrader fetch_assignment <assignment>`` in ``root``; "" when done, else what nbgrader said."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "nbgrader", "fetch_assignment", assignment, cwd=root,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        said, _ = await asyncio.wait_for(process.communicate(), FETCH_SECONDS)
    except asyncio.TimeoutError:
        process.kill()
        return f"nbgrader fetch_assignment {assignment} took longer than {FETCH_SECONDS} s"
    return "" if process.returncode == 0 else said.decode("utf-8", "replace")[-600:]


class OpenHandler(JupyterHandler):
    @web.authenticated
    async def get(self, assignment: str):
        if not NAME.match(assignment):
            raise web.HTTPError(404, f"{assignment!r} is not an assignment's name")
        root = pathlib.Path(self.settings["server_root_dir"]).expanduser()
        folder = root / assignment
        problem = "" if folder.is_dir() else await fetch(root, assignment)
        notebooks = sorted(p.name for p in folder.glob("*.ipynb")) if folder.is_dir() else []
        if problem or not notebooks:
            self.set_status(404)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            return self.finish(_not_there(assignment, problem, url_path_join(self.base_url, "lab")))
        self.redirect(url_path_join(self.base_url, "lab", "tree", assignment, notebooks[0]))


def _not_there(assignment: str, problem: str, lab: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(assignment)}</title></head><body>"
            f"<h1>{html.escape(assignment)} is not here yet / 作业尚未发布</h1>"
            "<p>Your instructor has not released it, or it could not be fetched. Ask them, or open the Assignment "
            "List later. / 老师尚未发布此作业，或暂时无法获取。</p>"
            f"<pre>{html.escape(problem)}</pre><p><a href='{html.escape(lab)}'>JupyterLab</a></p></body></html>")


def handlers(base_url: str) -> list:
    return [(url_path_join(base_url, PATH, r"([^/]+)"), OpenHandler)]

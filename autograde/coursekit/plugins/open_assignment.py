"""``GET <base_url>coursekit/open/<assignment>``: the assignment fetched (first time only) and opened in Lab.

Where an LMS launch lands a learner (``autograde/hub/lti_auth.py``): in their own server, as themselves, nbgrader's
own ``fetch_assignment`` with the hub's settings (what the Assignment List's Fetch does), unless the assignment's
folder is there already (their work is never fetched over); then Lab opens its notebook, JupyterLab's own words in
the launch's language (``?language=``, :mod:`.lab_locale`). An assignment not released
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

from ..language import DEFAULT, SPOKEN, WORDS
from . import lab_locale

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
        lang = self.get_query_argument("language", "")  # the launch's, as the hub's landing names it
        lang = lang if lang in SPOKEN else DEFAULT
        lab_locale.follow(lang)  # JupyterLab's own words in the student's language from the page it opens next
        root = pathlib.Path(self.settings["server_root_dir"]).expanduser()
        folder = root / assignment
        problem = "" if folder.is_dir() else await fetch(root, assignment)
        notebooks = sorted(p.name for p in folder.glob("*.ipynb")) if folder.is_dir() else []
        if problem or not notebooks:
            self.set_status(404)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            return self.finish(_not_there(assignment, problem, url_path_join(self.base_url, "lab"), lang))
        self.redirect(url_path_join(self.base_url, "lab", "tree", assignment, notebooks[0]))


def _not_there(assignment: str, problem: str, lab: str, lang: str) -> str:
    """The page of an assignment not released yet (or not fetched), in the launch's language."""
    name, tag = html.escape(assignment), WORDS.say(lang, "locale.html_lang")
    heading, advice = html.escape(WORDS.say(lang, "open.not_here", assignment=assignment)), html.escape(
        WORDS.say(lang, "open.not_here_advice"))
    return (f"<!DOCTYPE html><html lang='{tag}'><head><meta charset='utf-8'><title>{name}</title></head><body>"
            f"<h1>{heading}</h1><p>{advice}</p>"
            f"<pre>{html.escape(problem)}</pre><p><a href='{html.escape(lab)}'>JupyterLab</a></p></body></html>")


def handlers(base_url: str) -> list:
    return [(url_path_join(base_url, PATH, r"([^/]+)"), OpenHandler)]

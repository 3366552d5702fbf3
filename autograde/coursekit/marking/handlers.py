"""The marking page's HTTP side: the page itself, its static files and a small JSON API.

Routes (under the server's ``base_url``):

* ``GET  marking/?assignment=…&question=…&lang=…`` — the page, with the first question's board inline;
* ``GET  marking/api/board?assignment=…&question=…`` — one question's board (:mod:`.board`);
* ``POST marking/api/judge?assignment=…`` — save a judgement (:mod:`.judging`), one transaction; 409 when an answer
  it names is another text than the page read (the student submitted again);
* ``POST marking/api/split?assignment=…`` — ``{"question", "student"}``: that answer stands alone;
* ``POST marking/api/regrade/decide?assignment=…`` — a TA's decision on regrade requests (:mod:`.requests`); every
  board carries the assignment's requests (``"requests"``), taken in from the exchange first;
* ``GET  marking/api/dates?assignment=…`` — the due date, the extensions and the late submissions' grades
  (:func:`.dates.dates_view`); ``POST marking/api/extend?assignment=…`` — ``{"student", "until", "reason"}``: an
  extension granted as ``make extend`` grants it (:func:`.dates.extend`), by the page's signed-in user;
* ``GET  marking/static/…`` — ``marking.js``, ``marking.css``.

The page speaks the course's language (``c.CourseKit.language``) unless it is asked for another (``lang``: any
language the catalogues speak, the pseudo-locale included): a TA switches it with the links in its header, the
course unchanged. Every word of the page, its scripts and the API's messages comes from coursekit's catalogue
(:func:`page_html` fills the template's ``{{id}}``; the scripts get the ``marking.*`` and ``locale.*`` messages
inline, ``words.js`` says them); the API is asked in the page's language (its ``lang``) too.

Gradebook work runs in a thread (a sqlite writer may wait for another), never on the server's
event loop. The page's Content-Security-Policy allows its own scripts only: a student's answer is
rendered escaped and sanitised (:mod:`.render`) and could run nothing even if it were not.
"""
import dataclasses
import getpass
import html
import json
import pathlib
import re
import urllib.parse

from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.ioloop import IOLoop

from ..language import LANGUAGES, SPOKEN, WORDS, Refusal, marked
from ..lms import outbox as lms_outbox
from ..regrade_book import take_in_course
from .answers import text_fingerprint
from .board import UnknownQuestion, question_board, student_view, unknown_question
from .dates import dates_view, extend, refresh_in_background, settle_marked
from .judging import AnswerChanged, check_texts, parse_request
from .requests import board_requests, decide
from .rubric import RubricError
from .splits import add_split
from .store import marked_counts

__all__ = ["STATIC", "handlers", "page_html", "page_words"]

STATIC = pathlib.Path(__file__).resolve().parent / "static"
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'")


def _blocking(function, *args):
    return IOLoop.current().run_in_executor(None, function, *args)


class _Marking:
    """What every marking handler shares: the course, the chosen assignment and question."""

    @property
    def marking(self):
        return self.settings["coursekit_marking"]

    def assignment(self) -> str:
        assignments = self.marking.assignments()
        name = self.get_argument("assignment", "") or (assignments[0] if assignments else "")
        if name not in assignments:
            lang = self.lang()
            found = ", ".join(assignments) or WORDS.say(lang, "marking.none")
            raise web.HTTPError(404, WORDS.say(lang, "marking.no_assignment", assignment=name, gradebook=self.marking.url,
                                               found=found))
        return name

    def lang(self) -> str:
        """The page's language: its ``lang`` argument when the catalogues speak it, else the course's; a ``lang`` no
        catalogue speaks is refused (400) in the course's language."""
        asked = self.get_argument("lang", "")
        if asked and asked not in SPOKEN:
            raise web.HTTPError(400, WORDS.say(self.marking.language, "refused.lang", lang=asked,
                                               languages=", ".join(SPOKEN)))
        return asked or self.marking.language

    def refused(self, refusal: Refusal) -> web.HTTPError:
        """A request refused: 400, what was wrong said in the page's language."""
        return web.HTTPError(400, refusal.said(self.lang()))

    def board(self, assignment: str, question: str) -> dict:
        if not question:
            questions = self.marking.questions(assignment)
            if not questions:
                raise web.HTTPError(404, WORDS.say(self.lang(), "marking.no_questions", assignment=assignment))
            question = questions[0].grade_id
        try:
            board = question_board(self.marking, assignment, question, self.lang())
        except UnknownQuestion as refusal:
            raise web.HTTPError(404, refusal.said(self.lang())) from None
        except RubricError as error:  # the course's: the page says which file and entry to fix
            raise web.HTTPError(500, WORDS.say(self.lang(), "marking.rubric_fault", error=error.said(self.lang()))) \
                from None
        try:
            take_in_course(self.marking.folder, self.marking.engine, self.log)
        except OSError as error:  # the exchange is the machine's: the page still marks, and says so in the log
            self.log.warning("marking page: could not take in the regrade requests of the exchange: %s", error)
        manual = {q["grade_id"] for q in board["questions"]}
        board["requests"] = board_requests(self.marking, assignment, self.marking.names(assignment, self.lang()), manual)
        return board


class PageHandler(_Marking, JupyterHandler):
    @property
    def content_security_policy(self) -> str:
        return PAGE_CSP

    @web.authenticated
    async def get(self):
        self.xsrf_token  # noqa: B018 -- sets the _xsrf cookie the page's POSTs send back
        lang = self.lang()
        try:
            assignment = await _blocking(self.assignment)
            board = await _blocking(self.board, assignment, self.get_argument("question", ""))
            data = {"board": board}
        except web.HTTPError as error:
            self.set_status(error.status_code)
            data = {"error": error.log_message}
        static = url_path_join(self.base_url, "marking", "static")
        asked = {key: self.get_argument(key, "") for key in ("assignment", "question")}
        page = page_html(lang, data, static, _version(), {key: value for key, value in asked.items() if value})
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(page)


def page_words(lang: str) -> dict:
    """What the page's scripts say (words.js): ``lang``'s ``marking.*`` and ``locale.*`` messages, its plural rule."""
    return {**WORDS.messages(lang, "locale."), **WORDS.messages(lang, "marking.")}


_PLACEHOLDER = re.compile(r"\{\{([a-z_]+(?:\.[a-z_]+)+)\}\}")  # {{marking.page.title}}: a message of the catalogue


def page_html(lang: str, data: dict, static: str, version: str, query: dict) -> str:
    """The page in ``lang``: the template's ``{{id}}`` filled from the catalogue (escaped; an id ending ``_html`` holds
    markup of its own), ``data`` inline with the scripts' words, and a link to the page in each other language."""
    # The board sits in a JSON script element: "</" is escaped so no answer can end that element.
    inline = json.dumps({**data, "lang": lang, "words": page_words(lang)}, ensure_ascii=False).replace("</", "<\\/")
    links = []
    for other in (*LANGUAGES, *([lang] if lang not in LANGUAGES else [])):
        tag, name = WORDS.say(other, "locale.html_lang"), html.escape(WORDS.say(other, "locale.name"))
        href = html.escape("?" + urllib.parse.urlencode({**query, "lang": other}))
        links.append(f"<a lang='{tag}' aria-current='page'>{name}</a>" if other == lang
                     else f"<a lang='{tag}' hreflang='{tag}' href='{href}'>{name}</a>")
    page = (STATIC / "marking.html").read_text(encoding="utf-8")
    page = _PLACEHOLDER.sub(lambda found: WORDS.say(lang, found.group(1)) if found.group(1).endswith("_html")
                            else html.escape(WORDS.say(lang, found.group(1))), page)
    return (page.replace("{{static}}", static).replace("{{version}}", version).replace("{{languages}}", " ".join(links))
            .replace("{{data}}", inline))


def _version() -> str:
    return str(max(int(p.stat().st_mtime) for p in STATIC.iterdir()))


class BoardHandler(_Marking, APIHandler):
    @web.authenticated
    async def get(self):
        assignment = await _blocking(self.assignment)
        self.finish(json.dumps(await _blocking(self.board, assignment, self.get_argument("question", "")),
                               ensure_ascii=False))


class JudgeHandler(_Marking, APIHandler):
    @web.authenticated
    async def post(self):
        assignment = await _blocking(self.assignment)
        try:
            request = parse_request(self.get_json_body())
        except Refusal as refusal:
            raise self.refused(refusal) from None
        self.finish(json.dumps(await _blocking(self._save, assignment, request), ensure_ascii=False))

    def _save(self, assignment: str, request) -> dict:
        questions = self.marking.questions(assignment)
        question = next((q for q in questions if q.grade_id == request.question), None)
        if question is None:
            raise web.HTTPError(404, unknown_question(assignment, request.question, questions).said(self.lang()))
        rubric = self.marking.rubrics(assignment, questions).by_question.get(question.grade_id)
        now = self.marking.answers(assignment, question, request.students)
        try:
            check_texts(request, {student: text_fingerprint(text) for student, text in now.items()})
        except AnswerChanged as changed:
            raise web.HTTPError(409, changed.message(self.lang())) from None
        try:
            saved = self.marking.ordering.apply(self.marking.engine, assignment, question, rubric, request,
                                                self.marking.edition_language(assignment))
        except Refusal as refusal:
            raise self.refused(refusal) from None
        settle_marked(self.marking.folder, self.marking.url, assignment, saved.states)  # a late one's penalty follows
        lms_outbox.mark(self.marking.folder, assignment, saved.states, "marked on the marking page")
        marked, total = marked_counts(self.marking.engine, assignment, question.grade_id).get(question.grade_id, (0, 0))
        return {"students": {s: student_view(state, rubric) for s, state in saved.states.items()},
                "replaced": {s: student_view(state, rubric) for s, state in saved.replaced.items()},
                "missing": saved.missing, "progress": [marked, total]}


class DecideHandler(_Marking, APIHandler):
    """A TA's decision on regrade requests: who decided is this server's user (the hub's instructor, or the Lab's)."""

    @web.authenticated
    async def post(self):
        assignment = await _blocking(self.assignment)
        body, by = self.get_json_body(), _who(self.current_user)
        questions = {q.grade_id: q for q in self.marking.questions(assignment)}
        try:
            decided = await _blocking(decide, self.marking, assignment, body, by, questions)
        except Refusal as refusal:
            raise self.refused(refusal) from None
        manual = set(questions)
        self.finish(json.dumps({"decided": [r.id for r in decided],
                                "requests": board_requests(self.marking, assignment,
                                                           self.marking.names(assignment, self.lang()), manual)},
                               ensure_ascii=False))


def _who(user) -> str:
    """The name a decision is recorded under: the server's user (the hub's user name), else the Unix user."""
    name = getattr(user, "username", None) or getattr(user, "name", None) or (user if isinstance(user, str) else "")
    return str(name or getpass.getuser())[:128]


class SplitHandler(_Marking, APIHandler):
    @web.authenticated
    async def post(self):
        assignment = await _blocking(self.assignment)
        body = self.get_json_body() or {}
        question, student = body.get("question"), body.get("student")
        if not isinstance(question, str) or not isinstance(student, str):
            raise self.refused(Refusal(marked("refused.split")))
        splits = await _blocking(add_split, self.marking.folder, assignment, question, student)
        self.finish(json.dumps({"split": sorted(splits.get(question, ()))}, ensure_ascii=False))


class DatesHandler(_Marking, APIHandler):
    @web.authenticated
    async def get(self):
        assignment = await _blocking(self.assignment)
        view = await _blocking(dates_view, self.marking.folder, self.marking.url, assignment)
        self.finish(json.dumps(view, ensure_ascii=False))


class ExtendHandler(_Marking, APIHandler):
    @web.authenticated
    async def post(self):
        assignment = await _blocking(self.assignment)
        body = self.get_json_body() or {}
        student, until, reason = (body.get(key, "") for key in ("student", "until", "reason"))
        if not all(isinstance(value, str) for value in (student, until, reason)):
            raise self.refused(Refusal(marked("refused.extension")))
        who = getattr(self.current_user, "username", "") or getpass.getuser()
        try:
            _, _, changed = await _blocking(extend, self.marking.folder, self.marking.url, assignment, student,
                                            until, reason, who)
        except Refusal as refusal:
            raise self.refused(refusal) from None
        refresh_in_background(self.marking.folder, self.marking.url, changed,
                              self.marking.folder / "grading-logs" / "extensions.log")
        view = await _blocking(dates_view, self.marking.folder, self.marking.url, assignment)
        self.finish(json.dumps({**view, "changed": [dataclasses.asdict(c) for c in changed]}, ensure_ascii=False))


def handlers(base_url: str) -> list:
    routes = [("marking/?", PageHandler), ("marking/api/board", BoardHandler),
              ("marking/api/judge", JudgeHandler), ("marking/api/split", SplitHandler),
              ("marking/api/regrade/decide", DecideHandler), ("marking/api/dates", DatesHandler),
              ("marking/api/extend", ExtendHandler)]
    result = [(url_path_join(base_url, path), handler) for path, handler in routes]
    result.append((url_path_join(base_url, "marking/static/(.*)"), web.StaticFileHandler, {"path": str(STATIC)}))
    return result

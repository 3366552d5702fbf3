"""A student asks for a regrade from their feedback page: their own server files it, or says at once why not.

``<base_url>attention-feedback/regrade?path=<feedback page>`` (:data:`URL`), in the student's server, beside the
feedback watch (:mod:`.feedback_watch`, whose cache and exchange it uses):

* ``GET`` — what the Lab's dialog shows (:meth:`Regrades.form`): the submission's graded cells by name (written
  answers and test cells), whether requests are open and until when, the longest reason, the student's requests
  of that submission with the course's answer to each, and every word, in the submission's language;
* ``POST {"path", "question", "reason"}`` — file one (:meth:`Regrades.file`): checked by
  :func:`coursekit.regrades.check` (the course checks it again when it takes it in), written into the exchange
  (:func:`coursekit.regrades.drop`) and kept in the student's own nbgrader cache, so the dialog lists it. A refusal
  answers 400 with one sentence in the student's language (``regrade.refused.*``), and nothing is written.

A request is for the submission whose feedback page it comes from, and only the newest (a later submission's
feedback will be released anyway). One open request per cell: a second waits for the first's answer.
"""
import datetime
import json
import os
import pathlib
import re
import time

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from ..cell_names import cell_names, without_points
from ..language import DEFAULT, WORDS, marked
from ..regrades import (FILE_MOST, REASON_MOST, Refusal, Request, check, drop, new_id, read_deadlines, read_status)
from ..student_files import UnreadableFile, read_notebook
from .feedback_watch import WATCH_SETTING, language_of

__all__ = ["URL", "Regrades", "handlers"]

URL = "attention-feedback/regrade"
MINE = "regrade_requests"  # in the student's nbgrader cache of the course: a copy of each request they filed
_PAGE = re.compile(r"^(?P<assignment>[^/]+)/feedback/(?P<timestamp>[^/]+)/[^/]+\.html$")
# The dialog's words (marked for `make translations`), sent to the Lab in the submission's language.
DIALOG = (marked("regrade.button"), marked("regrade.title"), marked("regrade.question"), marked("regrade.reason"),
          marked("regrade.reason_hint"), marked("regrade.until"), marked("regrade.send"), marked("regrade.cancel"),
          marked("regrade.yours"), marked("regrade.state_open"), marked("regrade.state_kept"),
          marked("regrade.state_changed"), marked("regrade.comment"))


class Regrades:
    """One student's regrade requests, as their server files and lists them (``watch``: their feedback watch)."""

    def __init__(self, watch):
        self.watch = watch

    def submission(self, page: str) -> tuple:
        """(student, assignment, timestamp, cache folder) of the submission whose feedback page is ``page``."""
        found = _PAGE.match(str(page or "").strip("/"))
        if found is None:
            raise Refusal("malformed")
        for name, submission in self.watch.submissions.items():
            if (submission.assignment, submission.timestamp) == (found["assignment"], found["timestamp"]):
                return name.split("+", 1)[0], submission.assignment, submission.timestamp, self.watch.cache / name
        raise Refusal("malformed")

    def _newest(self, assignment: str, timestamp: str) -> bool:
        # the cache's time against the cache's: the status the course publishes is named by the arrival, another time
        return self.watch.newest_timestamp(assignment) == timestamp

    @staticmethod
    def _questions(folder: pathlib.Path, lang: str) -> dict:
        """{grade id: name} of the submitted notebooks' graded cells, in notebook order, without the points their
        headings state (the dialog is no score sheet)."""
        found = {}
        for path in sorted(folder.glob("*.ipynb")):
            try:
                found.update({g: without_points(n) for g, n in cell_names(read_notebook(path), lang).items()})
            except UnreadableFile:
                continue
        return found

    def _mine(self) -> pathlib.Path:
        return self.watch.cache / MINE

    def _filed(self, assignment: str, timestamp: str) -> list:
        """The student's requests of that submission, each with the course's answer (None: not answered yet)."""
        found = []
        for path in sorted(self._mine().glob("*.json")):
            try:
                request = Request.from_dict(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue
            if (request.assignment, request.submission) == (assignment, timestamp):
                found.append((request, read_status(self.watch.exchange_root, self.watch.course_id, request.id)))
        return sorted(found, key=lambda pair: pair[0].filed)

    def form(self, page: str) -> dict:
        """What the dialog shows for the feedback page ``page`` (module docstring)."""
        student, assignment, timestamp, folder = self.submission(page)
        lang = language_of(folder)
        names = self._questions(folder, lang)
        deadline = read_deadlines(self.watch.exchange_root, self.watch.course_id).get(assignment)
        closed = None if deadline and datetime.datetime.now(datetime.timezone.utc) <= deadline else \
            Refusal("late", deadline=deadline.isoformat(" ", "minutes")) if deadline else Refusal("closed")
        if closed is None and not self._newest(assignment, timestamp):
            closed = Refusal("not_newest")
        until = deadline.isoformat(" ", "minutes") if deadline else ""
        words = {msgid.split(".", 1)[1]: WORDS.say(lang, msgid, most=REASON_MOST, assignment=assignment, deadline=until)
                 for msgid in DIALOG}
        return {"assignment": assignment, "submission": timestamp, "language": lang, "most": REASON_MOST,
                "open": closed is None, "closed": closed.message(lang) if closed else "",
                "questions": [{"id": q, "name": n} for q, n in names.items()],
                "requests": [{"question": r.question, "name": names.get(r.question, r.question), "reason": r.reason,
                              "state": (status or {}).get("state", "open"), "comment": (status or {}).get("comment", ""),
                              "score_then": (status or {}).get("score_then"),
                              "score_after": (status or {}).get("score_after")}
                             for r, status in self._filed(assignment, timestamp)],
                "words": words}

    def file(self, page: str, question, reason) -> tuple:
        """File a request for ``question`` of the submission of ``page``: (its Request, the sentence to show)."""
        student, assignment, timestamp, folder = self.submission(page)
        lang = language_of(folder)
        if not self._newest(assignment, timestamp):
            raise Refusal("not_newest")
        names = self._questions(folder, lang)
        request = Request(new_id(), self.watch.course_id, student, assignment, timestamp,
                          question if isinstance(question, str) else "", reason if isinstance(reason, str) else "",
                          lang, time.time())
        deadline = read_deadlines(self.watch.exchange_root, self.watch.course_id).get(assignment)
        request = check(request, names, deadline, datetime.datetime.now(datetime.timezone.utc))
        if any(r.question == request.question and (status or {}).get("state", "open") == "open"
               for r, status in self._filed(assignment, timestamp)):
            raise Refusal("already")
        drop(self.watch.exchange_root, self.watch.course_id, request)
        self._mine().mkdir(parents=True, exist_ok=True)
        (self._mine() / f"{request.id}.json").write_text(json.dumps(request.to_dict(), ensure_ascii=False),
                                                       encoding="utf-8")
        return request, WORDS.say(lang, "regrade.filed", question=names[request.question])


class RegradeHandler(APIHandler):
    """``GET`` the dialog's form, ``POST`` a request (module docstring)."""

    @property
    def regrades(self) -> Regrades:
        watch = self.settings.get(WATCH_SETTING)
        if watch is None:
            raise web.HTTPError(404, "this server watches no course's feedback: no regrade requests here")
        return Regrades(watch)

    def _refuse(self, refusal: Refusal, lang: str = DEFAULT, status: int = 400):
        self.set_status(status)
        self.finish(json.dumps({"refused": refusal.kind, "message": refusal.message(lang)}, ensure_ascii=False))

    @web.authenticated
    def get(self):
        try:
            self.finish(json.dumps(self.regrades.form(self.get_argument("path", "")), ensure_ascii=False))
        except Refusal as refusal:
            self._refuse(refusal)

    @web.authenticated
    def post(self):
        regrades = self.regrades
        if len(self.request.body) > FILE_MOST:  # 100 kB of text is refused before it is even read as JSON
            self._refuse(Refusal("too_long", most=REASON_MOST, length=len(self.request.body)), status=413)
            return
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            self._refuse(Refusal("malformed"))
            return
        body = body if isinstance(body, dict) else {}
        try:
            request, said = regrades.file(body.get("path"), body.get("question"), body.get("reason"))
        except Refusal as refusal:
            self._refuse(refusal, _language_of_page(regrades, body.get("path")))
            return
        except OSError as error:  # the exchange refused the file: the machine's fault, said as such
            raise web.HTTPError(503, f"the course's exchange could not take the request: {error.strerror}") from None
        self.finish(json.dumps({"message": said, "question": request.question}, ensure_ascii=False))


def _language_of_page(regrades: Regrades, page) -> str:
    """The language of the submission whose feedback page is ``page`` (the course's own when there is none)."""
    try:
        return language_of(regrades.submission(page)[3])
    except Refusal:
        return DEFAULT


def handlers(base_url: str) -> list:
    return [(url_path_join(base_url, URL), RegradeHandler)]

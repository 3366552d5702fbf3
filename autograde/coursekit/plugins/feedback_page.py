"""The feedback page a student reads: nbgrader's, in the chapter's words, with pending answers as pending.

``generate_feedback`` (the instructor's, the formgrader's button, any automatic path) exports
with :class:`CourseFeedbackExporter` (``GenerateFeedback.exporter_class``), which renders the
template ``templates/course_feedback`` — nbgrader's ``feedback`` template extended, not copied:
each graded cell is named as the assignment names it (:func:`coursekit.cell_names.names_in`), a written
answer nobody has marked shows as pending (待批改, "awaiting marking") instead of ``0.0 / 1.0``, and
the total says how many points are still pending; a practice exercise (a test cell of 0 points its grader checked)
shows its outcome (passed, not passed, not done: :func:`practice_outcomes`) instead of ``0 / 0``. Every word of the
page is in the notebook's language (:func:`coursekit.language.of_notebook`; the course's catalogue, ``feedback.*``),
as everything else its student
reads. :class:`GetGradesForFeedback` takes the place of
nbgrader's ``GetGrades`` and puts those facts where the template reads them; it also tells the
instructor, in the log, how many answers are pending: the whole class once, then each student.
"""
import copy
import html
import pathlib
import re

from nbconvert.exporters import HTMLExporter
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import GetGrades
from traitlets.config import Config

from ..assignments import CourseKit
from ..contrast import CodeColours
from ..due import utc_text, zone_text
from ..language import WORDS, marked, of_notebook
from ..record import GRADED, records_in
from ..upstream.nbconvert import render_without_soup
from ..upstream.nbgrader import show_score
from ..cell_names import names_in, title_of
from ..grades import PendingAnswer, grade_of, is_pending
from .pending import CLASS, Tally, class_tallies, student_line, total_line
from .safe_html import sanitised

__all__ = ["CourseFeedbackExporter", "GetGradesForFeedback", "TEMPLATE", "TEMPLATES", "page_language", "page_words",
           "page_score", "page_tally", "practice_outcomes"]

TEMPLATES = pathlib.Path(__file__).with_name("templates")
TEMPLATE = "course_feedback"
# Every word the page's template says (templates/course_feedback), by its key there: each a message of the course's
# catalogue, in the notebook's language. "image_alt" describes a figure for screen readers where the notebook gives
# none (nbconvert writes one in English); "no_response" is nbgrader's automatic comment on an answer left as released
# ("No response.").
_PAGE = {"title": marked("feedback.title"), "score": marked("feedback.score"), "end": marked("feedback.end"),
         "points": marked("feedback.points"), "comment_link": marked("feedback.comment_link"),
         "late": marked("feedback.late"), "test_cell": marked("feedback.test_cell"), "answer": marked("feedback.answer"),
         "task": marked("feedback.task"), "code": marked("feedback.code"), "top": marked("feedback.top"),
         "comment": marked("feedback.comment"), "colon": marked("feedback.colon"),
         "pending": marked("feedback.pending")}
_NBGRADER_COMMENTS = {"No response.": marked("feedback.no_response")}  # nbgrader's own comments, said ours
_IMG_WITHOUT_ALT = re.compile(r"<img(?![^>]*\salt=)(?=[\s/>])")  # escaped code never holds a literal "<img"


PRACTICE = "course_practice"  # resources' key: {grade_id: a practice exercise's outcome}, read before sanitising


def practice_outcomes(nb) -> dict:
    """``{grade_id: "passed" | "not_passed" | "untried"}`` of the practice exercises (test cells of 0 points) whose
    records grading wrote into ``nb``: read from the records before the page's sanitiser drops them from the outputs."""
    found = {}
    for grade_id, cell in records_in(nb).items():
        if cell.points == 0 and cell.status == GRADED:
            found[grade_id] = ("untried" if not cell.checks else
                               "passed" if all(check.passed for check in cell.checks) else "not_passed")
    return found


def _practice_words(outcome: str | None, lang: str) -> str:
    if outcome == "passed":
        return WORDS.say(lang, "feedback.practice_passed")
    if outcome == "not_passed":
        return WORDS.say(lang, "feedback.practice_not_passed")
    return WORDS.say(lang, "feedback.practice_untried") if outcome == "untried" else ""


def page_language(nb) -> str:
    """The language of a feedback page: its notebook's (:func:`coursekit.language.of_notebook`)."""
    return of_notebook(nb)


def page_words(lang: str) -> dict:
    """The templates of every word the page's template says, by its key there, in ``lang``."""
    return {key: WORDS.template(lang, msgid) for key, msgid in _PAGE.items()}


def _count(points: str) -> int:
    """A number of points as written on the page ("1", "0.5") as the count its plural is chosen by: a fraction
    counts as many."""
    return int(float(points)) if float(points).is_integer() else 2


def _points(lang: str, points: str) -> str:
    """``3 分``, "1 point", "0.5 points" (``points`` as the page writes it)."""
    return WORDS.say_n(lang, "feedback.points_phrase", _count(points), points=points)


def _still_pending(lang: str, tally: Tally) -> str:
    """The page's clause on pending answers (each language's plurals from its catalogue)."""
    pending = f'<span class="course-pending">{WORDS.say(lang, "feedback.pending")}</span>'
    return WORDS.say_n(lang, "feedback.still_pending", tally.answers, points=_points(lang, f"{tally.points:g}"),
                       pending=pending)


def _time(when, timezone: str) -> str:
    """A time on the page: the course's zone, its offset said, and the instant for a reader that shows it in the
    student's own zone (the students' Lab extension does: labextension/src/pages.ts)."""
    return f'<time datetime="{utc_text(when)}" data-course-time>{html.escape(zone_text(when, timezone))}</time>'


def _dates(grade, lang: str, timezone: str) -> str:
    """The page's line of dates: the due date, the student's own extension, when the submission arrived and how
    late; "" when the work has no due date."""
    if grade is None or grade.due is None:
        return ""
    parts = [WORDS.say(lang, "feedback.due", due=_time(grade.due, timezone))]
    if grade.extension is not None:
        parts.append(WORDS.say(lang, "feedback.extension", until=_time(grade.extension.until, timezone)))
    if grade.timestamp is not None:
        parts.append(WORDS.say(lang, "feedback.submitted", at=_time(grade.timestamp, timezone)))
    if grade.seconds_late > 0:
        days, rest = divmod(int(grade.seconds_late), 86400)
        parts.append(WORDS.say(lang, "feedback.late_by", days=days, hours=-(-rest // 3600)))
    return WORDS.say(lang, "feedback.separator").join(parts)


class GetGradesForFeedback(GetGrades):
    """nbgrader's GetGrades, plus each graded cell's name and pending state, and the totals.

    Per graded cell: ``metadata.nbgrader.name`` and ``.pending``; per page:
    ``resources["course_feedback"]`` with ``pending`` (answers), ``pending_points``, the page's
    ``lang``, its ``words`` (:data:`WORDS`), its ``title`` (the notebook's, :func:`coursekit.cell_names.title_of`;
    its file's name when it has none), the ``still_pending`` clause and the ``dates`` line (due date, the
    student's extension, arrival, lateness). The score shown is the course's one grade
    (:func:`coursekit.grades.grade_of`: the late penalty taken off, never below 0). One instance serves a
    whole ``generate_feedback`` run, so the class-wide line is logged once, before the first student's.
    """

    _told_class = False

    @property
    def _instructors(self) -> str:
        """The language of the instructor's log lines: the course's (``c.CourseKit.language``)."""
        return CourseKit(config=self.config).language

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        if not self._told_class:
            self._told_class = True
            with Gradebook(info["db_url"]) as gradebook:
                line, news = total_line(info["assignment"], class_tallies(gradebook, info["assignment"]),
                                        self._instructors, CLASS)
            (self.log.warning if news else self.log.info)(line)
        self._lang = page_language(nb)
        self._names, self._pending = names_in(nb, info["assignment"], self.config, self._lang), []
        nb, resources = super().preprocess(nb, resources)
        with Gradebook(info["db_url"]) as gradebook:
            grade = grade_of(gradebook, info["assignment"], info["student"], self.config)
        if grade is not None:  # the one grade (the late penalty, never below 0), this notebook's part of it
            resources["nbgrader"]["score"] = grade.notebook_score(info["notebook"])
            resources["nbgrader"]["late_penalty"] = grade.notebooks.get(info["notebook"], (0.0, 0.0))[1]
        tally = Tally.of(self._pending)
        lang = self._lang
        resources["course_feedback"] = {"pending": tally.answers, "pending_points": tally.points,
                                        "lang": lang, "words": page_words(lang),
                                        "pending_points_said": lambda points: WORDS.say(
                                            lang, "feedback.pending_points", points=_points(lang, points)),
                                        "title": title_of(nb) or info["notebook"],
                                        "still_pending": _still_pending(self._lang, tally),
                                        "dates": _dates(grade, self._lang, CourseKit(config=self.config).timezone)}
        if tally.answers:
            self.log.warning(student_line(info["student"], info["assignment"], tally, self._instructors))
        return nb, resources

    def _get_score(self, cell, resources):
        meta = cell.metadata.nbgrader
        grade = self.gradebook.find_grade(meta["grade_id"], self.notebook_id, self.assignment_id, self.student_id)
        show_score(cell, grade)
        meta["name"] = self._names.get(meta["grade_id"], meta["grade_id"])
        outcome = resources.get(PRACTICE, {}).get(meta["grade_id"]) if not grade.max_score else None
        meta["practice"] = _practice_words(outcome, self._lang)
        meta["pending"] = is_pending(utils.is_solution(cell) or utils.is_task(cell), grade.manual_score,
                                     grade.auto_score)
        if meta["pending"]:
            self._pending.append(PendingAnswer(self.notebook_id, meta["grade_id"], float(grade.max_score)))

    def _get_comment(self, cell, resources):
        super()._get_comment(cell, resources)
        comment = cell.metadata.nbgrader.get("comment")
        ours = _NBGRADER_COMMENTS.get(comment)
        cell.metadata.nbgrader["comment"] = WORDS.say(self._lang, ours) if ours else comment


class CourseFeedbackExporter(HTMLExporter):
    """``generate_feedback``'s exporter: the page rendered with the course's template.

    ``GenerateFeedback`` configures ``HTMLExporter`` with nbgrader's template and its folder (the
    formgrader's button even forces ``template_name = 'feedback'``). This class reads its own config
    section first, so it adds there what it needs unless the config names it: the course's template,
    the course's folder in front of nbgrader's, and nbgrader's folder as a search path too, for the
    ``{% extends 'feedback/index.html.j2' %}`` that extends nbgrader's page instead of copying it; no ``In [n]:`` /
    ``Out[n]:`` prompts (nbconvert's ``exclude_input_prompt``, ``exclude_output_prompt``): their numbers count the
    grader's run, not the student's, and their words would be nbconvert's English in every edition; and, whatever the
    config says, what a student wrote or printed is sanitised (:func:`coursekit.plugins.safe_html.sanitised`).
    Outside ``generate_feedback``, pass it GenerateFeedback's config (``GenerateFeedback(...).config``),
    as tests/unit/test_plugins_feedback_page.py does.
    """

    def __init__(self, config=None, **kwargs):
        config = copy.deepcopy(config) if config is not None else Config()  # the converter's own stays as it is
        nbgraders = list(config.HTMLExporter.get("extra_template_basedirs", []))
        ours = config[type(self).__name__]
        ours.setdefault("template_name", TEMPLATE)
        ours.setdefault("extra_template_basedirs", [str(TEMPLATES), *nbgraders])
        ours.setdefault("extra_template_paths", [*config.HTMLExporter.get("extra_template_paths", []), *nbgraders])
        ours.setdefault("exclude_input_prompt", True)
        ours.setdefault("exclude_output_prompt", True)
        config.CSSHTMLHeaderPreprocessor.setdefault("style", CodeColours)  # code at WCAG AA contrast
        super().__init__(config=sanitised(config), **kwargs)

    def from_notebook_node(self, nb, resources=None, **kw):
        """HTMLExporter's page without its BeautifulSoup pass, which costs about half a page's time.

        nbconvert renders, then parses the whole page (≈ 0.5 MB here) again only to give images without
        one an ``alt`` and Lab-template cells a ``tabindex`` (:func:`coursekit.upstream.nbconvert.render_without_soup`
        skips it). The course's page is nbgrader's classic template, with no Lab cells, so only the ``alt`` is left
        to add, and a pattern does it; and the page's language on ``<html>``, which nbgrader's template leaves out
        (screen readers read a page in the language it declares).
        """
        resources = {**(resources or {}), PRACTICE: practice_outcomes(nb)}
        page, resources = render_without_soup(self, nb, resources, **kw)
        lang = page_language(nb)
        page = page.replace("<html>", f'<html lang="{lang}">', 1)
        alt = WORDS.say(lang, "feedback.image_alt")
        return _IMG_WITHOUT_ALT.sub(f'<img alt="{alt}"', page), resources


# what the template writes on the page's container: read back by release_feedback (a page of nbgrader's has none),
# which tells the student's Lab the score and pending answers their page shows (coursekit/service/student_status.py)
_PAGE_TALLY = re.compile(r'data-pending="(\d+)" data-pending-points="([0-9.]+)"')


def page_tally(page: str) -> Tally | None:
    """The pending answers a feedback page shows (``None``: not a page of the course's template)."""
    found = _PAGE_TALLY.search(page)
    return Tally(int(found.group(1)), float(found.group(2))) if found else None


_PAGE_SCORE = re.compile(r'data-score="(-?[0-9.]+)" data-max-score="([0-9.]+)"')


def page_score(page: str) -> tuple | None:
    """(score, max score) as a feedback page shows them (``None``: not a page of the course's template)."""
    found = _PAGE_SCORE.search(page)
    return (float(found.group(1)), float(found.group(2))) if found else None

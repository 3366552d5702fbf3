"""The feedback page a student reads: nbgrader's, in the chapter's words, with pending answers as pending.

``generate_feedback`` (the instructor's, the formgrader's button, any automatic path) exports
with :class:`CourseFeedbackExporter` (``GenerateFeedback.exporter_class``), which renders the
template ``templates/course_feedback`` — nbgrader's ``feedback`` template extended, not copied:
each graded cell is named as the assignment names it (:func:`coursekit.cell_names.names_in`), a written
answer nobody has marked shows as pending (待批改, "awaiting marking") instead of ``0.0 / 1.0``, and
the total says how many points are still pending. Every word of the page is in the notebook's
language (:func:`coursekit.language.of_notebook`; :data:`WORDS`), as everything else its student
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
from ..due import utc_text, zone_text
from ..language import of_notebook
from ..upstream.nbconvert import render_without_soup
from ..upstream.nbgrader import show_score
from ..cell_names import names_in, title_of
from ..grades import PendingAnswer, grade_of, is_pending
from .pending import PENDING, Tally, class_tallies, student_line, total_line
from .safe_html import sanitised

__all__ = ["CourseFeedbackExporter", "GetGradesForFeedback", "TEMPLATE", "TEMPLATES", "WORDS", "page_language",
           "page_score", "page_tally"]

TEMPLATES = pathlib.Path(__file__).with_name("templates")
TEMPLATE = "course_feedback"
# Every word of the page, by the notebook's language: the same keys, the same placeholders. "image_alt" describes
# a figure for screen readers where the notebook gives none (nbconvert writes one in English); "no_response" is
# nbgrader's automatic comment on an answer left as released ("No response.").
WORDS = {
    "zh": {"title": "{title} · 反馈", "score": "目前得分 <b>{score} / {max_score}</b> 分",
           "still_pending": "；其中 {answers} 道书面题（{points} 分）还 {pending}，老师批改后这里会更新",
           "end": "。", "points": "{score} / {points} 分", "pending_points": "（{points} 分）",
           "comment_link": "评语", "late": "迟交扣分：-{points} 分", "test_cell": "评分单元格 · {name}",
           "due": "截止时间 {due}", "extension": "你的延期：到 {until}", "submitted": "提交于 {at}",
           "late_by": "迟交 {days} 天 {hours} 小时", "separator": "；",
           "answer": "你的回答 · {name}", "task": "任务 · {name}", "code": "你的代码", "top": "（回到顶部）",
           "comment": "评语：", "colon": "：", "pending": PENDING, "no_response": "未作答：这里还是发下来时的样子。",
           "image_alt": "本单元格输出的图"},
    "en": {"title": "{title} · feedback", "score": "Your score so far: <b>{score} / {max_score}</b> points",
           "still_pending": "; {answers} written {answer_s} ({points} {point_s}) still {pending}: this page will "
                            "show {their} score once your instructor has marked {them}",
           "end": ".", "points": "{score} / {points} points", "pending_points": "({points} {point_s})",
           "comment_link": "comment", "late": "Late penalty: -{points} points", "test_cell": "Test cell · {name}",
           "due": "Due {due}", "extension": "your extension: until {until}", "submitted": "submitted {at}",
           "late_by": "{days} d {hours} h late", "separator": "; ",
           "answer": "Your answer · {name}", "task": "Task · {name}", "code": "Your code", "top": "(back to top)",
           "comment": "Comment: ", "colon": ": ", "pending": "awaiting marking",
           "no_response": "Not answered: this is still the text you were given.",
           "image_alt": "a figure this cell drew"},
}
_NBGRADER_COMMENTS = {"No response.": "no_response"}  # nbgrader's own comments, as WORDS keys
_IMG_WITHOUT_ALT = re.compile(r"<img(?![^>]*\salt=)(?=[\s/>])")  # escaped code never holds a literal "<img"


def page_language(nb) -> str:
    """The language of a feedback page: its notebook's (:func:`coursekit.language.of_notebook`)."""
    return of_notebook(nb)


def _still_pending(lang: str, tally: Tally) -> str:
    """The page's clause on pending answers (English counts in singular or plural)."""
    one_answer, one_point = tally.answers == 1, f"{tally.points:g}" == "1"
    pending = f'<span class="course-pending">{WORDS[lang]["pending"]}</span>'
    return WORDS[lang]["still_pending"].format(
        answers=tally.answers, points=f"{tally.points:g}", pending=pending,
        answer_s="answer" if one_answer else "answers", point_s="point" if one_point else "points",
        their="its" if one_answer else "their",
        them="it" if one_answer else "them")


def _time(when, timezone: str) -> str:
    """A time on the page: the course's zone, its offset said, and the instant for a reader that shows it in the
    student's own zone (the students' Lab extension does: labextension/src/pages.ts)."""
    return f'<time datetime="{utc_text(when)}" data-course-time>{html.escape(zone_text(when, timezone))}</time>'


def _dates(grade, lang: str, timezone: str) -> str:
    """The page's line of dates: the due date, the student's own extension, when the submission arrived and how
    late; "" when the work has no due date."""
    if grade is None or grade.due is None:
        return ""
    words = WORDS[lang]
    parts = [words["due"].format(due=_time(grade.due, timezone))]
    if grade.extension is not None:
        parts.append(words["extension"].format(until=_time(grade.extension.until, timezone)))
    if grade.timestamp is not None:
        parts.append(words["submitted"].format(at=_time(grade.timestamp, timezone)))
    if grade.seconds_late > 0:
        days, rest = divmod(int(grade.seconds_late), 86400)
        parts.append(words["late_by"].format(days=days, hours=-(-rest // 3600)))
    return words["separator"].join(parts)


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

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        if not self._told_class:
            self._told_class = True
            with Gradebook(info["db_url"]) as gradebook:
                self.log.warning(total_line(info["assignment"], class_tallies(gradebook, info["assignment"])))
        self._lang = page_language(nb)
        self._names, self._pending = names_in(nb, info["assignment"], self.config, self._lang), []
        nb, resources = super().preprocess(nb, resources)
        with Gradebook(info["db_url"]) as gradebook:
            grade = grade_of(gradebook, info["assignment"], info["student"], self.config)
        if grade is not None:  # the one grade (the late penalty, never below 0), this notebook's part of it
            resources["nbgrader"]["score"] = grade.notebook_score(info["notebook"])
            resources["nbgrader"]["late_penalty"] = grade.notebooks.get(info["notebook"], (0.0, 0.0))[1]
        tally = Tally.of(self._pending)
        resources["course_feedback"] = {"pending": tally.answers, "pending_points": tally.points,
                                        "lang": self._lang, "words": WORDS[self._lang],
                                        "title": title_of(nb) or info["notebook"],
                                        "still_pending": _still_pending(self._lang, tally),
                                        "dates": _dates(grade, self._lang, CourseKit(config=self.config).timezone)}
        if tally.answers:
            self.log.warning(student_line(info["student"], info["assignment"], tally))
        return nb, resources

    def _get_score(self, cell, resources):
        meta = cell.metadata.nbgrader
        grade = self.gradebook.find_grade(meta["grade_id"], self.notebook_id, self.assignment_id, self.student_id)
        show_score(cell, grade)
        meta["name"] = self._names.get(meta["grade_id"], meta["grade_id"])
        meta["pending"] = is_pending(utils.is_solution(cell) or utils.is_task(cell), grade.manual_score,
                                     grade.auto_score)
        if meta["pending"]:
            self._pending.append(PendingAnswer(self.notebook_id, meta["grade_id"], float(grade.max_score)))

    def _get_comment(self, cell, resources):
        super()._get_comment(cell, resources)
        comment = cell.metadata.nbgrader.get("comment")
        ours = _NBGRADER_COMMENTS.get(comment)
        cell.metadata.nbgrader["comment"] = WORDS[self._lang][ours] if ours else comment


class CourseFeedbackExporter(HTMLExporter):
    """``generate_feedback``'s exporter: the page rendered with the course's template.

    ``GenerateFeedback`` configures ``HTMLExporter`` with nbgrader's template and its folder (the
    formgrader's button even forces ``template_name = 'feedback'``). This class reads its own config
    section first, so it adds there what it needs unless the config names it: the course's template,
    the course's folder in front of nbgrader's, and nbgrader's folder as a search path too, for the
    ``{% extends 'feedback/index.html.j2' %}`` that extends nbgrader's page instead of copying it; and, whatever the
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
        super().__init__(config=sanitised(config), **kwargs)

    def from_notebook_node(self, nb, resources=None, **kw):
        """HTMLExporter's page without its BeautifulSoup pass, which costs about half a page's time.

        nbconvert renders, then parses the whole page (≈ 0.5 MB here) again only to give images without
        one an ``alt`` and Lab-template cells a ``tabindex`` (:func:`coursekit.upstream.nbconvert.render_without_soup`
        skips it). The course's page is nbgrader's classic template, with no Lab cells, so only the ``alt`` is left
        to add, and a pattern does it.
        """
        page, resources = render_without_soup(self, nb, resources, **kw)
        return _IMG_WITHOUT_ALT.sub(f'<img alt="{WORDS[page_language(nb)]["image_alt"]}"', page), resources


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

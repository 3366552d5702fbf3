"""``release_feedback`` that tells each student's Lab, and the instructor what the pages still show as pending.

nbgrader's release copies every feedback page to the exchange without a word about its content.
:class:`ReleaseFeedbackTellingPending` (``ExchangeFactory.release_feedback``) releases exactly as
nbgrader does, then

* publishes, per student, that their submission's feedback is out, with the score and the pending
  answers the page shows (:mod:`coursekit.service.student_status`): their Jupyter server sees it and
  their Lab says so. The grading service releases through this class too, so its release and the
  instructor's after marking reach the student alike;
* publishes until when the assignment's regrade requests are open (:func:`coursekit.regrades.publish_deadlines`);
* reads each released page's pending answers (written there by the course's template,
  :func:`.feedback_page.page_tally`) and logs them per student and in total. A page that shows more
  pending answers than the gradebook still holds was generated before the marking: it is named, with
  the command that brings it up to date. Nothing is held back.
"""
from nbgrader.api import Gradebook
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

from ..assignments import CourseKit
from ..language import WORDS
from ..regrades import publish_deadlines
from ..service import student_status
from ..service.inbox import SECRET_FILE
from ..service.notice import is_notice
from ..upstream.nbgrader import released_pages
from .feedback_page import page_score, page_tally
from .pending import RELEASE, Tally, class_tallies, student_line, total_line

__all__ = ["ReleaseFeedbackTellingPending", "released_pages", "released_status"]


def released_status(assignment: str, timestamp: str, pages: list) -> student_status.FeedbackStatus:
    """What a student's released ``pages`` (HTML) show, summed: the score, the pending answers, or "not graded"."""
    if any(is_notice(page) for page in pages):
        return student_status.released(assignment, timestamp, graded=False)
    scores, tallies = [page_score(page) for page in pages], [page_tally(page) for page in pages]
    if None in scores or None in tallies:  # a page not of the course's template: no score to tell
        return student_status.released(assignment, timestamp)
    return student_status.released(assignment, timestamp, score=sum(s for s, _ in scores),
                                   max_score=sum(m for _, m in scores), pending=sum(t.answers for t in tallies))


class ReleaseFeedbackTellingPending(ExchangeReleaseFeedback):
    """nbgrader's release of feedback, then one line per student with pending answers and one in total."""

    def copy_files(self):
        super().copy_files()
        lang = CourseKit(config=self.config).language  # the instructor's
        try:
            self._tell_students()
        except Exception:  # released already: the student's Fetch Feedback finds it, their Lab only says nothing
            self.log.exception(WORDS.say(lang, "release.not_told"))
        try:
            self._tell_pending(lang)
        except Exception:  # the pages are released already: a failed count must not look like a failed release
            self.log.exception(WORDS.say(lang, "release.not_counted"))
        try:  # the feedback is out: the students' servers learn until when they may ask for a regrade of it
            publish_deadlines(self.root, self.coursedir.course_id, self.config, [self.coursedir.assignment_id])
        except OSError:
            self.log.exception(WORDS.say(lang, "release.deadlines_not_published"))

    def _tell_students(self):
        """One ``released`` status per student, beside the pages nbgrader just copied to the exchange."""
        for student, pages in released_pages(self.coursedir, self.src_path).items():
            folder = pages[0].parent  # feedback/<student>/<assignment>/: its timestamp and the submission's secret
            secret = (folder / SECRET_FILE).read_text(encoding="utf-8")
            timestamp = (folder / "timestamp.txt").read_text(encoding="utf-8").strip()
            status = released_status(self.coursedir.assignment_id, timestamp, [p.read_text(encoding="utf-8")
                                                                               for p in pages])
            student_status.publish(self.root, self.coursedir.course_id, secret, status)

    def _tell_pending(self, lang: str):
        """The pending answers the released pages show, per student and in all, in ``lang``; good news as
        information, anything pending as a warning."""
        assignment = self.coursedir.assignment_id
        shown = {}
        for student, pages in released_pages(self.coursedir, self.src_path).items():
            tallies = [page_tally(page.read_text(encoding="utf-8")) for page in pages]
            shown[student] = sum((t for t in tallies if t is not None), Tally())
        with Gradebook(self.coursedir.db_url) as gradebook:
            in_gradebook = class_tallies(gradebook, assignment)
        for student, tally in shown.items():
            if tally.answers:
                self.log.warning(student_line(student, assignment, tally, lang))
            left = in_gradebook.get(student, Tally())
            if tally.answers > left.answers:
                self.log.warning(WORDS.say(lang, "pending.stale_page", student=student, assignment=assignment,
                                           shown=tally.answers, left=left.answers))
        line, news = total_line(assignment, shown, lang, scope=RELEASE)
        (self.log.warning if news else self.log.info)(line)


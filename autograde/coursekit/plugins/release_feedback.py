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

from ..regrades import publish_deadlines
from ..service import student_status
from ..service.inbox import SECRET_FILE
from ..service.notice import is_notice
from ..upstream.nbgrader import released_pages
from .feedback_page import page_score, page_tally
from .pending import PENDING, Tally, class_tallies, student_line, total_line

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
        try:
            self._tell_students()
        except Exception:  # released already: the student's Fetch Feedback finds it, their Lab only says nothing
            self.log.exception("没能告诉学生的 JupyterLab 反馈已发布（反馈已照常发布，学生点 Fetch Feedback 即可取到）")
        try:
            self._tell_pending()
        except Exception:  # the pages are released already: a failed count must not look like a failed release
            self.log.exception("没能统计已发布反馈里待批改的书面题（反馈已照常发布）")
        try:  # the feedback is out: the students' servers learn until when they may ask for a regrade of it
            publish_deadlines(self.root, self.coursedir.course_id, self.config, [self.coursedir.assignment_id])
        except OSError:
            self.log.exception("没能在交换目录里公布复查申请的截止时间（反馈已照常发布；打开批改页时会再公布）")

    def _tell_students(self):
        """One ``released`` status per student, beside the pages nbgrader just copied to the exchange."""
        for student, pages in released_pages(self.coursedir, self.src_path).items():
            folder = pages[0].parent  # feedback/<student>/<assignment>/: its timestamp and the submission's secret
            secret = (folder / SECRET_FILE).read_text(encoding="utf-8")
            timestamp = (folder / "timestamp.txt").read_text(encoding="utf-8").strip()
            status = released_status(self.coursedir.assignment_id, timestamp, [p.read_text(encoding="utf-8")
                                                                               for p in pages])
            student_status.publish(self.root, self.coursedir.course_id, secret, status)

    def _tell_pending(self):
        assignment = self.coursedir.assignment_id
        shown = {}
        for student, pages in released_pages(self.coursedir, self.src_path).items():
            tallies = [page_tally(page.read_text(encoding="utf-8")) for page in pages]
            shown[student] = sum((t for t in tallies if t is not None), Tally())
        with Gradebook(self.coursedir.db_url) as gradebook:
            in_gradebook = class_tallies(gradebook, assignment)
        for student, tally in shown.items():
            if tally.answers:
                self.log.warning(student_line(student, assignment, tally))
            left = in_gradebook.get(student, Tally())
            if tally.answers > left.answers:
                self.log.warning(
                    f"{student} 的反馈是在批改之前生成的：页面上 {tally.answers} 道{PENDING}，成绩册里只剩 "
                    f"{left.answers} 道。运行 nbgrader generate_feedback {assignment} --student {student} --force "
                    f"再发布一次，学生才能看到新的分数。")
        self.log.warning(total_line(assignment, shown, scope="本次发布的反馈里"))


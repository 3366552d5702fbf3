"""The marking page as a Jupyter server extension: its settings, and loading it into a server.

Turned on per server, for instructors only, by ``ServerApp.jpserver_extensions`` (see
:mod:`.enable`: ``make lab`` and the hub write it); a student's server never loads it.
Settings (``jupyter_server_config.json`` or ``--CourseMarking.course=…``):

* ``CourseMarking.course`` — the course folder (default: nbgrader's ``CourseDirectory.root`` as the
  formgrader reads it, else :func:`coursekit.paths.find_course`);
* ``CourseMarking.db_url`` — the gradebook (default: :func:`coursekit.gradebook.resolve_gradebook`).

At start-up a background thread reads every answer once (the notebooks' parse is the slow part),
so the first open of the page is as quick as the next ones.
"""
import threading

from traitlets import Unicode
from traitlets.config import Configurable

from .board import question_board
from .course import MarkingCourse
from .handlers import handlers

__all__ = ["CourseMarking", "load"]


class CourseMarking(Configurable):
    course = Unicode("", help="The course folder (holds nbgrader_config.py); empty: as nbgrader finds it").tag(
        config=True)
    db_url = Unicode("", help="The gradebook's URL; empty: the course's one rule (coursekit.gradebook)").tag(
        config=True)


def nbgrader_root(log) -> str | None:
    """``CourseDirectory.root`` as nbgrader's apps (and the formgrader) read their config, if set."""
    try:
        from nbgrader.apps.baseapp import NbGrader

        app = NbGrader()
        app.load_config_file()
        return app.config.get("CourseDirectory", {}).get("root") or None
    except Exception as error:  # a broken nbgrader config must not take the server down
        log.warning("marking page: could not read nbgrader's config (%s); using the default course", error)
        return None


def _warm(course: MarkingCourse, log) -> None:
    try:
        if not course.gradebook_exists():
            return
        for assignment in course.assignments():
            for question in course.questions(assignment):
                question_board(course, assignment, question.grade_id)
        log.info("marking page: answers of %s read", course.folder)
    except Exception as error:  # the page reports the same problem, with its cause, when opened
        log.warning("marking page: could not prepare the answers of %s: %s", course.folder, error)


def load(serverapp) -> MarkingCourse:
    settings = CourseMarking(parent=serverapp)
    course = MarkingCourse(settings.course or nbgrader_root(serverapp.log), settings.db_url or None)
    web_app = serverapp.web_app
    web_app.settings["coursekit_marking"] = course
    web_app.add_handlers(".*$", handlers(web_app.settings["base_url"]))
    serverapp.log.info("marking page: %smarking/ for the course %s, gradebook %s", web_app.settings["base_url"],
                       course.folder, course.url.split("?")[0])
    threading.Thread(target=_warm, args=(course, serverapp.log), name="marking-warm", daemon=True).start()
    return course

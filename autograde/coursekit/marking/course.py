"""The course the marking page works on: its folder, gradebook, written questions, rubrics and answers.

Which course: the server's ``CourseMarking.course`` setting, else nbgrader's own
``CourseDirectory.root`` as the formgrader reads it, else :func:`coursekit.paths.find_course`.
Which gradebook: :func:`coursekit.gradebook.resolve_gradebook` — the course's one rule — opened
with :func:`coursekit.gradebook.open_gradebook`; every request gets its own session on that engine.
"""
import pathlib
import threading
import time

from nbgrader.api import Assignment, GradeCell, Notebook, SolutionCell
from sqlalchemy.orm import Session, aliased

from ..editions import cell_names_in
from ..gradebook import open_gradebook, resolve_gradebook, sqlite_file
from ..paths import find_course
from ..settings import course_settings
from .answers import AnswerReader, Question, master_questions
from .judging import Ordering
from .rubric import load_rubrics, rubric_file

__all__ = ["FRESH_SECONDS", "MarkingCourse"]

# The gradebook's assignments and cells change only with generate_assignment/autograde: read again after this long.
FRESH_SECONDS = 10.0


class MarkingCourse:
    """One course as the marking page sees it (shared by every request of one server)."""

    def __init__(self, course=None, db_url: str | None = None):
        self.folder = find_course(course)
        settings = course_settings(self.folder)
        self.url = resolve_gradebook(self.folder, db_url)
        self.course_id, self.stub, self.language = settings.course_id, settings.text_stub, settings.language
        self.reader = AnswerReader(self.folder)
        self._engine, self._lock, self._cache = None, threading.Lock(), {}
        self.ordering = Ordering()  # one page's judgements in the order it made them

    @property
    def engine(self):
        with self._lock:
            if self._engine is None:
                self._engine = open_gradebook(self.url, self.course_id).engine
        return self._engine

    def gradebook_exists(self) -> bool:
        """False for a sqlite gradebook whose file is not there yet (opening it would create it)."""
        path = sqlite_file(self.url)
        return path is None or path.exists()

    def assignments(self) -> list:
        """Assignments of the gradebook that have a written (markdown, manually graded) answer."""
        return self._cached(("assignments",), (), self._assignments)

    def _cached(self, key, version, compute, forever=False):
        """``compute()``, kept while ``version`` is unchanged and (unless ``forever``) for :data:`FRESH_SECONDS`."""
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(key)
        if hit and hit[0] == version and (forever or now - hit[1] < FRESH_SECONDS):
            return hit[2]
        value = compute()
        with self._lock:
            self._cache[key] = (version, now, value)
        return value

    def _assignments(self) -> list:
        with Session(self.engine) as db:
            rows = (db.query(Assignment.name).join(Notebook, Notebook.assignment_id == Assignment.id)
                    .join(GradeCell, GradeCell.notebook_id == Notebook.id)
                    .filter(GradeCell.cell_type == "markdown").distinct())
            return sorted(name for (name,) in rows)

    def questions(self, assignment: str) -> list:
        """The written questions of ``assignment``: master order and text, the gradebook's points."""
        masters = sorted((self.folder / "source" / assignment).glob("*.ipynb"))
        version = tuple((p.name, p.stat().st_mtime_ns) for p in masters)
        return self._cached(("questions", assignment), version, lambda: self._questions(assignment))

    def _questions(self, assignment: str) -> list:
        solution = aliased(SolutionCell, flat=True)  # grade and solution cells share nbgrader's base_cell table
        with Session(self.engine) as db:
            rows = (db.query(GradeCell.name, Notebook.name, GradeCell.max_score)
                    .join(Notebook, GradeCell.notebook_id == Notebook.id)
                    .join(Assignment, Notebook.assignment_id == Assignment.id)
                    .join(solution, (solution.notebook_id == Notebook.id) & (solution.name == GradeCell.name))
                    .filter(Assignment.name == assignment, GradeCell.cell_type == "markdown").all())
        graded = {name: (notebook, float(points)) for name, notebook, points in rows}
        from_master = []
        for notebook in sorted({nb for nb, _ in graded.values()}):
            master = self.folder / "source" / assignment / f"{notebook}.ipynb"
            if master.is_file():
                from_master += [q for q in master_questions(master) if q.grade_id in graded]
        known = {q.grade_id for q in from_master}
        rest = [Question(name, nb, points, "", "") for name, (nb, points) in sorted(graded.items()) if name not in known]
        return [Question(q.grade_id, q.notebook, graded[q.grade_id][1], q.reference, q.prompt)
                for q in from_master] + rest

    def names(self, assignment: str) -> dict:
        """``{grade_id: name}`` of the assignment's graded cells, in the course's language (实验题 1, Lab question 1)."""
        return self._cached(("names", assignment), (), lambda: cell_names_in(self.folder, assignment, self.language))

    def rubrics(self, assignment: str, questions: list):
        """The rubrics (:func:`.rubric.load_rubrics`), read again as soon as the file changes."""
        path = rubric_file(self.folder, assignment)
        version = (path.stat().st_mtime_ns, path.stat().st_size) if path.is_file() else None
        names = tuple(q.grade_id for q in questions)
        return self._cached(("rubrics", assignment, names), version,
                            lambda: load_rubrics(self.folder, assignment, names), forever=True)

    def answers(self, assignment: str, question: Question, students) -> dict:
        """{student: answer text, or None when their notebook is missing} for one question."""
        result = {}
        for student in students:
            texts = self.reader.answers(student, assignment, question.notebook)
            result[student] = None if texts is None else texts.get(question.grade_id, "")
        return result

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()

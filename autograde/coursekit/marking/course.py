"""The course the marking page works on: its folder, gradebook, manually graded questions, rubrics and answers.

Which course: the server's ``CourseMarking.course`` setting, else nbgrader's own
``CourseDirectory.root`` as the formgrader reads it, else :func:`coursekit.paths.find_course`.
Which gradebook: :func:`coursekit.gradebook.resolve_gradebook` — the course's one rule — opened
with :func:`coursekit.gradebook.open_gradebook`; every request gets its own session on that engine.
"""
import pathlib
import threading
import time
from dataclasses import replace

import nbformat
from nbgrader.api import Assignment, GradeCell, Notebook, SolutionCell, Student, TaskCell
from sqlalchemy.orm import Session, aliased

from ..assignments import assignment_of
from ..canary import release_records
from ..gradebook import open_gradebook, resolve_gradebook, sqlite_file
from ..record import may_be_hard_coded
from ..paths import find_course
from ..people import People, people_of
from ..cell_names import assignment_title, names_in_language
from ..stubs import stubs_of
from ..settings import course_config, course_settings
from .answers import AnswerReader, Question, master_questions
from .judging import Ordering
from .neighbours import Space
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
        self.course_id, self.language = settings.course_id, settings.language
        self.reader = AnswerReader(self.folder)
        self._engine, self._lock, self._cache = None, threading.Lock(), {}
        self.ordering = Ordering()  # one page's judgements in the order it made them

    def stubs(self, assignment: str) -> dict:
        """What a release of ``assignment`` leaves where an answer was, by kind ({"markdown": …, "code": …}): its
        "not answered yet" where the released notebook does not tell (asked of its source, which says its language)."""
        def ask():
            sources = sorted((self.folder / "source" / assignment).glob("*.ipynb"))
            return stubs_of(assignment, course_config(self.folder),
                            nbformat.read(sources[0], as_version=4) if sources else None)
        return self._cached(("stubs", assignment), (), ask)

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
        """Assignments of the gradebook with a manually graded cell (a written answer, manually graded code, a task)."""
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
        return sorted({name for name, _ in self._manual_cells()})

    def _manual_cells(self, assignment: str | None = None) -> list:
        """(assignment, notebook, grade_id, points) of every manually graded cell: a grade cell with a solution
        cell of the same name (nbgrader's manually graded answer, markdown or code), or a task cell."""
        solution = aliased(SolutionCell, flat=True)  # grade and solution cells share nbgrader's base_cell table
        with Session(self.engine) as db:
            answers = (db.query(Assignment.name, Notebook.name, GradeCell.name, GradeCell.max_score)
                       .join(Notebook, GradeCell.notebook_id == Notebook.id)
                       .join(Assignment, Notebook.assignment_id == Assignment.id)
                       .join(solution, (solution.notebook_id == Notebook.id) & (solution.name == GradeCell.name)))
            tasks = (db.query(Assignment.name, Notebook.name, TaskCell.name, TaskCell.max_score)
                     .join(Notebook, TaskCell.notebook_id == Notebook.id)
                     .join(Assignment, Notebook.assignment_id == Assignment.id))
            if assignment is not None:
                answers, tasks = answers.filter(Assignment.name == assignment), tasks.filter(Assignment.name == assignment)
            return [(a, (nb, name, points)) for a, nb, name, points in answers.all() + tasks.all()]

    def questions(self, assignment: str) -> list:
        """The manually graded questions of ``assignment``: master order and text, the gradebook's points."""
        masters = sorted((self.folder / "source" / assignment).glob("*.ipynb"))
        releases = sorted((self.folder / "release" / assignment).glob("*.ipynb"))
        version = tuple((p.name, p.stat().st_mtime_ns) for p in masters + releases)
        return self._cached(("questions", assignment), version, lambda: self._questions(assignment))

    def _questions(self, assignment: str) -> list:
        graded = {name: (notebook, float(points)) for _, (notebook, name, points) in self._manual_cells(assignment)}
        from_master = []
        for notebook in sorted({nb for nb, _ in graded.values()}):
            master = self.folder / "source" / assignment / f"{notebook}.ipynb"
            release = self.folder / "release" / assignment / f"{notebook}.ipynb"
            if master.is_file():
                from_master += [q for q in master_questions(master, release, self.stubs(assignment)) if q.grade_id in graded]
        known = {q.grade_id for q in from_master}
        rest = [Question(name, nb, points, "", "") for name, (nb, points) in sorted(graded.items()) if name not in known]
        return [replace(q, max_score=graded[q.grade_id][1]) for q in from_master] + rest

    def names(self, assignment: str, lang: str | None = None) -> dict:
        """``{grade_id: name}`` of the assignment's graded cells, in ``lang`` (default: the course's language; 实验题 1,
        Lab question 1)."""
        lang = lang or self.language
        return self._cached(("names", assignment, lang), (), lambda: names_in_language(
            self.folder, assignment, lang, course_config(self.folder)))

    def title(self, assignment: str, lang: str | None = None) -> str:
        """What the page calls ``assignment``: its notebook's title in ``lang`` (default: the course's language), never
        its id."""
        lang = lang or self.language
        return self._cached(("title", assignment, lang), (), lambda: assignment_title(
            self.folder, assignment, lang, course_config(self.folder)))

    def edition_language(self, assignment: str) -> str:
        """The language of ``assignment``'s edition (its students', :attr:`coursekit.assignments.Assignment.language`):
        what a marker's comment is written in."""
        return self._cached(("language", assignment), (), lambda: assignment_of(
            assignment, course_config(self.folder)).language)

    def people(self) -> People:
        """The students' names, as the gradebook holds them (an LMS's roster writes them there)."""
        def read():
            with Session(self.engine) as db:
                return people_of(db.query(Student).all())
        return self._cached(("people",), (), read)

    def rubrics(self, assignment: str, questions: list):
        """The rubrics (:func:`.rubric.load_rubrics`), read again as soon as the file changes."""
        path = rubric_file(self.folder, assignment)
        version = (path.stat().st_mtime_ns, path.stat().st_size) if path.is_file() else None
        names = tuple(q.grade_id for q in questions)
        return self._cached(("rubrics", assignment, names), version,
                            lambda: load_rubrics(self.folder, assignment, names), forever=True)

    def space(self, assignment: str, grade_id: str, texts: dict) -> Space:
        """The similarity space of one question's answers (:class:`.neighbours.Space`), kept while they are the same
        answers: the similarities it has worked out are not worked out again at the next board."""
        version = hash(tuple(sorted(texts.items())))
        return self._cached(("space", assignment, grade_id), version, lambda: Space(texts), forever=True)

    def answers(self, assignment: str, question: Question, students) -> dict:
        """{student: answer text, or None when their notebook is missing} for one question."""
        result = {}
        for student in students:
            texts = self.reader.answers(student, assignment, question.notebook)
            result[student] = None if texts is None else texts.get(question.grade_id, "")
        return result

    def hard_coded(self, assignment: str, notebook: str, students) -> dict:
        """{student: the cells of theirs that may be hard-coded (:func:`coursekit.record.may_be_hard_coded`, as the
        class report says)}, for the students who have any."""
        release = release_records(self.folder, assignment)
        unnamed = assignment_of(assignment, course_config(self.folder)).get("unnamed")
        found = {s: may_be_hard_coded(self.reader.records(s, assignment, notebook), release, unnamed) for s in students}
        return {student: flags for student, flags in found.items() if flags}

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()

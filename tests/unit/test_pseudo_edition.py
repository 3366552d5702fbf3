"""Is a pseudo-locale edition released, graded and reported end to end, saying nothing the catalogues did not say?

The pseudo-locale's edition (``qps``: the English's, every word bracketed and accented) is made as ``make release``
makes the English one: its source from the master through the chapter's catalogue (scripts/release_notebook.py),
then nbgrader's ``GenerateAssignment`` with the course's config, in this process (the course's stubs, its private
metadata cleared, the gradebook's cells). Two mistakes of the table are typed into its release and autograded by
nbgrader's ``Autograde`` with the course's config, the grading kernel folded into this process (:class:`GradedHere`:
each test cell given the outputs the grading kernel gives it, the course's grader's verdict on the notebook's own
functions, tests/support/local_grading.py); nbgrader's ``generate_feedback`` writes their pages with the course's
exporter; make report's report is built and drawn from that gradebook in the pseudo-locale. The walk
(tests/support/pseudo.py) finds no word a person reads outside a message: the kernel and its sandbox are
tests/integration's (the English edition: test_course_english.py).
"""
import builtins
import hashlib
import io
import pathlib

import nbformat
import pytest
import traitlets
from nbconvert.preprocessors import Preprocessor
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import Execute

import grader
from attnkit.gradecell import TEST_CELLS
from attnkit.lab import ROLE
from coursekit.gradebook import alembic_on_path
from coursekit.kernel.grader_process import Verdict
from coursekit.language import PSEUDO, WORDS, of_notebook
from coursekit.paths import ASSIGNMENT, MASTER, copy_course, source_notebook
from coursekit.sandbox.grader_host import StudentError
from coursekit.settings import course_config
from support.course_tools import gradebook_scores, index_of, visible_text
from support.editions import release_script
from support.local_grading import InProcess
from support.mistakes import BY_NAME, ROLES, defined, mistake_notebook
from support.pseudo import Known, left_over, stray_in_html

EDITION = f"{ASSIGNMENT}_{PSEUDO}"
STUDENTS = ("bug_no_scale", "bug_delegate_softmax")  # a diagnosis and lost points; a delegation's reason
# what the lab's verify prints in every edition, as the C lab's transcript does (its labels), and nbgrader's names
LAB_LABELS = ("TEST", "PASS", "FAIL", "verify")
# what a student's function raised is named by its type, code as the student wrote it
ERRORS = (StudentError.__name__, *(name for name in dir(builtins) if name.endswith(("Error", "Exception"))))


def _allowed(released, *names) -> Known:
    """What a page of the edition may show as it is: the code (the notebook's, named in a heading too), the students'
    ids, the assignment's, the lab's labels, an error's type."""
    code = Known.of(*(cell.source for cell in released.cells if cell.cell_type == "code"))
    return Known(code | Known.of(*names, EDITION, *LAB_LABELS, *ERRORS))


class GradedHere(Preprocessor):
    """nbgrader's ``Execute`` with the grading kernel folded into this process: each test cell's outputs are what the
    grading kernel gives it (:class:`coursekit.kernel.grader_process.Verdict`), the course's grader's verdict on the
    notebook's own three functions, in the notebook's language; no other cell runs."""

    enabled = traitlets.Bool(True)

    def preprocess(self, nb, resources):
        lang = of_notebook(nb)
        functions = defined([nb.cells[index_of(nb, grade_id)] for grade_id in ("setup_imports", *ROLES)])
        namespace = dict(zip((ROLE[stage] for stage in ("scores", "mask", "softmax")), functions))
        seed = hashlib.sha256(f"{resources['nbgrader']['student']}".encode()).hexdigest()
        for test in TEST_CELLS:
            cell = nb.cells[index_of(nb, test.grade_id)]
            verdict = grader.grade(test.grade_id, InProcess(namespace, lang=lang), lang, seed)
            cell.outputs = [nbformat.v4.output_from_msg({"header": {"msg_type": kind}, "content": content})
                            for kind, content in Verdict(cell, verdict).outputs()]
        return nb, resources


def _with_edition(course: pathlib.Path) -> None:
    """The course config declaring the pseudo-locale's edition, as it declares the English one."""
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"\nc.CourseKit.assignments[{EDITION!r}] = {{**c.CourseKit.assignments[{ASSIGNMENT!r}], "
                     f"'edition_of': {ASSIGNMENT!r}, 'language': {PSEUDO!r}}}\n")


def _api(course: pathlib.Path, config) -> NbGraderAPI:
    return NbGraderAPI(coursedir=CourseDirectory(config=config, root=str(course)), config=config)


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    """The course with the pseudo-locale's edition released, two students' submissions autograded, their feedback
    generated; (course, the released notebook)."""
    course = copy_course(tmp_path_factory.mktemp("qps") / "course")
    _with_edition(course)
    source = source_notebook(course, EDITION)
    source.parent.mkdir(parents=True)
    source.write_text(release_script().edition_source_text(nbformat.read(MASTER, as_version=4), PSEUDO),
                      encoding="utf-8")
    alembic_on_path()  # nbgrader's Gradebook asks alembic for its schema
    config = course_config(course)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(course)
        done = _api(course, config).generate_assignment(EDITION)
        assert done["success"], done["error"]
        released = nbformat.read(course / "release" / EDITION / f"{EDITION}.ipynb", as_version=4)
        for student in STUDENTS:
            folder = course / "submitted" / student / EDITION
            folder.mkdir(parents=True)
            nbformat.write(mistake_notebook(released, BY_NAME[student]), folder / f"{EDITION}.ipynb")
        config.Autograde.autograde_preprocessors = [GradedHere if step is Execute else step
                                                    for step in config.Autograde.autograde_preprocessors]
        api = _api(course, config)
        for step in (api.autograde, api.generate_feedback):
            for student in STUDENTS:
                done = step(EDITION, student)
                assert done["success"], done["error"]
    return course, released


def test_is_the_edition_released_in_the_pseudo_locale(edition):
    """The release says its language, its stubs are the pseudo-locale's, its headings are still headings?"""
    from attnkit.edition import stubs

    _, released = edition
    assert of_notebook(released) == PSEUDO
    answer = next(c for c in released.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "q_think1_scale")
    assert answer.source == stubs(PSEUDO)["text"]
    assert sum(cell.source.startswith("### ⟦") for cell in released.cells if cell.cell_type == "markdown") >= 8


@pytest.mark.parametrize("student", STUDENTS)
def test_is_each_submission_graded_as_the_table_says(edition, student):
    course, _ = edition
    scores = gradebook_scores(course, student, assignment=EDITION)
    assert tuple(scores[grade_id] for grade_id in ("test1_scores", "test2_mask", "test3_softmax",
                                                   "test4_end_to_end")) == BY_NAME[student].points


@pytest.mark.parametrize("student", STUDENTS)
def test_does_the_feedback_page_say_only_the_catalogues_words(edition, student):
    """The page generate_feedback wrote: its frame, the grader's verdicts and diagnosis, the cells' names, the
    chapter's own prose, all from a catalogue; left: the code (a code cell's source is code), the lab's labels?"""
    course, released = edition
    page = (course / "feedback" / student / EDITION / f"{EDITION}.html").read_text(encoding="utf-8")
    assert WORDS.say(PSEUDO, "feedback.no_response") in visible_text(page)
    stray = stray_in_html(page, {"input_area"}, _allowed(released, student))
    assert stray == [], " ".join(f"{where}:{word}" for where, word in sorted(set(stray)))


def test_does_the_class_report_of_the_edition_say_only_the_catalogues_words(edition, tmp_path):
    """make report's report of the edition's class in the pseudo-locale (coursekit.report.command.write_report, as
    make report writes each assignment in the course's language): index.html, each pair's page and its lines?"""
    from coursekit.report.command import write_report

    course, released = edition
    said, url = io.StringIO(), f"sqlite:///{course / 'gradebook.db'}"
    out = write_report(course, EDITION, url, tmp_path / "report", said, PSEUDO)
    pages = sorted(out.rglob("*.html"))
    data = Known(_allowed(released, *STUDENTS) | Known.of(str(out), url))
    assert pages and [(page.name, stray) for page in pages
                      if (stray := stray_in_html(page.read_text(encoding="utf-8"), {"message"}, data))] == []
    lines = said.getvalue().splitlines()
    assert len(lines) > 3 and [(line, left_over(line, data)) for line in lines if left_over(line, data)] == []

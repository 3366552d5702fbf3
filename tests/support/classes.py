"""Graded classes shared by a whole test session: generated, submitted and graded once, then only read.

Most integration tests ask the same question of different students — did this submission get
exactly its points, its reason, its feedback? — so one class answers them all. Which rows each
class holds follows tests/README.md's rule (each row at the cheapest tier that is still real):

* :func:`grade_shared_class` grades, the way an instructor does (``make grade`` with two workers,
  ``python -m coursekit.grading``, every kernel in the sandbox), the tables that only a real grading
  run proves: every attack of the red-team table (:mod:`.redteam`) and every case of :mod:`.cases`
  (ungradable notebooks, a print flood, tampering around the functions), with the
  :data:`REPRESENTATIVE` rows of the mistake table. Every mistake row's points, notes and diagnosis
  are proved in-process, in both languages (tests/unit/test_grader.py). The same course holds the
  English edition's assignment (``ch04_attention_en``), the representative mistakes typed into its
  release by the same students, which the same ``make grade`` grades after the Chinese one;
* :func:`grade_serial_class` grades the :data:`REPRESENTATIVE` rows with ONE serial
  ``nbgrader autograde``, nbgrader's own path, for the tests that compare the two.

Tests that change a course (a re-run, Ctrl-C, another flag) work on :func:`copy_graded`, never on
the shared folders. ``tests/integration/conftest.py`` builds both classes once, side by side.
"""
import concurrent.futures
import dataclasses
import hashlib
import pathlib
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

import nbformat
from nbgrader.api import Gradebook

from coursekit.seeds import course_secret

from support import redteam
from support.cases import CASES
from support.course_tools import (
    ASSIGNMENT,
    course_copy,
    gradebook_comments,
    gradebook_scores,
    isolated_env,
    released,
    run_nbgrader,
)
from support.editions import ASSIGNMENTS
from support.mistakes import MISTAKES, mistake_notebook

TIMEOUT = "6"  # seconds per cell (ATTN_TIMEOUT): the hung student costs one; correct loops need < 3 on busy cores
ABSENT = "absent"  # on the roster, never submitted
# The rows every door but make grade's proves its wiring on (serial nbgrader autograde, Validate, ATTN_SANDBOX=off,
# the English edition, the service, the hub): together they make every kind of record once. Named once, here.
REPRESENTATIVE = {
    "ok_dot": "full marks, no finding",
    "bug_no_scale": "points lost in TEST 1 and TEST 4, the diagnosis naming student_attention_scores",
    "bug_softmax_no_max": "hidden checks failed, the diagnosis naming student_softmax",
    "bug_delegate_softmax": "delegated: TEST 3 and TEST 4 score 0",
    "red_forged_record": "tampering: the kernel shows another result than the grader's",
    "limit_memory_in_softmax": "over a sandbox limit: that cell scores 0 with the reason",
    "e_infinite_loop": "timed out: that cell scores 0",
    "c_invalid_json": "not graded: the notebook scores 0 with the reason",
}
REPRESENTATIVE_MISTAKES = tuple(name for name in REPRESENTATIVE if name in {m.name for m in MISTAKES})
# graded serially too: the representative rows, every ungradable case (nbgrader's own handling of each), a replay
SERIAL = (*REPRESENTATIVE, *(case.name for case in CASES if not case.gradable and case.name not in REPRESENTATIVE),
          "red_replay_leaked_inputs", "red_returns_a_huge_view")  # and what the issue of hidden inputs asks of it
PROTECTED = ("grader", "source", "release", "nbgrader_config.py")  # what no submission may change
# the shared class's students whose feedback the tests read (everyone's costs half a second each)
FEEDBACK = (*SERIAL, "flood", "shadow_grader", "red_honest_control", "red_print_hidden_checks",
            "red_print_grader_encoded", "red_print_classmates", "red_read_instructor_home")
ENGLISH = ASSIGNMENTS["en"]  # the English edition's assignment, beside the Chinese one in the shared class
FEEDBACK_ENGLISH = REPRESENTATIVE_MISTAKES  # its students: each graded again in the English edition
ENGLISH_ONLY = "english_only"  # a student who submitted the English edition only (the correct code)


@dataclass(frozen=True)
class GradedClass:
    course: pathlib.Path
    env: dict
    run: subprocess.CompletedProcess  # the grading command
    seconds: float                    # its wall time
    expected: dict                    # {student: (test1 … test4 points)}
    reasons: dict                     # {student: what the not-graded reason contains} (ungradable only)
    protected: dict = None            # {path: sha256} of PROTECTED before grading
    english: dict = None              # {student: points} of the English edition's rows (the shared class only)

    def notebook(self, student, folder="autograded", assignment=ASSIGNMENT) -> pathlib.Path:
        return self.course / folder / student / assignment / f"{assignment}.ipynb"

    def feedback(self, student, assignment=ASSIGNMENT) -> pathlib.Path:
        return self.course / "feedback" / student / assignment / f"{assignment}.html"

    def scores(self, student, assignment=ASSIGNMENT) -> dict:
        return gradebook_scores(self.course, student, assignment=assignment)

    def comments(self, student) -> dict:
        return gradebook_comments(self.course, student)


def table_rows(names=None):
    """(name, build, points, reason, files) of the shared class (:data:`REPRESENTATIVE` mistakes, the cases, the
    red-team table), or of ``names`` (rows of the whole mistake table too)."""
    rows = [(m.name, lambda r, m=m: mistake_notebook(r, m), m.points, "", {}) for m in MISTAKES
            if m.name in (REPRESENTATIVE if names is None else names)]
    rows += [(c.name, c.build, c.points, c.reason, c.files) for c in (*CASES, *redteam.ROWS)
             if names is None or c.name in names]
    return rows


def submit(course, rows, assignment=ASSIGNMENT) -> None:
    """Each row's notebook (and files) into ``submitted/<student>/``, as ``nbgrader collect`` leaves them, typed into
    ``assignment``'s release (an edition's)."""
    release = released(course, assignment)
    for name, build, _, _, files in rows:
        folder = course / "submitted" / name / assignment
        folder.mkdir(parents=True)
        content = build(release)
        (folder / f"{assignment}.ipynb").write_text(content if isinstance(content, str) else nbformat.writes(content),
                                                    encoding="utf-8")
        for relative, text in files.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text, encoding="utf-8")


def generated_course(root: pathlib.Path) -> pathlib.Path:
    """A course copy in ``root``/course with the assignment generated (release/ and the gradebook's rows). The
    integration tier makes one per worker (the ``generated`` fixture) and copies it: :func:`copy_generated`."""
    course, env = course_copy(root), isolated_env(root / "home", ATTN_TIMEOUT=TIMEOUT)
    generated = run_nbgrader("generate_assignment", ASSIGNMENT, cwd=course, env=env)
    assert generated.returncode == 0, generated.stderr[-3000:]
    course_secret(course)  # made now, so that every copy is the same course (grading would make one per copy)
    return course


def copy_generated(generated: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """A copy of the generated course ``generated`` (:func:`generated_course`) at ``dest``, for a test to change."""
    return pathlib.Path(shutil.copytree(generated, dest, symlinks=True))


def _course(root: pathlib.Path, rows, generated):
    """The class's course: a copy of ``generated``, ``rows`` submitted, each student's time the red-team table's."""
    course = copy_generated(generated, root / "course")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"\nc.CourseKit.student_seconds = {redteam.STUDENT_SECONDS}\n")
    submit(course, rows)
    return course, isolated_env(root / "home", ATTN_TIMEOUT=TIMEOUT)


def digest(course) -> dict:
    """``{relative path: sha256}`` of every file under :data:`PROTECTED` in ``course``."""
    course, found = pathlib.Path(course), {}
    for name in PROTECTED:
        paths = [course / name] if (course / name).is_file() else sorted((course / name).rglob("*"))
        for path in paths:
            if path.is_file() and "__pycache__" not in path.parts:
                found[str(path.relative_to(course))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _graded(course, env, rows, command, feedback=None) -> GradedClass:
    """Grade with ``command``; then the feedback of ``feedback`` (default: everyone)."""
    protected = digest(course)
    start = time.perf_counter()
    run = command()
    seconds = time.perf_counter() - start
    others = [name for name, *_ in rows if feedback is not None and name not in feedback]
    exclude = [f"--CourseDirectory.student_id_exclude={','.join(others)}"] if others else []
    fed = run_nbgrader("generate_feedback", ASSIGNMENT, *exclude, cwd=course, env=env)
    assert fed.returncode == 0, fed.stderr[-3000:]
    return GradedClass(course, env, run, seconds, {name: points for name, _, points, _, _ in rows},
                       {name: reason for name, _, _, reason, _ in rows if reason}, protected)


def make_grade(course, env, *args, timeout=900, wrap=()) -> subprocess.CompletedProcess:
    """``python -m coursekit.grading`` run in ``course`` as ``make grade`` runs it (started through ``wrap``, e.g. a
    namespace of its own)."""
    return subprocess.run([*wrap, sys.executable, "-m", "coursekit.grading", "--course", str(course), *args],
                          cwd=course, env=env, capture_output=True, text=True, timeout=timeout)


def make_grade_target(course, env, timeout=900, **variables) -> subprocess.CompletedProcess:
    """The course's own ``make grade`` (its Makefile, as an instructor types it in the course folder), with
    ``variables`` such as ``WORKERS=2``: the exit status make gives (0 graded, 2 not)."""
    settings = [f"{name}={value}" for name, value in variables.items()]
    return subprocess.run(["/usr/bin/make", "--no-print-directory", "-C", str(course), "grade",
                           f"PYTHON={sys.executable}", *settings],
                          env=env, capture_output=True, text=True, timeout=timeout)


def grade_shared_class(root, generated) -> GradedClass:
    """Every row, graded by ``make grade`` with two workers; ``absent`` on the roster; everyone's feedback. The rows
    of :data:`FEEDBACK_ENGLISH` again in the English edition (its own assignment, generated here), with
    :data:`ENGLISH_ONLY`, graded by the same ``make grade``, and their feedback."""
    rows, english = table_rows(), table_rows(FEEDBACK_ENGLISH)
    english += [(ENGLISH_ONLY, *next(row for row in english if row[0] == "ok_dot")[1:])]  # English only, correct
    course, env = _course(pathlib.Path(root), rows, generated)
    generated_english = run_nbgrader("generate_assignment", ENGLISH, cwd=course, env=env)
    assert generated_english.returncode == 0, generated_english.stderr[-3000:]
    submit(course, english, ENGLISH)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.add_student(ABSENT)
    graded = _graded(course, env, rows, lambda: make_grade(course, env, "--workers", "2"), feedback=FEEDBACK)
    fed = run_nbgrader("generate_feedback", ENGLISH, cwd=course, env=env)
    assert fed.returncode == 0, fed.stderr[-3000:]
    return dataclasses.replace(graded, english={name: points for name, _, points, _, _ in english})


def grade_serial_class(root, generated) -> GradedClass:
    """The rows of :data:`SERIAL`, graded by ONE ``nbgrader autograde``; everyone's feedback.

    nbgrader's own command, one student after another in one process, where ``make grade`` runs
    workers: the gradebooks compared by tests/integration/test_grading.py are nbgrader's against
    the course's command's.
    """
    rows = table_rows(SERIAL)
    course, env = _course(pathlib.Path(root), rows, generated)
    return _graded(course, env, rows, lambda: run_nbgrader("autograde", ASSIGNMENT, cwd=course, env=env))


def grade_both(root, generated):
    """(shared, serial), graded side by side: two independent courses, copies of the generated course ``generated``."""
    root = pathlib.Path(root)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        shared = pool.submit(grade_shared_class, root / "shared", generated)
        serial = pool.submit(grade_serial_class, root / "serial", generated)
        return shared.result(), serial.result()


def copy_graded(graded: GradedClass, dest) -> GradedClass:
    """A copy of a graded class a test may change (its own folder, gradebook and home)."""
    dest = pathlib.Path(dest)
    shutil.copytree(graded.course, dest / "course", symlinks=True)
    env = isolated_env(dest / "home", ATTN_TIMEOUT=TIMEOUT)
    return GradedClass(dest / "course", env, graded.run, graded.seconds, graded.expected, graded.reasons,
                       graded.protected, graded.english)

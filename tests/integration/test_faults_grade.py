"""The fault table through the real ``make grade``: is a fault of the machine nobody's grade, said in one line, and
is the class graded exactly as without it once it is repaired?

Each row of tests/support/faults.py is made to happen on a copy of one generated course with a small class
(a correct submission and a buggy one: the mistake table's expected points are the fault-free class). Then:
exit status 2; the fault's cause in the one line; nobody given a grade, a comment or an autograded notebook
by it (a row that strikes mid-class: the students graded before it have exactly their points); after the
repair, one more ``make grade`` grades the others, nobody twice, and the gradebook is the table's, cell by cell.
The same rows through the grading service: test_faults_service.py.
"""
import contextlib
import fcntl
import os
import re

import nbformat
import pytest

from coursekit.sandbox import forkserver
from support import faults
from coursekit.grading.run import STATUS
from coursekit.settings import course_settings
from support.classes import copy_generated, make_grade
from support.course_tools import ASSIGNMENT, POINTS, gradebook_comments, gradebook_scores, isolated_env, released
from support.mistakes import MISTAKES, mistake_notebook
from support import grade_output

CLASS = ("ok_dot", "bug_no_scale")
EXPECTED = {m.name: dict(zip(POINTS, m.points)) for m in MISTAKES if m.name in CLASS}
ROWS = [row for row in faults.ROWS if row.grade]


@pytest.fixture(scope="module")
def submitted(generated, tmp_path_factory):
    """A generated course with CLASS submitted (as nbgrader collect leaves them), never graded."""
    course = copy_generated(generated, tmp_path_factory.mktemp("faults") / "course")
    release = released(course)
    for mistake in MISTAKES:
        if mistake.name in CLASS:
            folder = course / "submitted" / mistake.name / ASSIGNMENT
            folder.mkdir(parents=True)
            nbformat.write(mistake_notebook(release, mistake), folder / f"{ASSIGNMENT}.ipynb")
    return course


def leftover_templates() -> list:
    """Kernel template folders whose grading process is gone (their owner's lock is free)."""
    found = []
    for folder in forkserver.FOLDERS.glob(f"{forkserver.PREFIX}*"):
        with contextlib.suppress(OSError):
            fd = os.open(folder / "owner.lock", os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                found.append(folder)
            except BlockingIOError:
                pass
            finally:
                os.close(fd)
    return found


def graded_now(run) -> set:
    return grade_output.graded_ok(run.stdout)


def autograded(course) -> set:
    return {path.parent.parent.name for path in (course / "autograded").glob(f"*/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")}


def scores(course, student, env):
    return gradebook_scores(course, student, env.get("DB_URL"))


def comments(course, student, env):
    return gradebook_comments(course, student, env.get("DB_URL")).values()


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_is_a_fault_nobodys_grade_and_the_class_graded_after_the_repair(row, submitted, tmp_path):
    if row.needs_root and os.geteuid() != 0:
        pytest.skip(f"{row.name} needs root (mount, or a kernel uid other than the grader's)")
    course = faults.copy_without_generated(submitted, tmp_path / "course")
    with contextlib.ExitStack() as stack:
        env = row.prepare(course, isolated_env(tmp_path / "home"), stack)
        with row.inject(course, env) as faulty:
            hit = make_grade(course, faulty, "--workers", "1" if row.mid_class else "2", wrap=row.wrap(course))
        said = hit.stdout + hit.stderr
        assert hit.returncode == STATUS["machine"], said[-3000:]
        lang = course_settings(course).language  # make grade speaks the course's
        line = next((line for line in said.splitlines() if row.named_in(line, lang)), "")
        assert faults.says(line, lang, "fault.machine"), said[-3000:]
        print(f"\n{row.name}: make grade said: {line}")
        before = autograded(course)  # graded before the fault (a worker killed may not have said so yet)
        assert bool(before) == row.mid_class and graded_now(hit) <= before, said[-3000:]
        row.repair(course)  # first: a gradebook that stopped is read again only once it runs
        for student in CLASS:
            assert not any("Not graded automatically" in (c or "") for c in comments(course, student, env))
            if student in before:  # graded before the fault: exactly their points
                assert scores(course, student, env) == pytest.approx({**EXPECTED[student], "total": sum(
                    EXPECTED[student].values())}, abs=1e-9)
        left = leftover_templates()  # a killed worker's template folder: its lock is free
        again = make_grade(course, env, "--workers", "2")
        assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
        if isinstance(row, faults.WorkerKilled):  # its folder goes at the next start of any grading process (one of a
            # test beside this one may come first), at this run's start at the latest (unit: test_sandbox.py)
            assert not any(f.exists() for f in left), again.stdout[-3000:]
        assert graded_now(again) == set(CLASS) - before  # the others, nobody twice
        for student in CLASS:
            assert scores(course, student, env) == pytest.approx({**EXPECTED[student], "total": sum(
                EXPECTED[student].values())}, abs=1e-9)
            assert not any("Not graded automatically" in (c or "") for c in comments(course, student, env))

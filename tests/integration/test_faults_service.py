"""The fault table through the real grading service: is a fault of the machine nobody's grade and nobody's feedback,
the submission kept waiting with the cause, and graded as if nothing happened once it is repaired?

The rows of tests/support/faults.py the service runs (``faults.SERVICE``: one before its first student, one
mid-class; every row of make grade: test_faults_grade.py) are made to happen while it runs (as the hub runs
it: ``python -m coursekit.service``) on a copy of one released course with an exchange of its own. A student
submits; the service must say WAITING with the row's cause (its log and ``service status``), release nothing and
write no grade; once the row is repaired, within the back-off, that submission is graded and its feedback released,
with exactly the mistake table's points. A row that strikes mid-class lets a first student through first.
The same rows through make grade: test_faults_grade.py; the service killed mid-job: test_service.py.
"""
import contextlib
import dataclasses
import os
import shutil
import subprocess
import sys

import pytest
import sqlalchemy.exc

from coursekit.language import WORDS
from coursekit.settings import course_settings
from coursekit.sandbox import missing_tool
from support import faults
from support import service_tools as st
from support.course_tools import POINTS, gradebook_comments, gradebook_scores, released
from support.mistakes import BY_NAME, submission

ROWS = [row for row in faults.ROWS if row.name in faults.SERVICE]
FIRST, SECOND = "ok_dot", "bug_no_scale"  # the mid-class rows' first student passes; the second meets the fault


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, generated):
    """One course, generated and released into its exchange: each row works on a copy of both."""
    if missing_tool():
        pytest.skip(missing_tool())
    return st.service_course(tmp_path_factory.mktemp("service-faults"), generated=generated)


def copy_of(sc: st.ServiceCourse, dest) -> st.ServiceCourse:
    course = faults.copy_without_generated(sc.course, dest / "course")
    exchange = shutil.copytree(sc.exchange, dest / "exchange")
    env = dict(sc.env, ATTN_EXCHANGE=str(exchange), HOME=str(dest / "home"))
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:  # the repair is seen within a second
        config.write("\nc.GradingService.retry_seconds = (0.5, 1)\n")
    return st.ServiceCourse(course, exchange, env, dest / "students")


def points(student):
    expected = dict(zip(POINTS, BY_NAME[student].points))
    return {**expected, "total": sum(expected.values())}


def status(sc) -> str:
    return subprocess.run([sys.executable, "-m", "coursekit.service", "status", "--course", str(sc.course)],
                          env=sc.env, capture_output=True, text=True, timeout=60).stdout


def untouched(sc, sent, url) -> None:
    """Nothing of the fault reached the student: no page; no grade but the real one (nbgrader saves the scores
    before it writes the autograded notebook, where a full disk stops it); no "not graded" comment."""
    assert not st.fetchable(sc, sent)
    try:
        got, comments = gradebook_scores(sc.course, sent.student, url), gradebook_comments(sc.course, sent.student, url)
    except sqlalchemy.exc.OperationalError:  # the gradebook is what is down: nothing was written into it
        return
    assert all(got.get(g) in (None, points(sent.student)[g]) for g in POINTS), got
    assert not any("Not graded automatically" in (c or "") for c in comments.values())


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_is_a_fault_nobodys_feedback_and_the_submission_graded_after_the_repair(row, prepared, tmp_path):
    if row.needs_root and os.geteuid() != 0:
        pytest.skip(f"{row.name} needs root (mount, or a kernel uid other than the grader's)")
    sc = copy_of(prepared, tmp_path)
    release = released(sc.course)
    with contextlib.ExitStack() as stack:
        sc = dataclasses.replace(sc, env=row.prepare(sc.course, sc.env, stack))
        url = sc.env.get("DB_URL")
        if not row.mid_class:  # in the inbound folder before the fault (the exchange row moves it)
            sent = st.submit(sc, FIRST, submission(release, *BY_NAME[FIRST].code))
        with row.inject(sc.course, sc.env) as faulty:
            service = stack.enter_context(st.running_service(dataclasses.replace(sc, env=faulty)))
            if row.mid_class:
                first = st.submit(sc, FIRST, submission(release, *BY_NAME[FIRST].code))
                st.wait_for(lambda: st.fetchable(sc, first), 90, "the first student's feedback, before the fault")
                sent = st.submit(sc, SECOND, submission(release, *BY_NAME[SECOND].code))
            lang = course_settings(sc.course).language  # the machine waits, or one student's job does

            def waiting(lines: str, msgids: tuple) -> list:
                return [line for line in lines.splitlines() if row.named_in(line, lang)
                        and any(faults.says(line, lang, msgid) for msgid in msgids)]
            st.wait_for(lambda: waiting(sc.log(), ("service.machine_fault", "service.job_fault")), 90,
                        f"the service to name {row.name}")
            untouched(sc, sent, url)
            assert waiting(status(sc), ("service.waiting", "service.machine_waiting"))
            # held back, not graded by anyone: "not graded yet"
            assert WORDS.say(course_settings(sc.course).language, "service.graded_elsewhere") not in status(sc)
            print(f"\n{row.name}: make service-status said: " + next(line for line in status(sc).splitlines()
                                                                     if row.named_in(line, lang)))
        row.repair(sc.course)
        st.wait_for(lambda: st.fetchable(sc, sent), 60, "the feedback once the fault is repaired")
        assert service.process.poll() is None  # it waited; it never gave up
        assert gradebook_scores(sc.course, sent.student, url) == pytest.approx(points(sent.student), abs=1e-9)
        assert "NOT GRADED" not in sc.log()


def test_does_the_service_run_a_row_before_its_first_student_and_one_mid_class():
    assert sorted(row.mid_class for row in ROWS) == [False, True] and all(row.service for row in ROWS)

"""Does the grading service (coursekit.service) give feedback seconds after Submit, by the course's policy,
and lose nothing when it is killed?

The service runs as a plain process (``python -m coursekit.service``, as the hub runs it) on a
throw-away course with its own exchange; students submit with nbgrader's own ``ExchangeSubmit``
and the tests ask what Fetch Feedback asks (a released page for that submission's secret). Real
nbgrader, real sandboxed kernels forked from the service's template, a real sqlite gradebook.
The module starts the service twice: the first is killed (``kill -9``) in the middle of a grading.
"""
import pathlib
import re
import sqlite3
import sys
import time

import nbformat
import pytest
from nbgrader.api import Gradebook

from coursekit.grading.selection import graded_students, submitted_students
from coursekit.sandbox import missing_tool
from coursekit.service.command import journal_of
from support import redteam
from support import service_tools as st
from support.cases import CASES
from support.course_tools import ASSIGNMENT, GRADER_CELLS, released, visible_text
from support.mistakes import BY_NAME, submission

# benchmarks/bench_submit.py times Submit → feedback on a service like this one: here it takes its steps on this
# module's service (its smoke in make test), so a change to the service that breaks the bench breaks this module
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_submit  # noqa: E402

COOLDOWN, MAX_ATTEMPTS = 12, 2
# A slow student cell (4 s): one test kills the service while it runs, another submits a burst meanwhile.
SLEEPY = "import time\ntime.sleep(4)"
INVALID = next(case for case in CASES if case.name == "c_invalid_json")


@pytest.fixture(scope="module")
def course(tmp_path_factory, generated):
    problem = missing_tool()
    if problem:
        pytest.skip(problem)
    sc = st.service_course(tmp_path_factory.mktemp("service"), generated=generated)
    sc.configure(cooldown=COOLDOWN, max_attempts=MAX_ATTEMPTS)
    return sc


@pytest.fixture(scope="module")
def service(course):
    """The running service; a test that kills it starts the next one into ``holder[0]``."""
    holder = [st.start_service(course, "service-1")]
    yield holder
    st.stop_service(course, holder[0])


def notebook(course, mistake="ok_dot", slow=False):
    nb = submission(released(course.course), *BY_NAME[mistake].code)
    if slow:
        nb.cells.insert(1, nbformat.v4.new_code_cell(SLEEPY))
    return nb


def in_flight(course, student, timestamp=None):
    """Is a job of ``student`` running (of the submission made at ``timestamp``, when given)?"""
    entry = journal_of(course.course).entries.get((ASSIGNMENT, student))
    running = entry is not None and entry.in_flight is not None
    return running and (timestamp is None or entry.in_flight["timestamp"] == timestamp)


def graded(course, student) -> str:
    """The timestamp of the student's newest submission the service has graded ("" if none)."""
    entry = journal_of(course.course).entries.get((ASSIGNMENT, student))
    return entry.graded if entry is not None else ""


def collected(course, student) -> str:
    """The timestamp of the submission the service last collected for ``student`` ("" if none): what its job grades."""
    stamp = course.course / "submitted" / student / ASSIGNMENT / "timestamp.txt"
    return stamp.read_text(encoding="utf-8").strip() if stamp.exists() else ""


def gradebook_rows(course, student) -> dict:
    """Rows nbgrader wrote for ``student``, counted straight from the sqlite file (no nbgrader API)."""
    with sqlite3.connect(course.course / "gradebook.db") as db:
        count = lambda sql: db.execute(sql, (student,)).fetchone()[0]  # noqa: E731
        return {
            "submissions": count("SELECT count(*) FROM submitted_assignment WHERE student_id = ?"),
            "notebooks": count("SELECT count(*) FROM submitted_notebook n JOIN submitted_assignment a "
                               "ON n.assignment_id = a.id WHERE a.student_id = ?"),
            "grades": count("SELECT count(*) FROM grade g JOIN submitted_notebook n ON g.notebook_id = n.id "
                            "JOIN submitted_assignment a ON n.assignment_id = a.id WHERE a.student_id = ?"),
            "auto_score": count("SELECT sum(g.auto_score) FROM grade g JOIN submitted_notebook n "
                                "ON g.notebook_id = n.id JOIN submitted_assignment a ON n.assignment_id = a.id "
                                "WHERE a.student_id = ?")}


def test_killed_mid_grading_the_submission_is_graded_once_after_the_restart(course, service):
    """kill -9 while a kernel runs the student's cells: nothing half-written, and after the restart
    that submission is graded once, its feedback released once, the gradebook without duplicates."""
    sent = st.submit(course, "k1", notebook(course, slow=True))
    st.wait_for(lambda: in_flight(course, "k1") and (course.course / "autograded" / "k1").exists(), 60,
                "k1's grading to start")
    time.sleep(1.5)  # inside the slow cell
    service[0].kill()
    st.wait_for(lambda: not st._service_pids(course.course), 30, "the killed service's workers to stop")
    assert not list(course.exchange.rglob("*.html")), "no page, whole or half, was released"
    assert not (course.course / "feedback" / "k1").exists()
    assert in_flight(course, "k1")  # the journal remembers what was interrupted
    assert not list((course.course / "grading-service").glob("*.tmp"))

    service[0] = st.start_service(course, "service-2")  # what the hub does after its next poll
    st.wait_for(lambda: st.fetchable(course, sent), 90, "k1's feedback after the restart")
    st.wait_for(lambda: not in_flight(course, "k1"), 30, "the service to finish k1's job (journal, log)")
    page = st.feedback_page(course, sent).read_text(encoding="utf-8")
    assert "time.sleep(4)" in visible_text(page) and page.rstrip().endswith("</html>")  # k1's, whole
    rows = gradebook_rows(course, "k1")
    assert rows == {"submissions": 1, "notebooks": 1, "grades": len(GRADER_CELLS) + 8, "auto_score": 12.0}, rows
    lines = course.log_lines("k1")
    assert any("interrupted while doing the submission of" in line for line in lines), lines
    assert len([line for line in lines if st.graded_line("k1", sent.timestamp).search(line)]) == 1, lines
    entry = journal_of(course.course).entry((ASSIGNMENT, "k1"))
    assert entry.in_flight is None and len(entry.releases) == 1 and entry.released == sent.timestamp
    assert len(list((course.exchange / st.COURSE_ID / "feedback").glob("*.html"))) == 1


def test_policy_cooldown_newest_only_fairness_attempts(course, service):
    """p1 submits again and again, p2 once, in the middle: p2 waits one grading at most; of p1's burst only
    the newest is graded; inside the cooldown feedback waits, then comes; past max_attempts it stays back."""
    first = st.submit(course, "p1", notebook(course))
    st.wait_for(lambda: st.fetchable(course, first) and not in_flight(course, "p1"), 60, "p1's first feedback")
    # slow: the burst and p2 must arrive while this one is graded (a quick grading is over in 0.7 s), and after its
    # job collected it: a job collects the newest submission there is when it gets to it, which on a busy machine can
    # be the burst's first (then graded, and this test's claim about the burst would not be the one tested)
    second = st.submit(course, "p1", notebook(course, "bug_no_scale", slow=True))
    st.wait_for(lambda: in_flight(course, "p1", second.timestamp) and collected(course, "p1") == second.timestamp, 30,
                "p1's second grading to collect it")
    burst = []
    for _ in range(3):  # the log names a submission to the hundredth of a second: no two in the same one
        burst.append(st.submit(course, "p1", notebook(course, "bug_no_scale")))
        time.sleep(0.02)
    other = st.submit(course, "p2", INVALID.build(released(course.course)))
    assert in_flight(course, "p1", second.timestamp), "the burst came after p1's second grading ended"

    st.wait_for(lambda: graded(course, "p1") == burst[-1].timestamp and not in_flight(course, "p1"), 90,
                "p1's newest graded")
    log = course.log()
    # fairness: p2 (never served) before p1's newest; newest only: the middle of the burst never graded
    p2_done = log.index("  p2  NOT GRADED")
    assert p2_done < st.graded_line("p1", burst[-1].timestamp).search(log).start()
    for skipped in burst[:-1]:
        assert not st.graded_line("p1", skipped.timestamp).search(log)
    assert st.graded_line("p1", second.timestamp).search(log)
    # graded at once, feedback waiting for the cooldown of the first release
    entry = journal_of(course.course).entry((ASSIGNMENT, "p1"))
    assert entry.graded == burst[-1].timestamp and entry.held and entry.held["reason"] == "cooldown"
    released_at = entry.releases[0]
    assert not st.fetchable(course, second)
    assert not st.fetchable(course, burst[-1]) or time.time() >= released_at + COOLDOWN
    st.wait_for(lambda: st.fetchable(course, burst[-1]), COOLDOWN + 30, "p1's held feedback after the cooldown")
    assert time.time() >= released_at + COOLDOWN
    assert not st.fetchable(course, second)  # superseded before its feedback could go out
    # the ungradable submission got a page that says so
    page = visible_text(st.feedback_page(course, other).read_text(encoding="utf-8"))
    assert "这次提交没有被自动评分" in page and "NotJSONError" in page
    assert st.feedback_page(course, other).stat().st_mode & 0o044 == 0o044  # students read it (another uid)

    # max_attempts: the third submission is graded, its feedback left to the instructor
    third = st.submit(course, "p1", notebook(course))
    st.wait_for(lambda: graded(course, "p1") == third.timestamp and not in_flight(course, "p1"), 60,
                "p1's third graded")
    entry = journal_of(course.course).entry((ASSIGNMENT, "p1"))
    assert len(entry.releases) == MAX_ATTEMPTS and entry.held["reason"] == "attempts"
    assert not st.fetchable(course, third)
    assert re.search(r"  p1  submitted \S+ → graded 12/20 .*feedback waits for the instructor: 2 of 2 automatic",
                     course.log())


def test_make_grade_counts_the_services_gradings_as_done(course, service):
    """`make grade`'s own rule (coursekit.grading.selection) on the same course: the service's gradings count
    as done; only the ungradable submission (no autograded notebook, as after `nbgrader autograde`) is missing."""
    submitted = submitted_students(course.course, ASSIGNMENT)
    with Gradebook(f"sqlite:///{course.course / 'gradebook.db'}") as gradebook:
        in_gradebook = {s.student.id for s in gradebook.find_assignment(ASSIGNMENT).submissions}
    done = graded_students(course.course, ASSIGNMENT, submitted, in_gradebook)
    assert set(submitted) == {"k1", "p1", "p2"} and set(submitted) - done == {"p2"}


@pytest.mark.parametrize("row", ["red_replay_leaked_inputs", "red_returns_a_huge_view"])
def test_does_hostile_content_score_as_the_untouched_release_through_the_service(course, service, row):
    """A replay of another submission's hidden inputs, a return value of terabytes: graded by the service like
    any submission, the feedback released, the untouched release's points (every row: make grade's shared class)?"""
    case = next(case for case in redteam.ROWS if case.name == row)
    sent = st.submit(course, row, case.build(released(course.course)))
    st.wait_for(lambda: st.fetchable(course, sent), 120, f"{row}'s feedback")
    assert gradebook_rows(course, row)["auto_score"] == pytest.approx(sum(case.points))


def test_does_bench_submit_time_this_service(course, service):
    """benchmarks/bench_submit.py's own steps at its smoke's sizes, on this service (last: two students more): one idle
    submission and a burst of one, each timed until its feedback can be fetched, and the bench's lines?"""
    rows = bench_submit.submissions(course)
    idle = bench_submit.idle_run(course, rows, 1)
    burst = bench_submit.burst_run(course, rows, 1, 1.0)
    lines = [bench_submit.summary("idle", idle, 1), bench_submit.summary("burst of 1 within 1 s", burst, 1)]
    print("\n" + "\n".join(lines))
    assert all("1/1 released" in line for line in lines) and all(0 < s < 120 for s in idle + burst), lines

"""Does hostile content in the exchange's inbound/ stay there — through the real `nbgrader collect` and `nbgrader list
--inbound` with the course's config, and through the real grading service — while everyone else is collected and
graded, and is each refused folder named with why?

One course (the generated one, released into an exchange of its own). Its inbound/ holds two honest students'
submissions, made with nbgrader's own submit, and beside them the representative rows of the exchange table
(tests/support/exchange_rows.py: a notebook linked to the master, a FIFO secret, a secret linked to /dev/zero, a
16 GiB sparse file, and a folder named for one of the honest students, later than theirs, made by another Unix
user), all in place before anything reads inbound/. The hostile folders' notebooks are an honest answer: collected
by mistake, they would be graded. One more student's honest answer comes in a folder whose name and timestamp.txt
claim 2025-12-31 (the table's ``backdated`` row): collected and graded, under the time it arrived, which nbgrader's
autograde records in the gradebook. Every row of the table, in the unit tier: tests/unit/test_inbound.py.
"""
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

from coursekit.language import WORDS
from coursekit.settings import course_settings
from coursekit.sandbox import missing_tool
from coursekit.service.command import journal_of
from support import service_tools as st
from support.course_tools import ASSIGNMENT, released, run_nbgrader
from support.exchange_rows import BACKDATED as BACKDATED_CLAIM
from support.exchange_rows import BY_NAME, REPRESENTATIVE, Course, arrival, build, later, require_root
from support.mistakes import BY_NAME as MISTAKES, submission

pytestmark = pytest.mark.timeout(300)
HONEST = {"c1": "bug_no_scale", "h1": "ok_dot"}  # c1: the classmate an impostor's folder is named for
CLASSMATE = "c1"
BACKDATED = "b1"  # an honest answer in the table's backdated folder: collected, at the time it arrived


def hostile_student(row) -> str:
    return CLASSMATE if row.impostor else f"x_{row.name}"


def said(text: str, opening: str, folder, name: str) -> list:
    """The lines of ``text`` that begin ``opening`` + the folder's inbound/ path and give ``name``'s reason."""
    start = f"{opening}inbound/{folder.name}: "
    return [line for line in text.splitlines() if start in line and BY_NAME[name].names in line.split(start, 1)[1]]


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory, generated):
    """(the service course, {honest student: Submitted}, {row name: its folder in inbound/})."""
    if missing_tool():
        pytest.skip(missing_tool())
    require_root()
    sc = st.service_course(tmp_path_factory.mktemp("exchange"), generated=generated)
    release = released(sc.course)
    sent = {student: st.submit(sc, student, submission(release, *MISTAKES[mistake].code))
            for student, mistake in HONEST.items()}
    targets = Course(sc.course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", sc.course / "grader" / "checks.py",
                     ASSIGNMENT, 200)
    answer = nbformat.writes(submission(release, *MISTAKES["ok_dot"].code)).encode()
    inbound = sc.exchange / st.COURSE_ID / "inbound"
    hostile = {name: build(BY_NAME[name], inbound, hostile_student(BY_NAME[name]), targets, answer,
                           timestamp=later(sent[CLASSMATE].claimed, 3600)) for name in REPRESENTATIVE}
    hostile[BACKDATED] = build(BY_NAME["backdated"], inbound, BACKDATED, targets, answer)
    return sc, sent, hostile


def _hostile(hostile: dict) -> dict:
    """The refused folders (the backdated one is collected)."""
    return {name: folder for name, folder in hostile.items() if name != BACKDATED}


def test_does_nbgrader_collect_take_only_the_honest_folders_and_name_each_refused_one(hostile_class, tmp_path):
    """`nbgrader collect` with the course's config, on a copy of the course: exactly the honest students, each
    notebook as they submitted it (the classmate's own, not the impostor's later one); every hostile folder named
    in its log with the reason; exit 0. Then `nbgrader list --inbound` lists the honest folders only (nbgrader's
    listing shows the time a folder's name claims: only collect says when it arrived)."""
    sc, sent, hostile = hostile_class
    course = shutil.copytree(sc.course, tmp_path / "course", ignore=shutil.ignore_patterns("submitted", "autograded"))
    collected = run_nbgrader("collect", ASSIGNMENT, cwd=course, env=sc.env, timeout=120)
    assert collected.returncode == 0, collected.stderr[-3000:]
    assert sorted(p.name for p in (course / "submitted").iterdir()) == sorted([*HONEST, BACKDATED])
    for student in HONEST:
        theirs = sc.homes / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        assert (course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes() == theirs.read_bytes()
        assert (course / "submitted" / student / ASSIGNMENT / "timestamp.txt").read_text() == sent[student].timestamp
    assert (course / "submitted" / BACKDATED / ASSIGNMENT / "timestamp.txt").read_text() == \
        arrival(hostile[BACKDATED]) != BACKDATED_CLAIM
    for name, folder in _hostile(hostile).items():
        assert len(said(collected.stderr, "Refused, never collected: ", folder, name)) == 1, name
    listed = run_nbgrader("list", "--inbound", cwd=course, env=sc.env, timeout=60)
    assert listed.returncode == 0, listed.stderr[-3000:]
    shown = [line for line in listed.stderr.splitlines() if f" {ASSIGNMENT} " in line and st.COURSE_ID in line]
    assert sorted(line.split("] ", 1)[1].split()[1] for line in shown) == sorted([*HONEST, BACKDATED]), shown
    assert "x_" not in "\n".join(shown) and all(sent[s].claimed in listed.stderr for s in HONEST)  # nbgrader's words


def test_does_the_service_grade_everyone_else_and_name_each_refused_folder(hostile_class):
    """The service starts with the hostile folders in inbound/: each honest student is graded and gets feedback
    (the classmate's own submission, not the impostor's), each hostile folder is logged once as REFUSED and named
    by `make service-status` with why, and nothing of theirs is collected, graded or released."""
    sc, sent, hostile = hostile_class
    with st.running_service(sc, "service-exchange"):
        for student, submitted in sent.items():
            st.wait_for(lambda: st.fetchable(sc, submitted), 90, f"{student}'s feedback")
        st.wait_for(lambda: (ASSIGNMENT, BACKDATED) in journal_of(sc.course).entries, 60, f"{BACKDATED}'s grading")
        st.wait_for(lambda: all(not e.in_flight for e in journal_of(sc.course).entries.values()), 30, "the last job")
    log = sc.log()
    arrived = {**{student: submitted.timestamp for student, submitted in sent.items()},
               BACKDATED: arrival(hostile[BACKDATED])}
    for student, when in arrived.items():
        assert st.graded_line(student, when).search(log), log[-3000:]
    status = subprocess.run([sys.executable, "-m", "coursekit.service", "status", "--course", str(sc.course)],
                            env=sc.env, capture_output=True, text=True, timeout=60).stdout
    print("\nmake service-status said:\n" + status)
    for name, folder in _hostile(hostile).items():
        assert len(said(log, "REFUSED ", folder, name)) == 1, (name, log[-3000:])
        listed = WORDS.say(course_settings(sc.course).language, "service.refused", name=folder.name, reason="")
        assert len([line for line in status.splitlines() if listed in line and BY_NAME[name].names in line]) == 1, name
    graded = journal_of(sc.course).entries
    assert sorted(student for _, student in graded) == sorted(arrived)
    assert graded[(ASSIGNMENT, CLASSMATE)].graded == sent[CLASSMATE].timestamp
    assert sorted(p.name for p in (sc.course / "submitted").iterdir()) == sorted(arrived)
    assert len(list((sc.exchange / st.COURSE_ID / "feedback").glob("*.html"))) == len(arrived)
    with Gradebook(f"sqlite:///{sc.course / 'gradebook.db'}") as gradebook:  # what nbgrader's autograde recorded
        recorded = {s: gradebook.find_submission(ASSIGNMENT, s).timestamp for s in arrived}
    assert recorded == {s: parse_utc(when).replace(tzinfo=None) for s, when in arrived.items()}
    assert graded[(ASSIGNMENT, BACKDATED)].graded == arrived[BACKDATED]  # once, under that time

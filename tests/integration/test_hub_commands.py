"""In a hub terminal, do the instructor's documented commands work, on the instructor's course?

The session's hub (autograde/hub) after the course loop (test_hub.py graded it with ``make grade``
in the instructor's terminal; alone, this module walks the loop with nbgrader's CLI up to
*Collect* and grades the same way). In a JupyterLab terminal of the instructor's own server
(the terminals API and its websocket, their own token), the commands of docs/deploy-hub.md typed
as written: the commands found on PATH, ``make grade`` (the gradebook holds the mistake table's
points for each student), ``nbgrader autograde`` for one student (the same points), ``make report``
(the class report in ``~/course/reports/``).
"""
import csv
import pathlib

import pytest

from support.course_tools import ASSIGNMENT, POINTS, gradebook_scores
from support.hub_terminal import COURSE_FOLDER, Terminal, make_grade, nbgrader_autograde
from support.hub_tools import CLASS, loop_by_cli, start_servers
from support.mistakes import BY_NAME


def expected_points(plan) -> dict:
    """{student: {grade_id: points}} as the mistake table says for what each student submitted."""
    return {student: dict(zip(POINTS, BY_NAME[mistake].points)) for student, mistake in zip(plan.students, CLASS.values())}


def graded_points(plan) -> dict:
    return {s: {k: v for k, v in gradebook_scores(plan.course_dir(), s).items() if k in POINTS} for s in plan.students}


@pytest.fixture(scope="module")
def hub(course_hub_plan):
    plan = course_hub_plan
    start_servers(plan, [plan.instructor])
    loop_by_cli(plan, until="collect")  # the class of CLASS, whatever other modules of the group submitted
    status, shown = make_grade(plan)
    assert status == 0, shown[-3000:]
    return plan


def test_does_the_instructors_terminal_find_the_course_commands(hub):
    """`command -v` in the instructor's terminal: nbgrader and python from the hub's user environment, make from the system?"""
    env_bin = str(pathlib.Path(hub.python).parent)
    with Terminal(hub, hub.instructor) as terminal:
        status, shown = terminal.run("command -v nbgrader python make")
    assert status == 0, shown
    found = [line.strip() for line in shown.splitlines() if line.strip().startswith("/")]
    assert found[-3:] == [f"{env_bin}/nbgrader", f"{env_bin}/python", "/usr/bin/make"], shown


def test_does_make_grade_in_the_terminal_give_each_student_the_mistake_tables_points(hub):
    """`cd ~/course && make grade` graded the class: each student's test cells hold the table's points?"""
    assert graded_points(hub) == expected_points(hub)


def test_does_nbgrader_autograde_in_the_terminal_grade_a_student_the_same(hub):
    """`nbgrader autograde ch04_attention --student <s> --force` from ~/course: the same points again?"""
    student = hub.students[1]
    status, shown = nbgrader_autograde(hub, student)
    assert status == 0, shown[-3000:]
    assert graded_points(hub)[student] == expected_points(hub)[student]


def test_does_make_report_in_the_terminal_write_the_class_report_into_the_course(hub):
    """`make report` from ~/course: reports/ch04_attention/ with each student's test-cell points as the table says?"""
    with Terminal(hub, hub.instructor) as terminal:
        status, shown = terminal.run(f"cd {COURSE_FOLDER} && make report")
    assert status == 0, shown[-3000:]
    folder = hub.course_dir() / "reports" / ASSIGNMENT
    assert (folder / "index.html").is_file(), shown[-2000:]
    with open(folder / "students.csv", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    reported = {s: {g: float(rows[s][f"{g}_auto"]) for g in POINTS} for s in hub.students if s in rows}
    assert reported == expected_points(hub)

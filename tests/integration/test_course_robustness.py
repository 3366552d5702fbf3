"""Can one bad submission spoil the class? Grading over submissions nbgrader cannot grade.

The cases of tests/support/cases.py that nbgrader cannot grade — a copied solution cell and a
copied test cell (their nbgrader metadata duplicated, jupyter/nbgrader#1083), a notebook that is
not JSON, a student function calling ``os._exit(1)`` — and an infinite loop (cell timeout
ATTN_TIMEOUT, tests/support/classes.py), graded with everyone else: by ONE serial
``nbgrader autograde`` (the serial class) and by ``make grade`` (the shared class). The course's
config (RejectDuplicateIds, ZeroOnFailureExporter) must give each ungradable notebook 0 with a
reason in the gradebook and the log, while everybody else is graded exactly as usual.
"""
import csv

import nbformat
import pytest

from coursekit import canary
from support.cases import UNTOUCHED
from support.classes import copy_graded
from support.course_tools import ASSIGNMENT, POINTS, index_of, output_text, run_nbgrader, visible_text
from support import grade_output, redteam


def _ungradable(graded):
    return sorted(graded.reasons)


def test_does_autograde_report_exactly_the_ungradable_students(serial_class):
    """Exit status 1 (nbgrader's signal that some students failed), each of them named, nobody else?"""
    assert serial_class.run.returncode == 1
    failed = sorted(s for s in serial_class.expected if f"for student '{s}'" in serial_class.run.stderr)
    assert failed == _ungradable(serial_class)


def test_does_make_grade_list_exactly_the_ungradable_students(shared_class):
    """`make grade`'s summary names each ungradable student with the recorded reason, nobody else?"""
    summary = grade_output.summary(grade_output.section(shared_class.run.stdout))
    failed = grade_output.failed(summary)
    assert sorted(failed) == _ungradable(shared_class)
    for student, reason in shared_class.reasons.items():
        assert failed[student].startswith("Not graded automatically, scored 0: ") and reason in failed[student]


def test_does_make_grade_name_who_went_over_one_students_time(shared_class):
    """The row sleeping past the class's 14 s (c.CourseKit.student_seconds) named in the one line that says that time
    and where it came from; nobody else?"""
    over, said = grade_output.over_budget(grade_output.section(shared_class.run.stdout))
    assert over == (redteam.SLEEPING,)
    assert f"{redteam.STUDENT_SECONDS:g}" in said and "c.CourseKit.student_seconds" in said


def test_did_the_workers_leave_what_the_untouched_release_scores_and_how_long_it_takes(shared_class):
    """What one student's time is derived from and the report's "may be hard-coded" reads: the release's records (its
    3.5 points) and its grading time, measured warm (well under a student's)?"""
    run = canary.last_run(shared_class.course, ASSIGNMENT)
    assert sum(r.score for r in run.records.values()) == pytest.approx(sum(UNTOUCHED))
    assert 0 < run.seconds < redteam.STUDENT_SECONDS / 2


def test_does_make_grade_print_a_notebooks_terminal_escapes_as_text(shared_class):
    """The reason of the notebook whose error holds ESC sequences and a bidirectional override: shown escaped, and
    not one control character reaches the instructor's terminal from the whole run?"""
    said = shared_class.run.stdout + shared_class.run.stderr
    assert not [c for c in said if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0 or c == "\u202e"]
    assert "\\x1b]0;owned\\x07\\x1b[2J\\u202e" in grade_output.failed(said)["c_terminal_escapes_in_its_error"]


@pytest.mark.parametrize("graded", ["serial_class", "shared_class"])
def test_does_an_ungradable_notebook_score_zero_with_its_reason(graded, request):
    """Every grade 0, the reason in the gradebook's comments, no autograded copy left?"""
    graded = request.getfixturevalue(graded)
    for student, reason in graded.reasons.items():
        assert graded.scores(student) == {**dict.fromkeys(POINTS, 0.0), "total": 0.0}
        comments = graded.comments(student)
        assert comments and all(reason in c and "Not graded automatically, scored 0" in c for c in comments.values())
        assert not (graded.course / "autograded" / student / ASSIGNMENT).exists()  # nbgrader removed the partial copy


def test_does_the_log_give_each_reason(serial_class):
    """nbgrader's own log names the student and the reason?"""
    for student, reason in serial_class.reasons.items():
        assert f"{student}: Not graded automatically, scored 0: " in serial_class.run.stderr
        assert reason in serial_class.run.stderr


def test_is_everybody_else_graded_as_usual(serial_class):
    """Students sorted after the failures still get exactly their per-cell scores?"""
    for student in set(serial_class.expected) - set(serial_class.reasons):
        expected = dict(zip(POINTS, serial_class.expected[student]))
        scores = serial_class.scores(student)
        assert {g: scores[g] for g in POINTS} == pytest.approx(expected, abs=1e-9), student


@pytest.mark.parametrize("graded", ["serial_class", "shared_class"])
def test_does_an_infinite_loop_cost_one_timeout(graded, request):
    """TEST 3's grader runs out of the cell's time inside student_softmax: the kernel is interrupted, the cell scores 0
    with the reason (no error, no stderr); verify, the diagnosis and TEST 4 report the hung function?"""
    nb = nbformat.read(request.getfixturevalue(graded).notebook("e_infinite_loop"), as_version=4)
    errors = [(c.metadata.get("nbgrader", {}).get("grade_id", c.get("id")), o.ename)
              for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    assert "运行超时被中断（可能有死循环），本项记 0 分。" in output_text(nb.cells[index_of(nb, "test3_softmax")])
    later = "".join(o.get("text", "") for c in nb.cells[index_of(nb, "test3_softmax") + 1:]
                    if c.cell_type == "code" for o in c.outputs)
    assert "student_softmax 在前面的单元格里运行超时，评分时不再调用" in later  # verify's line
    assert "这个函数在前面的单元格里运行超时，评分时不再调用，本项记 0 分。" in later  # TEST 4's grader


def test_does_the_gradebook_stay_intact_for_feedback_and_export(serial_class):
    """After the failures: feedback for the graded ones (no grader code), a CSV row with the right total for all?"""
    course, env = serial_class.course, serial_class.env
    assert sorted(p.name for p in (course / "feedback").iterdir()) == sorted(
        set(serial_class.expected) - set(serial_class.reasons))
    looped = serial_class.feedback("e_infinite_loop").read_text(encoding="utf-8")
    assert "运行超时被中断" in visible_text(looped) and "spec_from_file_location" not in looped
    done = run_nbgrader("export", "--to", str(course.parent / "grades.csv"), cwd=course, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(course.parent / "grades.csv", encoding="utf-8") as fh:
        totals = {row["student_id"]: float(row["score"]) for row in csv.DictReader(fh)}
    assert totals == pytest.approx({s: sum(points) for s, points in serial_class.expected.items()})


def test_does_a_copied_cell_no_longer_abort_the_run_without_add_missing_cells(serial_class, tmp_path):
    """With nbgrader's default add_missing_cells=False (#1083: "old metadata", whole run aborted): same reason, one student?"""
    graded = copy_graded(serial_class, tmp_path)
    result = run_nbgrader("autograde", ASSIGNMENT, "--student", "a_copied_solution_cell", "--force",
                          "--OverwriteCells.add_missing_cells=False", cwd=graded.course, env=graded.env)
    assert result.returncode == 1
    assert graded.reasons["a_copied_solution_cell"] in result.stderr
    assert "old version" not in result.stderr and "There was an error processing assignment 'ch04_attention' " \
                                                   "for student 'a_copied_solution_cell'" in result.stderr

"""Does the instructor's round trip work with the real nbgrader CLI, end to end, inside a temp dir?

generate_assignment → validate (master / release) → release_assignment → fetch_assignment and
submit by three students, each in their own home with ``--student`` → collect → autograde →
generate_feedback → release_feedback → export. The course id and the exchange come from ATTN_COURSE_ID and
ATTN_EXCHANGE; every HOME and Jupyter directory is a temp dir. alice submits a correct
solution, bob the untouched release, carol a softmax without the max subtraction.
"""
import concurrent.futures
import csv
import re
from types import SimpleNamespace

import nbformat
import pytest
from nbconvert import HTMLExporter

from coursekit.language import WORDS
from coursekit.paths import ASSIGNMENT, COURSE, MASTER
from coursekit.paths import STUDENT_NOTEBOOK as STUDENT
from attnkit.course import cell_names  # the chapter's names (its plug-in's: no points in them)
from support.course_tools import (
    MANUAL,
    POINTS,
    course_copy,
    gradebook_scores,
    isolated_env,
    run_nbgrader,
    visible_text,
)
from support.mistakes import submission

PENDING = WORDS.say("zh", "feedback.pending")  # 待批改, as the Chinese feedback page says it

COURSE_ID = "ch04-e2e"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
# student: (implementations or None for untouched, per-cell scores, the four "本项得分" lines' fractions)
STUDENTS = {
    "alice": (("einsum", "np_add_out", "exp_out"), (4.0, 3.0, 3.0, 2.0),
              ["4 × 16/16 = 4", "3 × 12/12 = 3", "3 × 12/12 = 3", "2 × 8/8 = 2"]),
    "bob": (None, (1.75, 1.0, 0.25, 0.5),
            ["4 × 7/16 = 1.75", "3 × 4/12 = 1", "3 × 1/12 = 0.25", "2 × 2/8 = 0.5"]),
    # no max subtraction: TEST 3 loses 3 hidden checks (1000s, far-apart rows, masked rows),
    # TEST 4 two (the ±160 scores, the fully masked row)
    "carol": (("dot", "add", "no_max"), (4.0, 3.0, 2.25, 1.5),
              ["4 × 16/16 = 4", "3 × 12/12 = 3", "3 × 9/12 = 2.25", "2 × 6/8 = 1.5"]),
}


ANSWERING = "alice"  # the one who also writes every written answer; bob and carol leave them as released


def _student_edit(path, implementations, answers: bool):
    """What a student does in JupyterLab: type code into the solution cells of the fetched notebook (and a line into
    every written answer), save."""
    nb = nbformat.read(path, as_version=4)
    if implementations:
        nb = submission(nb, *implementations)
    for cell in nb.cells if answers else ():
        if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = "缩放之后分数的方差不再随维度增长。"
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def workflow(tmp_path_factory):
    """Run every step once; keep each command's result for the tests below."""
    tmp = tmp_path_factory.mktemp("workflow")
    course_entries = sorted(p.name for p in COURSE.iterdir())
    course, exchange = course_copy(tmp), tmp / "exchange"
    exchange.mkdir(mode=0o777)
    teacher = isolated_env(tmp / "instructor", ATTN_COURSE_ID=COURSE_ID, ATTN_EXCHANGE=str(exchange))
    done = {"generate": run_nbgrader("generate_assignment", ASSIGNMENT, cwd=course, env=teacher)}
    homes = {student: tmp / "homes" / student for student in STUDENTS}

    def validate(kind):
        done[f"validate_{kind}"] = run_nbgrader("validate", f"{kind}/{ASSIGNMENT}/{NOTEBOOK}", cwd=course, env=teacher)

    def student_works(student):  # each student at their own desk, at the same time as the others
        home, (implementations, _, _) = homes[student], STUDENTS[student]
        home.mkdir(parents=True)
        env, where = isolated_env(home), ["--course", COURSE_ID, f"--Exchange.root={exchange}"]
        done[f"fetch_{student}"] = run_nbgrader("fetch_assignment", ASSIGNMENT, *where, cwd=home, env=env)
        _student_edit(home / ASSIGNMENT / NOTEBOOK, implementations, student == ANSWERING)
        done[f"submit_{student}"] = run_nbgrader("submit", ASSIGNMENT, *where, "--student", student, cwd=home, env=env)

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        checks = [pool.submit(validate, kind) for kind in ("source", "release")]
        done["release"] = run_nbgrader("release_assignment", ASSIGNMENT, cwd=course, env=teacher)
        checks += [pool.submit(student_works, student) for student in STUDENTS]
        for check in checks:
            check.result()
    for step in ("collect", "autograde", "generate_feedback", "release_feedback"):
        done[step] = run_nbgrader(step, ASSIGNMENT, cwd=course, env=teacher)
    done["export"] = run_nbgrader("export", "--to", str(tmp / "grades.csv"), cwd=course, env=teacher)
    return SimpleNamespace(tmp=tmp, course=course, exchange=exchange, homes=homes, done=done,
                           course_entries=(course_entries, sorted(p.name for p in COURSE.iterdir())))


def _feedback(workflow, student):
    path = workflow.course / "feedback" / student / ASSIGNMENT / NOTEBOOK.replace(".ipynb", ".html")
    return visible_text(path.read_text(encoding="utf-8"))


def _secret_lines():
    """Lines students never see: the master's hidden tests and solutions, minus anything the release shows too."""
    shown = "\n".join(c.source for c in nbformat.read(STUDENT, as_version=4).cells)
    secret = set()
    for cell in nbformat.read(MASTER, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "markdown":
            regions = [cell.source]
        else:
            regions = re.findall(r"### BEGIN (?:SOLUTION|HIDDEN TESTS)\n(.*?)### END", cell.source, flags=re.S)
        secret |= {line.strip() for region in regions for line in region.splitlines()}
    # markdown loses its `*$ marks when rendered: look for the plain runs between them too
    pieces = {piece.strip() for line in secret for piece in re.split(r"[`*$]", line)}
    return {line for line in secret | pieces if len(line) >= 16 and line not in shown}


def _grader_lines():
    """Every line of the grader's own source (autograde/grader/*.py) that the release does not show too."""
    shown = "\n".join(c.source for c in nbformat.read(STUDENT, as_version=4).cells)
    lines = {line.strip() for path in (COURSE / "grader").glob("*.py") for line in path.read_text("utf-8").splitlines()}
    return {line for line in lines if len(line) >= 16 and line not in shown}


def test_does_every_step_succeed(workflow):
    """Every command exits with status 0 (the run has no failed student)?"""
    failed = {step: r.stderr[-1500:] for step, r in workflow.done.items() if r.returncode != 0}
    assert not failed


def test_does_validate_pass_the_master_and_show_the_releases_baseline(workflow):
    """Master: all tests pass; release: the 4 test cells give partial credit, the 8 empty answers nbgrader's own entries
    (the instructor's command is nbgrader's; the students' Validate button folds them: tests/unit/test_plugins_validation.py)?"""
    assert "Success! Your notebook passes all the tests." in workflow.done["validate_source"].stdout
    release = workflow.done["validate_release"].stdout
    assert f"VALIDATION FAILED ON {len(POINTS) + len(MANUAL)} CELL(S)!" in release
    assert release.count("Partial credit; passed some but not all of the tests") == len(POINTS)
    assert release.count("You did not provide a response.") == len(MANUAL)


def test_is_the_instructor_told_how_many_answers_are_pending_without_being_stopped(workflow):
    """generate_feedback and release_feedback: the 8 answers alice wrote are pending, the others' left as released
    are not (0, not answered: nobody waits to mark them), exit status 0?"""
    generated, released = workflow.done["generate_feedback"], workflow.done["release_feedback"]
    assert generated.returncode == released.returncode == 0
    assert generated.stderr.count(f"{ASSIGNMENT}：全班有 1 名学生共 8 道书面题待批改（8 分）") == 1  # once a run
    assert f"{ASSIGNMENT}：本次发布的反馈里有 1 名学生共 8 道书面题待批改（8 分）" in released.stderr
    for student in STUDENTS:
        line = f"{student}：{ASSIGNMENT} 还有 8 道书面题待批改（8 分）"
        assert generated.stderr.count(line) == released.stderr.count(line) == (student == ANSWERING)
    assert len(list((workflow.exchange / COURSE_ID / "feedback").glob("*.html"))) == len(STUDENTS)


@pytest.mark.parametrize("student", list(STUDENTS))
def test_does_feedback_name_each_graded_cell_and_show_written_answers_as_pending(workflow, student):
    """Every graded cell under the chapter's name with its score; the 8 answers alice wrote 待批改, never 0; the others'
    left as released 0, not answered?"""
    text, names = _feedback(workflow, student), cell_names(nbformat.read(STUDENT, as_version=4))
    for grade_id, points in zip(POINTS, STUDENTS[student][1]):
        assert f"{names[grade_id]}：{points:g} / {POINTS[grade_id]:g} 分" in text
    for grade_id in MANUAL:
        if student == ANSWERING:
            assert f"{names[grade_id]}：{PENDING} （1 分）" in text and f"{names[grade_id]}：0" not in text
        else:  # left as released: 0 with the reason, at once
            assert f"{names[grade_id]}：0 / 1 分" in text and f"{names[grade_id]}：{PENDING}" not in text
    pending = "；其中 8 道书面题（8 分）还" if student == ANSWERING else "未作答：这里还是发下来时的样子。"
    assert f"目前得分 {sum(STUDENTS[student][1]):g} / 20 分" in text and pending in text
    assert "Test cell" not in text and "Written response" not in text


def test_do_students_fetch_the_release_and_submit_under_their_own_ids(workflow):
    """bob's fetched copy is the release; the inbound holds one `<id>+ch04_attention+<time>+…` per student?"""
    fetched = (workflow.homes["bob"] / ASSIGNMENT / NOTEBOOK).read_text(encoding="utf-8")
    assert fetched == (workflow.course / "release" / ASSIGNMENT / NOTEBOOK).read_text(encoding="utf-8")
    inbound = sorted(p.name.split("+")[:2] for p in (workflow.exchange / COURSE_ID / "inbound").iterdir())
    assert inbound == [[s, ASSIGNMENT] for s in sorted(STUDENTS)]
    for student, home in workflow.homes.items():  # nbgrader's submit cache stayed in that student's home
        assert list((home / ".jupyter" / "data" / "nbgrader_cache" / COURSE_ID).glob(f"{student}+{ASSIGNMENT}+*"))


def test_does_collect_bring_each_submission_with_its_timestamp(workflow):
    """submitted/<student>/ch04_attention/ holds the notebook and nbgrader's timestamp.txt?"""
    for student in STUDENTS:
        folder = workflow.course / "submitted" / student / ASSIGNMENT
        assert (folder / NOTEBOOK).is_file() and (folder / "timestamp.txt").read_text().strip()


@pytest.mark.parametrize("student", list(STUDENTS))
def test_does_the_gradebook_hold_the_expected_scores(workflow, student):
    """Per test cell and in total (no written answers yet: 0 each)?"""
    expected = dict(zip(POINTS, STUDENTS[student][1]))
    scores = gradebook_scores(workflow.course, student)
    assert {g: scores[g] for g in POINTS} == pytest.approx(expected, abs=1e-9)
    assert scores["total"] == pytest.approx(sum(expected.values()), abs=1e-9)


def test_does_the_csv_export_have_one_row_per_student(workflow):
    """grades.csv: score as in the gradebook, out of 20, with the submission's timestamp?"""
    with open(workflow.tmp / "grades.csv", encoding="utf-8") as fh:
        rows = {row["student_id"]: row for row in csv.DictReader(fh)}
    assert {s: float(r["score"]) for s, r in rows.items()} == pytest.approx(
        {s: sum(scores) for s, (_, scores, _) in STUDENTS.items()})
    assert all(r["assignment"] == ASSIGNMENT and float(r["max_score"]) == 20.0 and r["timestamp"]
               for r in rows.values())


@pytest.mark.parametrize("student", list(STUDENTS))
def test_does_feedback_show_each_assertion_and_score(workflow, student):
    """22 visible + 26 hidden [PASS]/[FAIL] lines from the test cells, and each cell's score line?"""
    text = _feedback(workflow, student)
    assert len(re.findall(r"\[(?:PASS|FAIL)\] 隐藏检查 \d+: ", text)) == 7 + 6 + 8 + 5
    assert re.findall(r"本项得分 = (.*)", text) == STUDENTS[student][2]
    assert ("[PASS] out[0][0] = 0.5" if student != "bob" else "[FAIL] out[0][0] = 0.5") in text


def test_does_feedback_name_the_failed_checks_and_the_verify_result(workflow):
    """alice: 全 PASS, no failed hidden check; bob: the lab baseline; carol: exactly her five hidden failures?"""
    alice, bob, carol = (_feedback(workflow, s) for s in ("alice", "bob", "carol"))
    assert "结果: 全 PASS  (22 个断言)" in alice and "[FAIL] 隐藏检查" not in alice
    assert "结果: 11 失败 / 11 通过" in bob
    failed = re.findall(r"\[FAIL\] 隐藏检查 (\d+): (.{4})", carol)
    assert failed == [("2", "大 lo"), ("3", "各行量级"), ("4", "含 -1"), ("3", "大分数（"), ("4", "某一整行")]


def test_does_feedback_show_neither_hidden_tests_nor_solutions(workflow):
    """No line of the master's hidden tests or solutions, nor of the grader, in any feedback (the detector works)?"""
    secret = _secret_lines()
    master_page = visible_text(HTMLExporter().from_filename(str(MASTER))[0])  # rendered like feedback
    assert len([line for line in secret if line in master_page]) >= 0.8 * len(secret) > 30
    secret |= _grader_lines()
    assert len(secret) > 300
    for student in STUDENTS:
        assert [line for line in secret if line in _feedback(workflow, student)] == [], student
    assert 'np.einsum("td,sd->ts", Q, K, out=out)' in _feedback(workflow, "alice")  # a student's own code shows


def test_did_everything_stay_inside_the_temp_dirs(workflow):
    """The real autograde/ gained no exchange, submissions or gradebook entries; the temp course has them all?"""
    before, after = workflow.course_entries
    assert after == before
    assert (workflow.exchange / COURSE_ID / "outbound" / ASSIGNMENT / NOTEBOOK).is_file()
    assert {p.name for p in workflow.course.iterdir()} >= {"release", "submitted", "autograded", "feedback",
                                                          "gradebook.db"}

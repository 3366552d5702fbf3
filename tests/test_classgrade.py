"""Does `make grade` (coursekit.grading) grade a class exactly as serial `nbgrader autograde` does?

Real nbgrader, real kernels, throw-away courses. One class of submissions from the mistake table
is graded twice: by ONE serial `nbgrader autograde` and by `python -m coursekit.grading` with
two workers on the same sqlite gradebook file; the gradebooks, the autograded notebooks and the
feedback must agree (up to timestamps and measured durations). The same course then shows that a
re-run grades only what is missing and that Ctrl-C leaves no process and no half-written result.
Last, a real PostgreSQL 15 gradebook shared by two shards graded at the same time.
"""
import concurrent.futures
import json
import pathlib
import re
import signal
import subprocess
import sys
import time

import nbformat
import pytest
from nbgrader.api import Gradebook

from coursekit.gradebook import resolve_gradebook
from coursekit.grading.selection import parse_shard
from support.course_tools import ASSIGNMENT, POINTS, course_copy, isolated_env, released, run_nbgrader, visible_text
from support.mistakes import MISTAKES, mistake_notebook
from support.postgres_server import postgres_server

# A correct one, one bug per function (TEST 4 differs too), and one nbgrader cannot grade; few, to keep
# the run short: the full table is graded by test_course_matrix.py.
CLASS = ["ok_dot", "bug_no_scale", "bug_mask_multiplied", "bug_softmax_no_max"]
UNGRADABLE = {"broken_json": "{ this is not a notebook"}


def mistake_table(release, students=None):
    """``{student: (notebook, expected scores by grade_id)}`` for the named rows of the table of student
    mistakes (tests/mistakes.py; default: every row). Also used by benchmarks/bench_class.py."""
    rows = [m for m in MISTAKES if students is None or m.name in students]
    return {m.name: (mistake_notebook(release, m), dict(zip(POINTS, m.points))) for m in rows}


def make_course(tmp: pathlib.Path, students, db_url: str = ""):
    """A generated course with ``students`` (and the ungradable ones) in submitted/; (course, env, expected)."""
    course, env = course_copy(tmp), isolated_env(tmp / "home")
    extra = [f"--CourseDirectory.db_url={db_url}"] if db_url else []
    generated = run_nbgrader("generate_assignment", ASSIGNMENT, *extra, cwd=course, env=env)
    assert generated.returncode == 0, generated.stderr[-3000:]
    table = mistake_table(released(course), students)
    contents = {s: nbformat.writes(nb) for s, (nb, _) in table.items()} | UNGRADABLE
    for student, text in contents.items():
        path = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    return course, env, {s: expected for s, (_, expected) in table.items()}


def classgrade(course, env, *args):
    """``python -m coursekit.grading`` run in ``course`` as `make grade` runs it."""
    return subprocess.run([sys.executable, "-m", "coursekit.grading", "--course", str(course), *args],
                          cwd=course, env=env, capture_output=True, text=True, timeout=600)


# ---------- what is compared ----------

def gradebook_dump(db_url, students):
    """Per student: every grade (auto score, max, manual?) and every comment, as nbgrader stores them."""
    with Gradebook(db_url) as gradebook:
        dump = {}
        for student in students:
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            dump[student] = ({g.name: (g.auto_score, g.max_score, g.needs_manual_grade) for g in notebook.grades},
                             {c.name: c.auto_comment for c in notebook.comments})
        return dump


# measured durations ("3.2 µs", "12.50 ms"), speed-ups ("快   132 倍") and timestamps vary from run to run
_TIMES = re.compile(r"\s*\d+(\.\d+)?(?=\s*(ms|µs|us|s|倍)\b)|\d{4}-\d\d-\d\d[ T][\d:.]+(\s*UTC)?")


def cells_dump(path):
    """Every cell's source and outputs; measured durations and timestamps masked.

    Consecutive stdout/stderr chunks are joined first: how the kernel's output is cut into
    stream messages depends on timing (nbclient keeps the cuts unless told to coalesce).
    """
    nb = nbformat.read(path, as_version=4)
    return [(c.cell_type, c.source, _TIMES.sub("<t>", json.dumps(_joined(c.get("outputs", [])), sort_keys=True,
                                                                 ensure_ascii=False))) for c in nb.cells]


def _joined(outputs):
    joined = []
    for output in outputs:
        same_stream = joined and output.output_type == "stream" == joined[-1]["output_type"] \
            and output.name == joined[-1]["name"]
        if same_stream:
            joined[-1] = {**joined[-1], "text": joined[-1]["text"] + output.text}
        else:
            joined.append(dict(output))
    return joined


def feedback_text(course, student):
    """What the feedback page shows, whitespace collapsed (stream cuts become separate <pre> blocks there)."""
    page = course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
    return " ".join(_TIMES.sub("<t>", visible_text(page.read_text(encoding="utf-8"))).split())


# ---------- sqlite: serial vs two workers ----------

@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The same class graded serially and by classgrade with 2 workers: (serial, parallel, runs, expected)."""
    root = tmp_path_factory.mktemp("classgrade")
    serial, serial_env, expected = make_course(root / "serial", CLASS)
    parallel, parallel_env, _ = make_course(root / "parallel", CLASS)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # two independent courses: run side by side
        serial_run = pool.submit(run_nbgrader, "autograde", ASSIGNMENT, cwd=serial, env=serial_env)
        parallel_run = pool.submit(classgrade, parallel, parallel_env, "--workers", "2")
        runs = serial_run.result(), parallel_run.result()
    for course, env in ((serial, serial_env), (parallel, parallel_env)):
        fed = run_nbgrader("generate_feedback", ASSIGNMENT, cwd=course, env=env)
        assert fed.returncode == 0, fed.stderr[-3000:]
    return serial, parallel, runs, expected


@pytest.mark.integration  # real nbgrader workers and kernels: `make test` only
def test_does_classgrade_fail_like_nbgrader(both):
    """Exit status 1 from both (one ungradable notebook); classgrade names the student and nbgrader's reason?"""
    _, _, (serial_run, parallel_run), _ = both
    assert serial_run.returncode == 1 and parallel_run.returncode == 1, parallel_run.stdout + parallel_run.stderr
    failed = [line for line in parallel_run.stdout.splitlines() if line.startswith("  FAILED")]
    assert len(failed) == 1 and "broken_json" in failed[0] and "NotJSONError" in failed[0], parallel_run.stdout
    assert f"[{len(CLASS) + 1}/{len(CLASS) + 1}]" in parallel_run.stdout and "ETA" in parallel_run.stdout


@pytest.mark.integration  # real nbgrader workers and kernels: `make test` only
def test_is_the_gradebook_the_same_as_serial(both):
    """Same grades (auto score, max, manual flag) and auto comments for every student, the ungradable one too?"""
    serial, parallel, _, expected = both
    students = [*CLASS, *UNGRADABLE]
    assert gradebook_dump(f"sqlite:///{parallel / 'gradebook.db'}", students) == \
        gradebook_dump(f"sqlite:///{serial / 'gradebook.db'}", students)
    scores = gradebook_dump(f"sqlite:///{parallel / 'gradebook.db'}", CLASS)
    for student in CLASS:  # and the scores are the table's, so "equal" is not "equally broken"
        assert {g: scores[student][0][g][0] for g in POINTS} == pytest.approx(expected[student], abs=1e-9)


@pytest.mark.integration  # real nbgrader workers and kernels: `make test` only
def test_does_the_class_report_read_a_make_grade_run_as_a_serial_one(both):
    """`make report` after `make grade`: the same students.csv and checks.csv as after `nbgrader autograde`?
    (Before the re-run and Ctrl-C tests below change the parallel course.)"""
    serial, parallel, _, expected = both
    tables = {}
    for course in (serial, parallel):
        done = subprocess.run([sys.executable, "-m", "coursekit.report"], cwd=course, capture_output=True, text=True,
                              env=isolated_env(course.parent / "home"), timeout=600)
        assert done.returncode == 0 and "differ from the gradebook" not in done.stderr, done.stderr
        out = course / "reports" / ASSIGNMENT
        tables[course] = {name: (out / f"{name}.csv").read_text(encoding="utf-8") for name in ("students", "checks")}
    assert tables[parallel] == tables[serial]
    assert "bug_no_scale" in tables[parallel]["students"] and "scores_missing_scale" in tables[parallel]["students"]


@pytest.mark.integration  # real nbgrader workers and kernels: `make test` only
@pytest.mark.parametrize("student", CLASS)
def test_are_autograded_notebook_and_feedback_the_same(both, student):
    """Same cells and outputs in the autograded notebook, same feedback page, up to timestamps and durations?"""
    serial, parallel, _, _ = both
    path = pathlib.Path("autograded", student, ASSIGNMENT, f"{ASSIGNMENT}.ipynb")
    assert cells_dump(parallel / path) == cells_dump(serial / path)
    assert feedback_text(parallel, student) == feedback_text(serial, student)


@pytest.mark.integration  # real nbgrader workers and kernels: `make test` only
def test_does_a_rerun_grade_only_the_missing(both):
    """A second run grades nothing already graded: only the failed student is tried again?"""
    _, parallel, _, _ = both
    env = isolated_env(parallel.parent / "home")
    again = classgrade(parallel, env, "--workers", "2")
    assert again.returncode == 1 and "Grading 1 students" in again.stdout, again.stdout + again.stderr
    assert "broken_json" in again.stdout and not any(s in again.stdout for s in CLASS)


def processes_with_home(home, command="") -> list:
    """Live processes whose environment has HOME=``home`` (the run's graders and kernels), whose
    command line contains ``command``."""
    marker, found = f"HOME={home}".encode() + b"\0", []
    for environ in pathlib.Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker in environ.read_bytes() and command.encode() in (environ.parent / "cmdline").read_bytes():
                found.append(environ.parent.name)
        except OSError:  # gone meanwhile, or not ours to read
            pass
    return found


@pytest.mark.integration  # real nbgrader workers and kernels: `make test` only
def test_does_ctrl_c_stop_cleanly(both):
    """Ctrl-C while students are being graded: status 130, no worker or kernel left, no half-written folder?"""
    _, parallel, _, _ = both
    home = parallel.parent / "home"
    started = time.time()
    run = subprocess.Popen([sys.executable, "-m", "coursekit.grading", "--course", str(parallel), "--force",
                            "--workers", "2"], cwd=parallel, env=isolated_env(home), stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not processes_with_home(home, "ipykernel") and time.monotonic() < deadline:  # a student is graded
            time.sleep(0.2)
        time.sleep(1.0)
        run.send_signal(signal.SIGINT)
        out, _ = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 130 and "Interrupted:" in out, out
    assert processes_with_home(home) == []
    graded = set(re.findall(r"^\[\s*\d+/\d+\] ok +(\S+)", out, re.M))
    assert graded < set(CLASS), out  # someone was interrupted, or the test proves nothing
    for student in CLASS:  # graded now, the previous result untouched (not begun), none, or whole (stopped late)
        notebook = parallel / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        if student in graded:
            assert notebook.stat().st_mtime >= started
        elif notebook.exists() and notebook.stat().st_mtime >= started:
            # interrupted after nbgrader wrote it (grades are saved before the notebook): whole, never half-written
            written = nbformat.read(notebook, as_version=4)
            assert all(c.outputs for c in written.cells if c.metadata.get("nbgrader", {}).get("grade_id") in POINTS)


# ---------- PostgreSQL: one gradebook, two shards at once ----------

@pytest.mark.integration  # real nbgrader workers and kernels: `make test` only
def test_do_two_shards_share_one_postgresql_gradebook(tmp_path):
    """Shards 0/2 and 1/2 graded at the same time into one PostgreSQL 15: every student once, right scores?"""
    students = ["ok_dot", "bug_mask_multiplied"]  # with broken_json: one student in shard 0/2, two in 1/2
    with postgres_server() as server:
        url = gradebook_url(tmp_path, server)
        course, env, expected = make_course(tmp_path, students, db_url=url)
        shards = {s: [x for x in [*students, *UNGRADABLE] if parse_shard(s).holds(x)] for s in ("0/2", "1/2")}
        assert all(shards.values()), shards  # both shards have work, or the test proves nothing
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda s: classgrade(course, env, "--shard", s, "--workers", "1",
                                                      "--db-url", server), shards))
        for shard, run in zip(shards, runs):
            assert f"Grading {len(shards[shard])} students" in run.stdout, run.stdout + run.stderr
        assert sorted(p.name for p in (course / "autograded").iterdir()) == sorted(students)
        dump = gradebook_dump(url, students)
    for student in students:
        assert {g: dump[student][0][g][0] for g in POINTS} == pytest.approx(expected[student], abs=1e-9)


# ---------- arguments ----------

@pytest.mark.parametrize("args, message", [(["--shard", "3/2"], "SHARD must be i/n with 0 <= i < n, got 3/2"),
                                           (["--workers", "0"], "WORKERS must be a positive number")])
def test_does_a_bad_shard_or_worker_count_stop_before_grading(capsys, args, message):
    """SHARD=3/2 or WORKERS=0: a usage error (status 2) that names the rule, before any gradebook or worker?"""
    from coursekit.grading.run import main
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2 and message in capsys.readouterr().err

"""Does `make grade` (coursekit.grading) grade a class exactly as serial `nbgrader autograde` does?

Real nbgrader, real kernels. The students of the serial class (tests/support/classes.py) are
graded twice: by ONE serial `nbgrader autograde` (the serial class) and, among the whole table,
by `python -m coursekit.grading` with two workers (the shared class); the gradebooks, the
autograded notebooks and the feedback must agree (up to timestamps and measured durations). A
copy of the serial class then shows that a re-run grades only what is missing (and a resubmission after marking,
whose rewritten answer waits for the instructor again) and that Ctrl-C leaves no process and no half-written result. Two shards graded at the same time into one PostgreSQL gradebook:
tests/integration/test_gradebook_rule.py.
"""
import json
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

import nbformat
import pytest
from nbgrader.api import Gradebook

from coursekit.language import WORDS
from support import grade_output
from support.classes import ENGLISH, SERIAL, copy_graded, make_grade
from support.course_tools import ASSIGNMENT, POINTS, visible_text
from support.mistakes import BY_NAME
from support.written_answers import questions as written_questions

CLASS = [s for s in SERIAL if s in BY_NAME]  # the gradable students of the serial class


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


def feedback_text(graded, student):
    """What the feedback page shows, whitespace collapsed (stream cuts become separate <pre> blocks there)."""
    page = graded.feedback(student)
    return " ".join(_TIMES.sub("<t>", visible_text(page.read_text(encoding="utf-8"))).split())


# ---------- sqlite: serial vs two workers ----------

def test_does_make_grade_fail_like_nbgrader(serial_class, shared_class):
    """Exit status 1 from both (ungradable notebooks); make grade shows progress for everyone, then the failures?"""
    serial_run, parallel_run = serial_class.run, shared_class.run
    assert serial_run.returncode == 1 and parallel_run.returncode == 1, parallel_run.stdout + parallel_run.stderr
    total = len(shared_class.expected)
    shown = grade_output.section(parallel_run.stdout)
    eta = grade_output.words()["line"].split("{failed}")[1].split("{eta}")[0].strip(" ·")  # "ETA" in English
    assert f"[{total}/{total}]" in shown and eta in shown
    assert "NotJSONError" in grade_output.failed(shown)["c_invalid_json"], parallel_run.stdout


def test_is_the_gradebook_the_same_as_serial(serial_class, shared_class):
    """Same grades (auto score, max, manual flag) and auto comments for every student, the ungradable ones too?"""
    students = list(serial_class.expected)
    parallel = gradebook_dump(f"sqlite:///{shared_class.course / 'gradebook.db'}", students)
    assert parallel == gradebook_dump(f"sqlite:///{serial_class.course / 'gradebook.db'}", students)
    for student in CLASS:  # and the scores are the table's, so "equal" is not "equally broken"
        expected = dict(zip(POINTS, serial_class.expected[student]))
        assert {g: parallel[student][0][g][0] for g in POINTS} == pytest.approx(expected, abs=1e-9)


def test_does_the_class_report_read_a_make_grade_run_as_a_serial_one(serial_class, shared_class, tmp_path):
    """`make report` after `make grade`: the same students.csv and checks.csv as after `nbgrader autograde`?
    (The shared class is cut down to the serial class's students first.)"""
    parallel = copy_graded(shared_class, tmp_path / "parallel")
    with Gradebook(f"sqlite:///{parallel.course / 'gradebook.db'}") as gradebook:
        for student in [s.id for s in gradebook.students if s.id not in serial_class.expected]:
            gradebook.remove_student(student)
            for folder in ("submitted", "autograded", "feedback"):
                shutil.rmtree(parallel.course / folder / student, ignore_errors=True)
    tables = {}
    for graded in (serial_class, parallel):
        out = tmp_path / graded.course.parent.name / "report"
        done = subprocess.run([sys.executable, "-m", "coursekit.report", "--assignment", ASSIGNMENT, "--out", str(out)],
                              cwd=graded.course, capture_output=True, text=True, env=graded.env, timeout=600)
        differ = WORDS.template("zh", "report.command.warning").split("{n}")[1].split("（")[0]  # "… cell scores differ from the gradebook"
        assert done.returncode == 0 and differ not in done.stderr, done.stderr
        tables[graded is parallel] = {name: (out / f"{name}.csv").read_text(encoding="utf-8")
                                      for name in ("students", "checks")}
    assert tables[True] == tables[False]
    assert "bug_no_scale" in tables[True]["students"] and "scores_missing_scale" in tables[True]["students"]


@pytest.mark.parametrize("student", CLASS)
def test_are_autograded_notebook_and_feedback_the_same(serial_class, shared_class, student):
    """Same cells and outputs in the autograded notebook, same feedback page, up to timestamps and durations?"""
    assert cells_dump(shared_class.notebook(student)) == cells_dump(serial_class.notebook(student))
    assert feedback_text(shared_class, student) == feedback_text(serial_class, student)


def test_does_make_grade_say_what_each_students_kernel_and_worker_cost(shared_class):
    """last-run.json (read by benchmarks/bench_class.py): the CPU seconds of every graded student's kernel, a
    forked one included (not a child of the worker, so getrusage never counts it), and of the worker, for each
    assignment the run graded (both editions here)?"""
    outcomes = json.loads((shared_class.course / "grading-logs" / "last-run.json").read_text(encoding="utf-8"))
    graded = [outcome for outcome in outcomes if outcome["ok"]]
    assert len(graded) > 30 and {o["assignment"] for o in outcomes} == {ASSIGNMENT, ENGLISH}
    assert all(o["timings"]["kernel_cpu"] > 0.05 and o["timings"]["worker_cpu"] > 0.05 for o in graded), graded[:3]


def _resubmit_after_marking(course, student: str) -> tuple:
    """``student``'s first two written answers marked 1 point each with a comment; then a resubmission in which the
    second answer is rewritten (a newer timestamp). (the unchanged question, the rewritten one)"""
    kept, rewritten = written_questions()[:2]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for question in (kept, rewritten):
            gradebook.find_grade(question, ASSIGNMENT, ASSIGNMENT, student).manual_score = 1.0
            gradebook.find_comment(question, ASSIGNMENT, ASSIGNMENT, student).manual_comment = "✓"
        gradebook.db.commit()
    folder = course / "submitted" / student / ASSIGNMENT
    nb = nbformat.read(folder / f"{ASSIGNMENT}.ipynb", as_version=4)
    next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == rewritten).source = "改过的回答"
    nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
    (course / "autograded" / student / ASSIGNMENT / "timestamp.txt").write_text("2026-12-01 08:00:00.000000 UTC")
    (folder / "timestamp.txt").write_text("2026-12-02 08:00:00.000000 UTC")  # submitted again a day after
    return kept, rewritten


def test_does_a_rerun_grade_only_the_missing_and_the_resubmitted(serial_class, tmp_path):
    """After a whole run, another grades nothing already graded: only the failed students and one who resubmitted
    after marking are graded again; that student's unchanged answer keeps its mark, the rewritten one waits for the
    instructor again (its mark and comment cleared, make grade says so)?"""
    graded = copy_graded(serial_class, tmp_path)
    student = CLASS[0]
    kept, rewritten = _resubmit_after_marking(graded.course, student)
    again = make_grade(graded.course, graded.env, "--workers", "2")
    failed = sorted(graded.reasons)
    assert again.returncode == 1 and grade_output.header(count=len(failed) + 1) in again.stdout, \
        again.stdout + again.stderr
    assert all(s in again.stdout for s in failed) and not any(s in again.stdout for s in CLASS if s != student)
    with Gradebook(f"sqlite:///{graded.course / 'gradebook.db'}") as gradebook:
        marks = {q: (gradebook.find_grade(q, ASSIGNMENT, ASSIGNMENT, student).manual_score,
                     gradebook.find_comment(q, ASSIGNMENT, ASSIGNMENT, student).manual_comment) for q in (kept, rewritten)}
    assert marks == {kept: (1.0, "✓"), rewritten: (None, None)}
    assert grade_output.notes(again.stdout, student) == [grade_output.note(student, "remark", grade_id=rewritten)]


def processes_with_home(home, command="") -> list:
    """Live processes whose environment has HOME=``home`` (the run's graders and kernels), whose
    command line contains ``command``."""
    marker, found = (f"HOME={home}".encode() + b"\0" if home else b""), []
    for environ in pathlib.Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker in environ.read_bytes() and command.encode() in (environ.parent / "cmdline").read_bytes():
                found.append(environ.parent.name)
        except OSError:  # gone meanwhile, or not ours to read
            pass
    return found


def test_does_ctrl_c_stop_cleanly(serial_class, tmp_path):
    """Ctrl-C while students are being graded: status 130, no worker or kernel left, no half-written folder?"""
    graded = copy_graded(serial_class, tmp_path)
    parallel, home = graded.course, tmp_path / "home"
    started = time.time()
    run = subprocess.Popen([sys.executable, "-m", "coursekit.grading", "--course", str(parallel), "--force",
                            "--workers", "2"], cwd=parallel, env=graded.env, stdout=subprocess.PIPE, text=True)
    try:
        first = [run.stdout.readline()]
        while first[-1] and not first[-1].startswith("["):  # the first student graded: the others are in progress
            first.append(run.stdout.readline())
        time.sleep(0.3)
        run.send_signal(signal.SIGINT)
        out = "".join(first) + run.communicate(timeout=120)[0]
    finally:
        run.kill()
    assert run.returncode == 130 and grade_output.summary(out, "Interrupted"), out
    # its workers and their sandboxes' bubblewrap (whose templates and kernels cannot outlive it) are gone
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

"""Does ``python -m coursekit.report`` (what ``make report`` runs) finish on a class of 1,000 and name what is missing?"""
import os
import subprocess
import sys
import time

from coursekit.paths import REPO
from support.synthetic_class import ASSIGNMENT, make_student, write_class


def _big_class(course, n):
    students = [make_student(f"s{i:04d}", failing=("test1.hidden.rect_random",) if i % 3 else ()) for i in range(n)]
    for i, student in enumerate(students[:n // 10]):
        student.payloads[0]["findings"] = [{"stage": "scores", "bug": "scores_k_qt", "probe": "p", "message": "m"}]
    return write_class(course, students)


def test_a_class_of_1000(tmp_path):
    """Does `python -m coursekit.report` (what `make report` runs) finish on 1,000 students, with progress?"""
    _big_class(tmp_path, 1000)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "coursekit.report", "--course", str(tmp_path)],
                          cwd=REPO / "autograde", capture_output=True, text=True, timeout=600,
                          env={**os.environ, "DB_URL": ""})
    seconds = time.perf_counter() - start
    print(f"\nreport of 1000 students: {seconds:.1f} s")
    assert done.returncode == 0, done.stderr
    assert "read 1000/1000 autograded notebooks" in done.stderr
    assert "1000 students — 1000 graded" in done.stderr
    lines = (tmp_path / "reports" / ASSIGNMENT / "mistakes.csv").read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith("scores_k_qt,scores,100,0.1000,")


def test_the_command_names_what_is_missing(tmp_path):
    """Without a gradebook, or for an assignment it lacks, does the command say so (exit 2, no traceback)?"""
    def run(*args):
        return subprocess.run([sys.executable, "-m", "coursekit.report", "--course", str(tmp_path), *args],
                              cwd=REPO / "autograde", capture_output=True, text=True, timeout=300,
                              env={**os.environ, "DB_URL": ""})
    missing = run()
    assert missing.returncode == 2 and "no gradebook at sqlite:///" in missing.stderr
    write_class(tmp_path, [make_student("alice")])
    other = run("--assignment", "ch05")
    assert other.returncode == 2 and "assignment 'ch05' is not in the gradebook" in other.stderr
    assert "Traceback" not in other.stderr

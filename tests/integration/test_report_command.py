"""Does ``python -m coursekit.report`` (what ``make report`` runs) finish on a class of 1,000 and name what is missing?"""
import os
import subprocess
import sys
import time

from coursekit.paths import REPO
from coursekit.language import WORDS
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
    assert WORDS.say("zh", "report.command.read", done=1000, total=1000) in done.stderr  # the course's language: Chinese by default
    assert WORDS.template("zh", "report.command.summary").split("{not_graded}")[0].format(assignment=ASSIGNMENT, students=1000, graded=1000) \
        in done.stderr
    lines = (tmp_path / "reports" / ASSIGNMENT / "mistakes.csv").read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith("scores_k_qt,scores,100,0.1000,")


def test_the_command_names_what_is_missing(tmp_path):
    """Without a gradebook, or for an assignment it lacks, does the command say so (exit 2, no traceback)?"""
    def run(*args):
        return subprocess.run([sys.executable, "-m", "coursekit.report", "--course", str(tmp_path), *args],
                              cwd=REPO / "autograde", capture_output=True, text=True, timeout=300,
                              env={**os.environ, "DB_URL": ""})
    missing = run()
    assert missing.returncode == 2 and WORDS.template("zh", "report.command.no_gradebook").split("{gradebook}")[1].split("{")[0] in missing.stderr
    assert "sqlite:///" in missing.stderr
    write_class(tmp_path, [make_student("alice")])
    other = run("--assignment", "ch05")
    assert other.returncode == 2 and "'ch05'" in other.stderr
    assert WORDS.template("zh", "report.command.not_in_gradebook").split("{assignment!r}")[1].split("{")[0] in other.stderr
    assert "Traceback" not in other.stderr


def test_does_make_report_write_one_report_per_edition_in_the_courses_language(tmp_path):
    """Without --assignment: a report for each edition in the gradebook (the English assignment's too), each in the
    course's language: Chinese by default, English with c.CourseKit.language = "en" (its words, not its students')?
    The config names a grader this course lacks: said, and the reports still written."""
    from coursekit.paths import COURSE

    for edition in ("ch04_attention", "ch04_attention_en"):
        write_class(tmp_path, [make_student("alice")], assignment=edition)
    (tmp_path / "nbgrader_config.py").write_text((COURSE / "nbgrader_config.py").read_text(encoding="utf-8"))
    done = subprocess.run([sys.executable, "-m", "coursekit.report", "--course", str(tmp_path)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "DB_URL": ""})
    assert done.returncode == 0, done.stderr
    assert WORDS.say("zh", "report.command.no_grader", grader=tmp_path / "grader" / "__init__.py") in done.stderr
    pages = {edition: (tmp_path / "reports" / edition / "index.html").read_text(encoding="utf-8")
             for edition in ("ch04_attention", "ch04_attention_en")}
    assert all("<html lang='zh-CN'>" in page and "每个学生一行" in page for page in pages.values())
    with open(tmp_path / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.CourseKit.language = "en"\n')
    done = subprocess.run([sys.executable, "-m", "coursekit.report", "--course", str(tmp_path)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "DB_URL": ""})
    assert done.returncode == 0 and "report: " in done.stderr and "报告" not in done.stderr, done.stderr
    page = (tmp_path / "reports" / "ch04_attention_en" / "index.html").read_text(encoding="utf-8")
    assert "<html lang='en'>" in page and "<h1>Class report: ch04_attention_en</h1>" in page

"""Wall time of the class report (`python -m coursekit.report`, what `make report` runs) on a big class.

Run: .venv/bin/python benchmarks/bench_report.py [--students 1000] [--kilobytes 300]
Builds a synthetic graded class in a temporary directory (tests/synthetic_class.py: a real
nbgrader gradebook, autograded notebooks carrying the grader's payloads) and pads every
notebook with a PNG-sized output, as the chapter's figures make real autograded notebooks
a few hundred kB. Prints the report's wall time; nothing is written outside the temp dir.
"""
import base64
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import nbformat

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde")]
import benchcli  # noqa: E402
from support.synthetic_class import ASSIGNMENT, make_student, write_class  # noqa: E402


def pad(course: pathlib.Path, kilobytes: int) -> None:
    """Add one image output of ``kilobytes`` to each autograded notebook's first cell."""
    image = base64.b64encode(os.urandom(kilobytes * 768)).decode()
    for path in course.glob(f"autograded/*/{ASSIGNMENT}/*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell("plot()", outputs=[
            nbformat.v4.new_output("display_data", data={"image/png": image})]))
        nbformat.write(nb, path)


def main(students: int = 1000, kilobytes: int = 300) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        course = pathlib.Path(tmp)
        write_class(course, [make_student(f"s{i:04d}") for i in range(students)])
        pad(course, kilobytes)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "coursekit.report", "--course", str(course)],
                              cwd=REPO / "autograde", capture_output=True, text=True)
        seconds = time.perf_counter() - start
        assert done.returncode == 0, done.stderr[-2000:]
        size = sum(p.stat().st_size for p in course.glob("autograded/**/*.ipynb")) / 1e6
    print(f"{students} students, {size:.0f} MB of autograded notebooks: report in {seconds:.1f} s")


if __name__ == "__main__":
    parser = benchcli.parser(__doc__, {"students": 3, "kilobytes": 1})
    parser.add_argument("--students", type=int, default=1000, help="students in the synthetic class")
    parser.add_argument("--kilobytes", type=int, default=300, help="kB of figure output in each notebook")
    arguments = benchcli.parse(parser)
    main(arguments.students, arguments.kilobytes)

"""Wall time of `nbgrader autograde`: one submission vs the whole submission matrix, one run.

Run: .venv/bin/python benchmarks/bench_autograde.py [--students N]
Builds two throw-away copies of the course (autograde/), puts one correct submission into the
first and every row of the mistake table (tests/support/mistakes.py) into the second, and times the real
`nbgrader autograde` in each (start-up included). The marginal cost of one more submission is
(matrix - one) / (N - 1). Nothing is written outside a temporary directory.
"""
import pathlib
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde")]  # the shared test support; the grader it names
import benchcli  # noqa: E402
from support.classes import submit, table_rows  # noqa: E402
from support.course_tools import ASSIGNMENT, course_copy, isolated_env, run_nbgrader  # noqa: E402
from support.mistakes import MISTAKES  # noqa: E402


def timed_autograde(tmp: pathlib.Path, students) -> float:
    """Seconds for one `nbgrader autograde` over the named rows of the mistake table."""
    course, env = course_copy(tmp), isolated_env(tmp / "home")
    assert run_nbgrader("generate_assignment", ASSIGNMENT, cwd=course, env=env).returncode == 0
    submit(course, table_rows(students))
    start = time.perf_counter()
    result = run_nbgrader("autograde", ASSIGNMENT, cwd=course, env=env)
    seconds = time.perf_counter() - start
    assert result.returncode == 0, result.stderr[-2000:]
    return seconds


def main() -> None:
    parser = benchcli.parser(__doc__, {"students": 1})
    parser.add_argument("--students", type=int, default=len(MISTAKES),
                        help="rows of the mistake table in the matrix (every row by default)")
    students = [m.name for m in MISTAKES][:benchcli.parse(parser).students]
    with tempfile.TemporaryDirectory() as tmp:
        one = timed_autograde(pathlib.Path(tmp) / "one", students[:1])
        every = timed_autograde(pathlib.Path(tmp) / "matrix", students) if len(students) > 1 else None
    n = len(students)
    print(f"{'submissions':>11} {'wall (s)':>9} {'per submission (s)':>19}")
    print(f"{1:>11} {one:>9.1f} {one:>19.1f}")
    if every is None:  # one submission: the matrix is the same run
        return
    print(f"{n:>11} {every:>9.1f} {every / n:>19.1f}")
    print(f"marginal cost of one more submission: {(every - one) / (n - 1):.1f} s "
          f"(start-up and the first kernel ≈ {one - (every - one) / (n - 1):.1f} s)")


if __name__ == "__main__":
    main()

"""Wall time of `nbgrader autograde`: one submission vs the whole submission matrix, one run.

Run: .venv/bin/python benchmarks/bench_autograde.py
Builds two throw-away copies of the course (autograde/), puts one correct submission into the
first and every submission of tests/test_course_matrix.py (the mistake table) into the second, and times the real
`nbgrader autograde` in each (start-up included). The marginal cost of one more submission is
(matrix - one) / (N - 1). Nothing is written outside a temporary directory.
"""
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
from test_course_matrix import EXPECTED, class_submissions  # noqa: E402

from support.course_tools import autograde_class  # noqa: E402
from support.mistakes import submission  # noqa: E402


def timed_autograde(tmp: pathlib.Path, make_submissions) -> float:
    """Seconds for one `nbgrader autograde` over the submissions ``make_submissions(release)`` builds."""
    _, _, result, seconds = autograde_class(tmp, make_submissions)
    assert result.returncode == 0, result.stderr[-2000:]
    return seconds


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        one = timed_autograde(pathlib.Path(tmp) / "one", lambda release: {"ok_dot": submission(release)})
        every = timed_autograde(pathlib.Path(tmp) / "matrix", class_submissions)
    n = len(EXPECTED)
    print(f"{'submissions':>11} {'wall (s)':>9} {'per submission (s)':>19}")
    print(f"{1:>11} {one:>9.1f} {one:>19.1f}")
    print(f"{n:>11} {every:>9.1f} {every / n:>19.1f}")
    print(f"marginal cost of one more submission: {(every - one) / (n - 1):.1f} s "
          f"(start-up and the first kernel ≈ {one - (every - one) / (n - 1):.1f} s)")


if __name__ == "__main__":
    main()

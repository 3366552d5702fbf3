"""Does every benchmark still run against today's pages, commands and files? Each one's ``--smoke`` (tiny sizes).

A bench that breaks silently costs a release its figures (#59: bench_notify waited 15 minutes for a Submit button it
looked for by its English word). Here each bench of ``benchmarks/`` runs as its README line says, with ``--smoke``
(benchmarks/benchcli.py: the sizes each names), two at a time, and must end with status 0 and print its table. The
benches that time a page a walk opens anyway take their steps in that walk (``RIDES``: the walk imports the bench and
calls its functions on its own server and browser, at no start of its own): the two hub benches on the session hub
(tests/integration/test_hub.py; ``--smoke`` runs them on a hub of their own, as root), bench_marking_page on the
marking page's class (test_marking_page.py), bench_explorer_browser's columns in JupyterLab (test_browser.py) and on
the static page (test_book.py), bench_submit on the grading service's module (test_service.py). bench_marking's smoke runs in the unit tier (tests/unit/test_bench_marking.py). Each
bench's options, defaults shown by ``--help``: tests/unit/test_benchcli.py.
"""
import concurrent.futures
import os
import pathlib
import subprocess
import sys

import pytest

from coursekit.sandbox import missing_tool

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
BENCHES = sorted(path.stem for path in BENCHMARKS.glob("bench_*.py"))
# smoked elsewhere: the walks take the steps of the benches that time their pages, the unit tier runs bench_marking's
# smoke in-process
RIDES = {"bench_hub": ("integration/test_hub.py",), "bench_notify": ("integration/test_hub.py",),
         "bench_marking_page": ("integration/test_marking_page.py",), "bench_submit": ("integration/test_service.py",),
         "bench_explorer_browser": ("integration/test_browser.py", "integration/test_book.py"),
         "bench_marking": ("unit/test_bench_marking.py",)}
SMOKE_SECONDS = 600  # one smoke at most, on two busy cores
# the longest smokes (≈ 13 s and 9 s quiet, the others ≤ 4 s), started first: in name order one came last and ran
# alone while the other lane had nothing left
LONGEST = ("bench_class", "bench_autograde")


def _smoke(bench: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCHMARKS / f"{bench}.py"), "--smoke"], cwd=BENCHMARKS.parent,
                          capture_output=True, text=True, timeout=SMOKE_SECONDS, env={**os.environ, "COLUMNS": "200"})


@pytest.fixture(scope="module")
def smoked():
    """{bench: its --smoke run} of every bench not taken by a walk, two at a time."""
    problem = missing_tool()  # the grading benches grade in the sandbox, as make grade does
    if problem:
        pytest.fail(problem) if os.environ.get("CI") == "true" else pytest.skip(problem)
    benches = sorted((bench for bench in BENCHES if bench not in RIDES), key=lambda bench: bench not in LONGEST)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(benches, pool.map(_smoke, benches)))


@pytest.mark.parametrize("bench", [bench for bench in BENCHES if bench not in RIDES])
def test_does_the_bench_run_at_tiny_sizes(smoked, bench):
    """``--smoke`` ends with status 0 and prints its figures (a line of numbers at least)?"""
    done = smoked[bench]
    assert done.returncode == 0, f"{bench} --smoke exited {done.returncode}:\n{done.stderr[-3000:]}"
    assert any(ch.isdigit() for ch in done.stdout), done.stdout[-2000:]


def test_is_every_bench_smoked_here_or_by_the_test_that_takes_its_steps():
    """Every bench is run above, or named by each test that runs its smoke or its steps?"""
    tests = pathlib.Path(__file__).resolve().parents[1]
    for bench, walks in RIDES.items():
        assert bench in BENCHES and all(bench in (tests / walk).read_text(encoding="utf-8") for walk in walks), bench
    assert set(BENCHES) - set(RIDES), "no bench left to run here"
    assert set(LONGEST) <= set(BENCHES) - set(RIDES), "a bench started first is gone, or taken by a walk"

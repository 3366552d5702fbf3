"""Does pytest-xdist keep a group's tests in one worker, as ``make test`` relies on (tests/conftest.py)?

Two modules marked with the same ``xdist_group`` and two ungrouped ones, run with two workers:
each test writes which worker ran it. pytest 9.2 broke this silently (the group suffix of a
node id is no longer read), so both shared set-ups were made twice: hence the pin in pyproject.toml.
"""
import subprocess
import sys
import textwrap

MODULE = textwrap.dedent('''
    import os, pathlib, time
    import pytest
    {mark}
    @pytest.mark.parametrize("k", range(4))
    def test_records_its_worker(k):
        time.sleep(0.05)  # long enough for the other worker to ask for work
        pathlib.Path("{out}", "{name}-%d" % k).write_text(os.environ["PYTEST_XDIST_WORKER"])
''')


def test_are_grouped_tests_run_by_one_worker(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for name, mark in (("a", 'pytestmark = pytest.mark.xdist_group("shared")'),
                       ("b", 'pytestmark = pytest.mark.xdist_group("shared")'), ("c", ""), ("d", "")):
        (tmp_path / f"test_{name}.py").write_text(MODULE.format(mark=mark, out=out, name=name))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                          "--dist", "loadgroup", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    workers = {path.name: path.read_text() for path in out.iterdir()}
    grouped = {workers[f"{name}-{k}"] for name in "ab" for k in range(4)}
    assert len(workers) == 16 and len(grouped) == 1, workers

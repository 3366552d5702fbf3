"""How long each shared set-up took, said once at the end of ``make test`` (tests/conftest.py).

A shared set-up (a graded class, the session hub, an environment build, a generated course, a JupyterLab with
Chromium) is made by a fixture that wraps its work in :func:`timed`. The seconds are kept in the run's
``config.stash`` (one per process); a pytest-xdist worker hands its own to the controller when it ends
(``workeroutput``), and the controller prints one line per set-up after pytest's durations.
"""
import contextlib
import json
import time

import pytest

__all__ = ["timed", "record", "worker_output", "merge_worker", "summary_lines"]

_KEY = pytest.StashKey[list]()
_OUTPUT = "coursekit_setups"


def _seen(config) -> list:
    if _KEY not in config.stash:
        config.stash[_KEY] = []
    return config.stash[_KEY]


def record(request, name: str, seconds: float) -> None:
    """``seconds`` spent on the shared set-up ``name`` (``request``: the fixture's, for the run's config)."""
    worker = getattr(request.config, "workerinput", {}).get("workerid", "main")
    _seen(request.config).append({"name": name, "seconds": seconds, "worker": worker})


@contextlib.contextmanager
def timed(request, name: str):
    """Time the block as the shared set-up ``name``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        record(request, name, time.perf_counter() - start)


def worker_output(config) -> None:
    """In a pytest-xdist worker, at its session's end: its set-ups for the controller."""
    if hasattr(config, "workeroutput"):
        config.workeroutput[_OUTPUT] = json.dumps(_seen(config))


def merge_worker(config, node) -> None:
    """In the controller, when a worker ends: its set-ups joined to the run's."""
    _seen(config).extend(json.loads(getattr(node, "workeroutput", {}).get(_OUTPUT, "[]")))


def summary_lines(config) -> list:
    """One line per set-up made in this run, longest first: ``name  seconds  worker``."""
    rows = sorted(_seen(config), key=lambda row: -row["seconds"])
    return [f"{row['seconds']:7.1f} s  {row['name']}  ({row['worker']})" for row in rows]

"""One SQLAlchemy engine per gradebook URL in a process, instead of one per ``Gradebook``.

nbgrader opens a ``Gradebook`` about eight times per graded notebook (``nbgrader.api.Gradebook``:
each calls ``create_engine``). SQLAlchemy keeps the SQL it has compiled in the engine, so every
new engine compiles every ORM query again: profiled in a ``make grade`` worker, about 0.1 s of CPU
per student. :func:`share_engines` makes ``nbgrader.api`` create each URL's engine once and hand
the same one out again. ``Gradebook.close()`` still disposes of it, which closes its pooled
connections; the next ``Gradebook`` opens new ones through the same engine, so no connection is
kept between uses. The engine is this process's only (a forked child makes its own). Idempotent;
it affects only the process that imports the course's plugins.
"""
import os
import threading

import sqlalchemy
from nbgrader import api

__all__ = ["share_engines", "create_engine"]

_ENGINES = {}  # {(pid, url, options): engine}
_LOCK = threading.Lock()


def create_engine(url, **options):
    """SQLAlchemy's ``create_engine``, made once per (process, URL, options)."""
    key = (os.getpid(), str(url), tuple(sorted(options.items())))
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = sqlalchemy.create_engine(url, **options)
    return engine


def share_engines() -> None:
    """Point ``nbgrader.api`` at :func:`create_engine` (once)."""
    api.create_engine = create_engine

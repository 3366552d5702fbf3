"""One SQLAlchemy engine per gradebook URL in a process, instead of one per ``Gradebook``.

nbgrader opens a ``Gradebook`` about eight times per graded notebook (``nbgrader.api.Gradebook``:
each calls ``create_engine``). SQLAlchemy keeps the SQL it has compiled in the engine, so every
new engine compiles every ORM query again: profiled in a ``make grade`` worker, about 0.1 s of CPU
per student. :func:`share_engines` makes ``nbgrader.api`` create each URL's engine once and hand
the same one out again. ``Gradebook.close()`` still disposes of it, which closes its pooled
connections; the next ``Gradebook`` opens new ones through the same engine, so no connection is
kept between uses. The engine is this process's only (a forked child makes its own).

Each ``Gradebook`` also makes sure that all of nbgrader's tables exist: ``create_all`` asks
for each table on its own (≈ 0.5 ms, nine times per student). :func:`share_engines` first lists
the tables in one query, and lets ``create_all`` run only when one is missing. And each makes a new
``sessionmaker``, which is a new ``Session`` subclass whose event hooks SQLAlchemy sets up again on its
first use (≈ 0.4 ms per ``Gradebook``): :func:`sessionmaker` hands out one per engine. Every
``Gradebook`` still gets a session of its own. Idempotent; it affects only the process that imports the
course's plugins.
"""
import os
import threading

import sqlalchemy
import sqlalchemy.orm
from nbgrader import api

__all__ = ["share_engines", "create_engine", "create_all", "sessionmaker"]

_ENGINES = {}  # {(pid, url, options): engine}
_FACTORIES = {}  # {(pid, engine, options): session factory}
_LOCK = threading.Lock()
_create_all = api.Base.metadata.create_all  # nbgrader's own, bound to its MetaData


def create_engine(url, **options):
    """SQLAlchemy's ``create_engine``, made once per (process, URL, options)."""
    key = (os.getpid(), str(url), tuple(sorted(options.items())))
    with _LOCK:
        engine = _ENGINES.get(key)
        if engine is None:
            engine = _ENGINES[key] = sqlalchemy.create_engine(url, **options)
    return engine


def create_all(bind=None, **options) -> None:
    """nbgrader's ``Base.metadata.create_all``, run only when one of its tables is missing."""
    if set(api.Base.metadata.tables) - set(sqlalchemy.inspect(bind).get_table_names()):
        _create_all(bind=bind, **options)


def sessionmaker(bind=None, **options):
    """SQLAlchemy's ``sessionmaker``, made once per (process, engine, options)."""
    key = (os.getpid(), bind, tuple(sorted(options.items())))
    with _LOCK:
        factory = _FACTORIES.get(key)
        if factory is None:
            factory = _FACTORIES[key] = sqlalchemy.orm.sessionmaker(bind=bind, **options)
    return factory


def share_engines() -> None:
    """Point ``nbgrader.api`` at :func:`create_engine`, :func:`create_all` and :func:`sessionmaker` (once)."""
    api.create_engine = create_engine
    api.Base.metadata.create_all = create_all
    api.sessionmaker = sessionmaker

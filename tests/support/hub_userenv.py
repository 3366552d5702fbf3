"""The hub tests' user environment: built for each test hub, in the hub's own folder, by ``make hub``'s code.

The hub's servers run a shared user environment (:mod:`hub.userenv`) that every student must reach,
while the repository, and so ``.state/``, is closed to them during the tests. :func:`build` makes one
with :func:`hub.userenv.ensure` in the hub's temporary folder, which is removed with the hub. Nothing
is kept from an earlier run, so a missing install step fails here as it would in a fresh clone; what
makes it take seconds is uv's package cache: the packages are hard-linked from it, and so is the
bytecode the project's ``.venv`` compiled for the same files (``link_from_cache``; :mod:`hub.userenv`
says why ``make hub`` copies instead). Each phase's seconds are in the environment's stamp and in the
line :func:`hub.userenv.ensure` prints.
"""
import pathlib

from hub import userenv

__all__ = ["build"]


def build(dest) -> pathlib.Path:
    """A new user environment in the new folder ``dest`` (its base interpreter beside it when copied); its
    prefix, ``dest/user``."""
    prefix = pathlib.Path(dest) / "user"
    userenv.ensure(prefix, link_from_cache=True)
    return prefix

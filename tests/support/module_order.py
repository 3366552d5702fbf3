"""The order ``make test`` runs its test modules in (tests/conftest.py): shuffled by the run's seed, the long shared
set-ups first.

Under pytest-xdist each shared set-up (a graded class, the session hub) is one unit of work that one worker runs
from start to end, minutes long; started last, it alone would decide when the run ends. So the modules of the
shared groups go first, each group led by the module whose set-up the others reuse (``LEADS``: test_hub.py walks the
loop the other hub modules need; after any other first module, each of them walks it again with nbgrader's CLI).
Then the other integration modules, then the unit tier: pytest-xdist hands out its units of work with the most tests
first (``--loadscope-reorder``), so a module of one integration test ties with each unit test, and the seed could put a
15 s one last, its worker still busy while the other has nothing left. Every other order of the modules is the seed's.
The modules still pass in any order (each starts its own loop when it has to); the seed keeps varying the order within
each tier.
"""
import pathlib
import random

__all__ = ["LEADS", "module_order"]

LEADS = ("test_hub.py",)  # within its group: first, so that the others find its state


def module_order(modules: dict, seed: int) -> list:
    """``modules``: {path: the shared group it belongs to, or None}; the paths in the order to run them. Seed 0:
    the order given (file order)."""
    order = list(modules)
    if seed == 0:
        return order
    order = sorted(order)
    random.Random(seed).shuffle(order)
    return sorted(order, key=lambda path: (modules[path] is None, not path.endswith(LEADS),
                                           "integration" not in pathlib.PurePath(path).parts))

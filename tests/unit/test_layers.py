"""Do coursekit's imports run only downward, with no circle: can a reader follow a submission's route from the top
without ever being sent back up?

The floors, from the bottom (coursekit's package docstring says the same in words): ``upstream`` (what is copied or
patched of upstream packages); the modules at coursekit's top, which every job shares; ``sandbox``; ``kernel`` (the
grading kernel nbgrader's ``Execute`` drives); ``lms``; ``grading`` (``make grade``); ``service`` (built on
grading's workers); ``plugins`` (what ``nbgrader_config.py`` plugs into nbgrader's converters and the students'
server); and the instructor's tools on top, ``report`` and ``marking``, neither importing the other. A module imports
only from its own floor or below; among the top modules, only those listed before it in :data:`TOP_ORDER`. Imports
are read from the code's ``ast``, relative ones resolved, lazy ones (inside a function) included.
"""
import ast
import pathlib

import pytest

from coursekit.paths import REPO

PACKAGE = REPO / "autograde" / "coursekit"
FLOORS = ("upstream", "", "sandbox", "kernel", "lms", "grading", "service", "plugins", "report")  # "": the top modules
TOP = FLOORS.index("")
SAME_FLOOR = {"marking": "report"}  # the instructor's tools share the top floor and do not import each other
# the top modules, bottom first: each may import only those before it
TOP_ORDER = ("environ", "contrast", "locks", "language", "printable", "sanitise", "paths", "record", "student_files", "settings",
             "identity", "seeds", "assignments", "cell_names", "stubs", "gradebook", "people", "due", "late", "grades", "export",
             "faults", "canary",
             "autograded", "inbound", "exchange", "regrades", "regrade_book")


def imported(path: pathlib.Path) -> set:
    """The coursekit modules and names ``path`` imports, as ``coursekit.a.b``."""
    package = path.relative_to(PACKAGE.parent).parts[:-1]  # what a relative import starts from
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join((*base, *(node.module.split(".") if node.module else ())))
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("coursekit.")}


def place(module: str) -> tuple:
    """``(floor, name)`` of ``coursekit.x…``: a package's floor in :data:`FLOORS`, or the top modules' with its name."""
    first = module.split(".")[1]
    if (PACKAGE / first).is_dir():
        return FLOORS.index(SAME_FLOOR.get(first, first)), first
    return TOP, first


def runs_back_up(source: tuple, target: tuple) -> bool:
    """Does an import from ``source`` to ``target`` (each a :func:`place`) run up, or sideways between top tools?"""
    (low, name), (high, other) = source, target
    if name == other:
        return False
    if low != high:
        return high > low
    if low == TOP:
        return other not in TOP_ORDER or name not in TOP_ORDER or TOP_ORDER.index(other) > TOP_ORDER.index(name)
    return low == FLOORS.index("report")


def arrows() -> list:
    """``(importer's place, imported place, file, module)`` of every import between coursekit's modules."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "labextension" in path.parts or path.parent == PACKAGE and path.stem == "__init__":
            continue
        importer = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        found += [(place(importer), place(module), path.relative_to(REPO), module) for module in imported(path)]
    return found


def test_does_every_import_run_down():
    up = {f"{file} imports {module}" for source, target, file, module in arrows() if runs_back_up(source, target)}
    assert sorted(up) == []


def test_were_the_imports_read():
    """The walk saw the route's own arrows (a reader that found none would pass the test above)."""
    seen = {(str(file), module) for _, _, file, module in arrows()}
    assert ("autograde/coursekit/grading/worker.py", "coursekit.kernel.grade_with") in seen
    assert ("autograde/coursekit/kernel/manager.py", "coursekit.sandbox.forkserver.template") in seen


def test_is_every_top_module_and_package_placed():
    """A new module or package of coursekit is given its floor here (and in the package docstring) when it is made."""
    tops = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert tops ^ set(TOP_ORDER) == set() and packages - set(FLOORS) - set(SAME_FLOOR) == set()


@pytest.mark.parametrize("source, target, up", [
    ("coursekit.sandbox.cells", "coursekit.plugins.failures", True),
    ("coursekit.plugins.failures", "coursekit.sandbox", False),
    ("coursekit.grading.worker", "coursekit.kernel", False),
    ("coursekit.kernel.manager", "coursekit.grading.run", True),
    ("coursekit.faults", "coursekit.paths", False),
    ("coursekit.paths", "coursekit.faults", True),
    ("coursekit.paths", "coursekit.upstream.nbgrader", False),
    ("coursekit.marking.course", "coursekit.report.grades", True),
    ("coursekit.report.tables", "coursekit.report.labels", False)])
def test_does_the_rule_see_an_arrow_back_up(source, target, up):
    assert runs_back_up(place(source), place(target)) == up

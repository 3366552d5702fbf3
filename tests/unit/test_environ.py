"""Is each ``ATTN_*`` environment variable the course and the chapter read or set spelled once, in coursekit.environ?

A name written as a string in two modules can drift apart unseen (the kernel sets one, the chapter reads another);
here every other module uses the constant. Prose that mentions a name (``ATTN_SANDBOX=off`` in a message) is no
name the code uses: only a string that is exactly the name counts.
"""
import ast
import re

from coursekit import environ
from coursekit.paths import COURSE, REPO

NAME = re.compile(r"ATTN_[A-Z_]+")
SOURCES = [*(REPO / "attnkit").glob("*.py"), *(COURSE / "coursekit").rglob("*.py"), COURSE / "nbgrader_config.py"]


def spelled(path) -> set:
    """The strings in ``path`` that are exactly an ``ATTN_*`` name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and NAME.fullmatch(node.value)}


def test_is_every_name_spelled_in_environ_only():
    elsewhere = {str(path.relative_to(REPO)): spelled(path) for path in SOURCES if path.name != "environ.py"}
    assert {path: names for path, names in elsewhere.items() if names} == {}
    assert len(SOURCES) > 60


def test_are_the_names_environ_gives_distinct_and_of_the_course():
    names = [getattr(environ, name) for name in environ.__all__]
    assert len(set(names)) == len(names) and all(NAME.fullmatch(name) for name in names)
    assert spelled(COURSE / "coursekit" / "environ.py") == set(names)

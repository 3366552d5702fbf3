"""Does the route autograde/README.md draws for one submission ("How a test cell is graded") name only files that exist
and functions defined in them, so that a reader who follows it by name lands where it says?

Each row of its table names a process, a file (under ``autograde/``, or an upstream package's, e.g.
``nbclient/client.py``), the functions (comma-separated) and what they hand on.
"""
import ast
import importlib.util
import pathlib
import re

from coursekit.paths import COURSE

README = COURSE / "README.md"
HEADER = "| process | file | function | what it hands on |"
MOST_LINES = 15  # the route is read in one sitting


def route(text: str) -> list:
    """``(file, [function, …])`` of each row of the route's table in ``text``."""
    section = text.split("## How a test cell is graded", 1)[1].split("\n## ", 1)[0]
    lines = section.split(HEADER, 1)[1].strip().splitlines()[1:]  # past the header's |---| line
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append((cells[1].strip("`"), re.findall(r"`(\w+)`", cells[2])))
    return rows


def where(file: str) -> pathlib.Path:
    """The file a row names: the course's (``coursekit/…``, ``grader/…``), else in the installed upstream package."""
    if (COURSE / file).exists():
        return COURSE / file
    package = importlib.util.find_spec(file.split("/")[0])
    return pathlib.Path(package.submodule_search_locations[0]).joinpath(*file.split("/")[1:])


def defined(path: pathlib.Path) -> set:
    """The names of every function and class ``path`` defines, at any depth (methods included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def test_is_the_route_short_and_every_name_in_it_there():
    rows = route(README.read_text(encoding="utf-8"))
    assert 8 <= len(rows) and len(rows) + 2 <= MOST_LINES
    missing = [(file, name) for file, names in rows for name in names if name not in defined(where(file))]
    assert [file for file, _ in rows if not where(file).is_file()] == [] and missing == []
    assert all(names for _, names in rows)


def test_would_a_name_that_moved_away_be_found(tmp_path):
    """A row naming a function its file does not define, and one naming a file that is gone, are both seen."""
    (tmp_path / "mod.py").write_text("def here():\n    pass\n\nclass Kept:\n    def method(self):\n        pass\n")
    assert defined(tmp_path / "mod.py") == {"here", "Kept", "method"}
    table = (f"## How a test cell is graded\n\n{HEADER}\n|---|---|---|---|\n"
             "| worker | `coursekit/kernel/gone.py` | `start_kernel`, `left` | the kernel |\n\nafter\n## next\n")
    assert route(table) == [("coursekit/kernel/gone.py", ["start_kernel", "left"])]
    assert not where("coursekit/kernel/gone.py").is_file()

"""Does the course toolkit stand on its own: no module of coursekit imports attnkit (a chapter is a plug-in)?

Chapter 4 reaches the toolkit only through the course config (``c.CourseKit.assignments`` names
``attnkit.course``), so an nbgrader course without attnkit can use coursekit as it is.
"""
import ast
import pathlib

import coursekit

TOOLKIT = pathlib.Path(coursekit.__file__).parent


def _imports(path: pathlib.Path) -> set:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module" \
                and node.args and isinstance(node.args[0], ast.Constant):
            found.add(str(node.args[0].value))
    return found


def test_does_no_module_of_coursekit_import_attnkit():
    modules = sorted(TOOLKIT.rglob("*.py"))
    assert len(modules) > 40  # the whole toolkit was looked at
    importing = {str(p.relative_to(TOOLKIT)): sorted(m for m in _imports(p) if m.split(".")[0] == "attnkit")
                 for p in modules}
    assert {p: m for p, m in importing.items() if m} == {}


def test_would_the_check_see_an_import_of_attnkit(tmp_path):
    """The scan finds each way of importing it: import, from-import, importlib with a literal name?"""
    module = tmp_path / "m.py"
    module.write_text("import attnkit.lab\nfrom attnkit import record\nimport importlib\n"
                      "def f():\n    importlib.import_module('attnkit.course')\n")
    assert _imports(module) >= {"attnkit.lab", "attnkit", "attnkit.course"}

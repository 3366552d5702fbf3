"""Is each package's docstring its module index: does it name every module and sub-package it holds?

The one place a reader learns what a folder of code is made of; a module added without a line there
fails here.
"""
import ast
import pathlib
import re

import pytest

from coursekit.paths import REPO

ROOTS = [REPO / "attnkit", REPO / "autograde" / "coursekit", REPO / "autograde" / "grader", REPO / "autograde" / "hub"]
PACKAGES = sorted({init.parent for root in ROOTS for init in root.rglob("__init__.py")
                   if "node_modules" not in init.parts and "__pycache__" not in init.parts})


def unnamed(package: pathlib.Path) -> list:
    """The modules and sub-packages of ``package`` its docstring does not name as ``:mod:`…name```."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    parts = [p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")]
    parts += [p.parent.name for p in package.glob("*/__init__.py")]
    return sorted(m for m in parts if not re.search(rf":mod:`[~.]*(?:[\w.]*\.)?{re.escape(m)}`", doc))


@pytest.mark.parametrize("package", PACKAGES, ids=[str(p.relative_to(REPO)) for p in PACKAGES])
def test_does_the_package_docstring_name_every_module(package):
    assert unnamed(package) == []


def test_would_a_module_left_out_be_found(tmp_path):
    (tmp_path / "__init__.py").write_text('"""A package: :mod:`.named` and :mod:`pkg.sub`."""\n')
    for name in ("named", "forgotten"):
        (tmp_path / f"{name}.py").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "__init__.py").write_text("")
    assert unnamed(tmp_path) == ["forgotten"]
    assert len(PACKAGES) >= 10

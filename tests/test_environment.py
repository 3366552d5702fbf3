"""Do environment.yml (Binder, conda) and pyproject.toml ask for the same packages?"""
import re
import tomllib

import yaml

from conftest import REPO

# conda-forge names that differ from PyPI's; empty while every name is the same.
CONDA_NAMES: dict = {}


def _split(requirement: str):
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", requirement).groups()
    return name.lower(), spec.replace(" ", "")


def _pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    deps = dict(_split(r) for r in project["dependencies"])
    return deps, project["requires-python"]


def _environment():
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    return dict(_split(d) for d in conda), pip, env["channels"]


def test_same_packages_and_ranges():
    """Does every runtime dependency appear in environment.yml with the same version range, and nothing more?"""
    deps, _ = _pyproject()
    conda, pip, _ = _environment()
    expected = {CONDA_NAMES.get(n, n): spec for n, spec in deps.items()}
    extra = {n: s for n, s in conda.items() if n not in ("python", "pip")}
    pypi_only = dict(_split(r) for r in pip if r != "-e .")  # not on conda-forge: pip section
    assert not extra.keys() & pypi_only.keys()
    assert {**extra, **pypi_only} == expected


def test_same_python_and_editable_install():
    """Does conda get the same Python floor, from conda-forge, and install attnkit itself with pip -e?"""
    _, requires_python = _pyproject()
    conda, pip, channels = _environment()
    assert conda["python"] == requires_python.replace(" ", "")
    assert channels == ["conda-forge"]
    assert pip[-1] == "-e ."


def test_ci_runs_the_readme_test_command():
    """Does .ci/run call `make test`, and does the README give both commands?"""
    assert "make test" in (REPO / ".ci" / "run").read_text()
    readme = (REPO / "README.md").read_text()
    assert "make lab" in readme and "make test" in readme

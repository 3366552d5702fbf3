"""Do environment.yml (Binder, conda) and pyproject.toml ask for the same packages and Python?"""
import re
import tomllib

import yaml
from packaging.specifiers import SpecifierSet

from coursekit.paths import REPO

# conda-forge names that differ from PyPI's; empty while every name is the same.
CONDA_NAMES: dict = {}
# How repo2docker's conda build pack reads the Python version off each dependency line of
# environment.yml (re.match); no match means it falls back to its own default Python.
REPO2DOCKER_PYTHON = re.compile(r"python\s*=+\s*([\d\.]*)")


def repo2docker_python(dependencies) -> str | None:
    """The Python version repo2docker would install for these environment.yml dependencies, or None."""
    for dep in dependencies:
        match = REPO2DOCKER_PYTHON.match(dep) if isinstance(dep, str) else None
        if match and match.group(1):
            return match.group(1)
    return None


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


def test_does_repo2docker_find_a_python_that_pyproject_accepts():
    """Binder reads one exact Python minor off environment.yml, and pyproject's requires-python admits it?"""
    _, requires_python = _pyproject()
    version = repo2docker_python(yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"])
    assert version is not None and re.fullmatch(r"3\.\d+", version), version
    assert version in SpecifierSet(requires_python)


def test_does_the_repo2docker_rule_reject_a_range():
    """The rule as repo2docker applies it: a floor such as python>=3.11 names no version (its 3.10 default)."""
    assert repo2docker_python(["numpy", "python>=3.11", {"pip": ["x"]}]) is None
    assert repo2docker_python(["python=3.12", "pip"]) == "3.12"
    assert repo2docker_python(["python==3.11.7"]) == "3.11.7"


def test_conda_channel_and_editable_install():
    """conda-forge only, and attnkit itself installed with pip -e?"""
    _, pip, channels = _environment()
    assert channels == ["conda-forge"]
    assert pip[-1] == "-e ."


def test_ci_runs_the_readme_test_command():
    """Does .ci/run call `make test`, and does the README give both commands?"""
    assert "make test" in (REPO / ".ci" / "run").read_text()
    readme = (REPO / "README.md").read_text()
    assert "make lab" in readme and "make test" in readme

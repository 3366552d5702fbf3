"""Does requirements.lock (what `make venv` and CI install) pin a version inside every range of pyproject.toml?

The lock is made by `make lock` from pyproject's ranges; a range changed without `make lock` would leave `make venv`
installing a version pyproject no longer allows, or none at all (the project itself goes in with --no-deps).
"""
import re
import tomllib

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from coursekit.paths import REPO

LOCK = REPO / "requirements.lock"
EXTRAS = ("course", "test", "book")  # make venv: .[course,test]; test pulls in attnkit[book]
# packages that are bounded above, because the course copies or patches them (tests/unit/test_upstream.py)
BOUNDED = ("ipykernel", "ipython", "jupyter-client", "nbclient", "nbconvert", "nbformat", "nbgrader", "traitlets",
           "jupyter-server", "tornado", "sqlalchemy", "jsonschema", "matplotlib-inline")


def _requirements() -> list:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    listed = [*project["dependencies"], *(r for extra in EXTRAS for r in project["optional-dependencies"][extra])]
    return [Requirement(r) for r in listed if not r.startswith("attnkit")]


def _pins() -> dict:
    text = LOCK.read_text(encoding="utf-8")
    return {canonicalize_name(name): version for name, version in re.findall(r"^([A-Za-z0-9._-]+)==(\S+)", text, re.M)}


@pytest.mark.parametrize("requirement", _requirements(), ids=str)
def test_lock_pins_a_version_in_range(requirement):
    """Is each of pyproject's requirements pinned in the lock, at a version its range admits?"""
    if requirement.marker is not None and not requirement.marker.evaluate(default_environment()):
        pytest.skip(f"{requirement}: not for this platform")
    pinned = _pins().get(canonicalize_name(requirement.name))
    assert pinned is not None, f"requirements.lock pins no {requirement.name} (pyproject.toml asks for {requirement}): run `make lock`"
    assert requirement.specifier.contains(pinned, prereleases=True), (
        f"requirements.lock pins {requirement.name}=={pinned}, outside pyproject.toml's {requirement}: run `make lock`")


def test_lock_has_hashes():
    """Does every pin carry hashes (make venv installs with --require-hashes)?"""
    entries = re.split(r"\n(?=[A-Za-z0-9])", LOCK.read_text(encoding="utf-8").split("\n", 2)[2])
    missing = [entry.split()[0] for entry in entries if "==" in entry and "--hash=sha256:" not in entry]
    assert not missing, f"requirements.lock: pins without hashes: {missing}; run `make lock`"


@pytest.mark.parametrize("name", BOUNDED)
def test_majors_we_rely_on_are_bounded(name):
    """Is each package the course builds on given an upper bound, so that a new major is tried first (make test-upgrade)?"""
    found = [r for r in _requirements() if canonicalize_name(r.name) == name]
    assert found, f"pyproject.toml does not list {name}, which coursekit or attnkit imports"
    assert all(any(spec.operator in ("<", "<=", "==", "~=") for spec in r.specifier) for r in found), (
        f"pyproject.toml: {[str(r) for r in found]} has no upper bound")

"""Does every nbgrader app test that passes plain still pass with the course's plug-ins configured?

nbgrader ships its own tests in its wheel (``nbgrader/tests/apps``); :mod:`support.nbgrader_apps` runs the modules
it names in a subprocess with a clean HOME and clean Jupyter folders, with the course's ``nbgrader_config.py`` on
``JUPYTER_CONFIG_PATH`` (less what names the course: its folder, id, exchange and release stubs), so each test's own
course config still applies on top, and with the students' Validate fold applied as their server applies it. Every
``make test`` runs the tests named in ``SELECTED`` (those that reach the plug-ins) this way, and compares them with
the plain run's outcomes recorded for the installed nbgrader (tests/support/nbgrader_plain_outcomes.json, written by
``make test-upgrade`` for the newest nbgrader and ``make nbgrader-record`` for the venv's): the plain run changes
only with nbgrader. A test that passes plain and fails with the plug-ins is a failure here, unless
:data:`DELIBERATE` lists it with the reason (the same list is in autograde/README.md, "nbgrader's own tests").
``ATTN_NBGRADER_APPS=all`` runs every test of those modules, plain and with the plug-ins side by side (6 minutes
on 2 busy cores), without the record.
"""
import concurrent.futures
import os
import textwrap

import pytest

from coursekit.paths import COURSE, REPO
from support import nbgrader_apps
from support.nbgrader_apps import SELECTED

pytestmark = [pytest.mark.integration, pytest.mark.timeout(2400)]

# (module, test) -> why the course changes nbgrader's behaviour there on purpose (autograde/README.md says the same)
_ADD_MISSING = ("the course sets c.OverwriteCells.add_missing_cells = True (a deleted test cell comes back); nbgrader "
                "0.9.6's add_missing_grade_cells then raises KeyError when two neighbouring graded cells are missing, as "
                "in this test's submission, and the notebook scores 0 with that reason")
_ANY_KERNEL = ("every grading kernel is the course's Python cell runner, whatever kernel the notebook names, so a "
               "notebook naming a kernel that is not installed is graded instead of refused")
_OWNER = ("the course's collect refuses a folder whose owner is not the student it names (nbgrader's warns and collects "
          "it) and accepts without a word one the collecting user owns (a course on one Unix account, as every folder "
          "of this test is): no warning")
_REMINDER = ("the students' Validate reminds them of a written answer left as released instead of counting it as a failed "
             "cell, so this unchanged notebook fails on its 2 code cells, not 3 (the only program that folds it so is the "
             "students' own server; nbgrader validate in a terminal prints nbgrader's own count)")
_MODES = ("the course's collect gives every folder of submitted/ 0755 and every file 0644 (group-shared: g+rw and "
          "setgid added), no mode bit a student chose; nbgrader's copies the 777 its submit gives each inbound/ folder")
_ARRIVAL = ("the course's collect writes into submitted/…/timestamp.txt the time the submission reached inbound/, not the "
            "time the student's own submit put in its name and timestamp.txt (which names the folder their fetch_feedback "
            "makes), so the test's two timestamps differ; its feedback is fetched as before")
DELIBERATE = {
    ("test_nbgrader_fetchfeedback", "test_single_file"): _ARRIVAL,
    ("test_nbgrader_collect", "test_owner_check"): _OWNER,
    ("test_nbgrader_collect", "test_permissions[False]"): _MODES,
    ("test_nbgrader_collect", "test_permissions[True]"): _MODES,
    ("test_nbgrader_autograde", "test_force_single_notebook"): _ADD_MISSING,
    ("test_nbgrader_autograde", "test_update_newer"): _ADD_MISSING,
    ("test_nbgrader_autograde", "test_update_newer_single_notebook"): _ADD_MISSING,
    ("test_nbgrader_autograde", "test_missing_source_kernelspec"): _ANY_KERNEL,
    ("test_nbgrader_autograde", "test_incorrect_source_kernelspec"): _ANY_KERNEL,
    ("test_nbgrader_validate", "test_validate_unchanged"): _REMINDER,
}
EVERYTHING = os.environ.get("ATTN_NBGRADER_APPS") == "all"


def _recorded_plain() -> dict:
    """The plain outcomes recorded for the installed nbgrader; the test fails, saying how to record them, without."""
    version, plain = nbgrader_apps.version(), nbgrader_apps.recorded(nbgrader_apps.version())
    lacking = "outcomes" if plain is None else f"outcome of {nbgrader_apps.missing(plain)}"
    if plain is None or nbgrader_apps.missing(plain):
        pytest.fail(f"nbgrader {version} has no recorded plain {lacking} in "
                    f"{nbgrader_apps.RECORD.relative_to(REPO)}: run `make nbgrader-record` (or `make test-upgrade` "
                    "for the newest nbgrader) and commit it", pytrace=False)
    return plain


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict:
    """``{(module, "plain" | "plugins"): {test: outcome}}``: the plug-ins' run and the recorded plain outcomes
    (``ATTN_NBGRADER_APPS=all``: both runs of every test, side by side)."""
    root = tmp_path_factory.mktemp("nbgrader-apps")
    if EVERYTHING:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            runs = {mode: pool.submit(nbgrader_apps.run, mode == "plugins", root / mode, everything=True)
                    for mode in ("plain", "plugins")}
            results = {mode: run.result() for mode, run in runs.items()}
    else:
        results = {"plain": _recorded_plain(), "plugins": nbgrader_apps.run(True, root / "plugins")}
        assert not nbgrader_apps.missing(results["plugins"]), (
            f"the plug-ins' run has no outcome for {nbgrader_apps.missing(results['plugins'])}: "
            f"see {root / 'plugins' / 'pytest.log'}")
    return {(module, mode): results[mode].get(module, {}) for mode in results for module in SELECTED}


@pytest.mark.parametrize("module", list(SELECTED))
def test_does_every_test_passing_plain_pass_with_the_plugins(outcomes, module):
    """Every test of ``module`` that passes plain passes with the course's plug-ins, but the deliberate differences?"""
    plain, plugins = outcomes[(module, "plain")], outcomes[(module, "plugins")]
    assert plain, f"nbgrader's {module} ran no test plain: is nbgrader's test package installed?"
    assert any(outcome == "passed" for outcome in plain.values()), f"nbgrader's {module} passed nothing plain: {plain}"
    broken = sorted(name for name, outcome in plain.items() if outcome == "passed"
                    and plugins.get(name) != "passed" and (module, name) not in DELIBERATE)
    assert not broken, (f"nbgrader's {module}: these pass plain and not with the course's plug-ins "
                        f"(fix the plug-in, or list the test in DELIBERATE and autograde/README.md with the reason): "
                        f"{broken}")


@pytest.mark.parametrize("module", list(SELECTED))
def test_is_every_deliberate_difference_still_one(outcomes, module):
    """Each listed difference still passes plain and fails with the plug-ins (a stale row is taken out)."""
    for (listed, name), why in DELIBERATE.items():
        if listed == module and name in outcomes[(module, "plain")]:
            assert outcomes[(module, "plain")][name] == "passed" and outcomes[(module, "plugins")][name] != "passed", (
                f"DELIBERATE lists {module}::{name} ({why}), but it no longer differs: take it out")


def test_do_the_readme_and_the_table_list_the_same_differences():
    """autograde/README.md's section on nbgrader's own tests names each deliberate difference, and no other."""
    readme = (COURSE / "README.md").read_text(encoding="utf-8")
    section = readme.split("### nbgrader's own tests", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    for (module, name) in DELIBERATE:
        assert f"`{name}`" in section, f"autograde/README.md, \"nbgrader's own tests\", does not name {module}::{name}"
    assert ("deliberate differences: none" in section.lower()) == (not DELIBERATE), textwrap.shorten(section, 300)

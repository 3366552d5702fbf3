"""Does every nbgrader app test that passes plain still pass with the course's plug-ins configured?

nbgrader ships its own tests in its wheel (``nbgrader/tests/apps``). The modules below run twice, in subprocesses
with a clean HOME and clean Jupyter folders: once plain, once with the course's ``nbgrader_config.py`` on
``JUPYTER_CONFIG_PATH`` (less what names the course: its folder, id, exchange and release stubs), so each test's
own course config still applies on top, and with the students' Validate fold applied as their server applies it.
A test that passes plain and fails with the plug-ins is a failure here, unless :data:`DELIBERATE` lists it with
the reason (the same list is in autograde/README.md, "nbgrader's own tests").

Budget: ``make test`` runs the tests named in :data:`SELECTED` (those that reach the plug-ins: the grading kernel,
the preprocessors the course replaces, the feedback page, the release) in one pytest per run, the two runs side by side;
``ATTN_NBGRADER_APPS=all`` runs the whole modules (6 minutes, both runs side by side, on 2 busy cores; not in ``make test``, whose
whole run must stay under 8 minutes).
"""
import concurrent.futures
import os
import pathlib
import pwd
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ElementTree

import pytest

from coursekit.paths import COURSE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(2400)]

# nbgrader's test module -> its tests run by make test (None: all of them)
SELECTED = {
    "test_nbgrader_autograde": ["test_grade", "test_side_effects", "test_hidden_tests_single_notebook",
                                "test_grade_overwrite_files", "test_infinite_loop"],
    "test_nbgrader_validate": ["test_validate_unchanged", "test_grade_cell_changed_ignore_checksums",
                               "test_validate_unchanged_ignore_checksums", "test_locked_cell_changed_ignore_checksums",
                               "test_validate_timeout"],
    "test_nbgrader_generate_feedback": ["test_single_file", "test_force"],
    "test_nbgrader_releasefeedback": ["test_single_student"],
    "test_nbgrader_fetchfeedback": ["test_single_file"],
    # collect and list --inbound through the course's CheckedCollect and CheckedList (≈ 19 s: test_permissions, a
    # deliberate difference, and the feedback listing's 14 s run with ATTN_NBGRADER_APPS=all)
    "test_nbgrader_collect": ["test_collect", "test_owner_check", "test_collect_before_due_date"],
    "test_nbgrader_list": ["test_list_inbound"],
}
CLASSES = {"test_nbgrader_autograde": "TestNbGraderAutograde", "test_nbgrader_validate": "TestNbGraderValidate",
           "test_nbgrader_generate_feedback": "TestNbGraderFeedback",
           "test_nbgrader_releasefeedback": "TestNbGraderReleaseFeedback",
           "test_nbgrader_fetchfeedback": "TestNbGraderFetchFeedback", "test_nbgrader_collect": "TestNbGraderCollect",
           "test_nbgrader_list": "TestNbGraderList"}
# (module, test) -> why the course changes nbgrader's behaviour there on purpose (autograde/README.md says the same)
_ADD_MISSING = ("the course sets c.OverwriteCells.add_missing_cells = True (a deleted test cell comes back); nbgrader "
                "0.9.6's add_missing_grade_cells then raises KeyError when two neighbouring graded cells are missing, as "
                "in this test's submission, and the notebook scores 0 with that reason")
_ANY_KERNEL = ("every grading kernel is the course's Python cell runner, whatever kernel the notebook names, so a "
               "notebook naming a kernel that is not installed is graded instead of refused")
_OWNER = ("the course's collect refuses a folder whose owner is not the student it names (nbgrader's warns and collects "
          "it) and accepts without a word one the collecting user owns (a course on one Unix account, as every folder "
          "of this test is): no warning")
_MODES = ("the course's collect gives submitted/ the instructor's own modes (umask; group-shared: g+rw and setgid); "
          "nbgrader's copies the 777 its submit gives each inbound/ folder")
DELIBERATE = {
    ("test_nbgrader_collect", "test_owner_check"): _OWNER,
    ("test_nbgrader_collect", "test_permissions[False]"): _MODES,
    ("test_nbgrader_collect", "test_permissions[True]"): _MODES,
    ("test_nbgrader_autograde", "test_force_single_notebook"): _ADD_MISSING,
    ("test_nbgrader_autograde", "test_update_newer"): _ADD_MISSING,
    ("test_nbgrader_autograde", "test_update_newer_single_notebook"): _ADD_MISSING,
    ("test_nbgrader_autograde", "test_missing_source_kernelspec"): _ANY_KERNEL,
    ("test_nbgrader_autograde", "test_incorrect_source_kernelspec"): _ANY_KERNEL,
}
# what the plug-ins' run leaves out of the course's config: it names the course, not a plug-in
NOT_PLUGINS = [("CourseDirectory", "root"), ("CourseDirectory", "course_id"), ("Exchange", "root"),
               ("ClearSolutions", "code_stub"), ("ClearSolutions", "text_stub")]
PLUGINS_CONFIG = """\
# The course's plug-ins for nbgrader's own app tests (tests/integration/test_nbgrader_apps.py), from its config.
from coursekit.plugins import name_unanswered_questions

c = get_config()  # noqa: F821
load_subconfig({course!r})  # noqa: F821
for section, key in {unset!r}:
    c[section].pop(key, None)
name_unanswered_questions()  # the students' Validate, as their server extension makes it
"""


def _selection() -> list:
    """What to run: each module, or its selected tests by node id (``-k`` would match by substring)."""
    if os.environ.get("ATTN_NBGRADER_APPS") == "all":
        return [f"nbgrader.tests.apps.{module}" for module in SELECTED]
    return [f"nbgrader.tests.apps.{module}::{CLASSES[module]}::{name}"
            for module, names in SELECTED.items() for name in names]


def _run(plugins: bool, folder: pathlib.Path) -> dict:
    """``{module: {test name: "passed" | "failed" | "skipped"}}`` of one pytest run of every module (one start-up,
    not one per module); its log is ``pytest.log`` in ``folder``."""
    for name in ("home", "config", "data", "runtime", "tmp", "plugins"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / "pytest.ini").write_text("[pytest]\n")  # not this repository's settings
    env = {"PATH": f"{pathlib.Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(folder / "home"),
           "USER": pwd.getpwuid(os.getuid()).pw_name,  # nbgrader's exchange reads it (KeyError without)
            "TMPDIR": str(folder / "tmp"), "JUPYTER_CONFIG_DIR": str(folder / "config"),
           "JUPYTER_DATA_DIR": str(folder / "data"), "JUPYTER_RUNTIME_DIR": str(folder / "runtime"),
           "JUPYTER_PLATFORM_DIRS": "1", "LANG": "C.UTF-8"}
    if plugins:
        (folder / "plugins" / "nbgrader_config.py").write_text(
            PLUGINS_CONFIG.format(course=str(COURSE / "nbgrader_config.py"), unset=NOT_PLUGINS))
        env["JUPYTER_CONFIG_PATH"] = str(folder / "plugins")
    report = folder / "report.xml"
    command = [sys.executable, "-m", "pytest", "-c", str(folder / "pytest.ini"), "--rootdir", str(folder),
               "-p", "no:cacheprovider", "-p", "no:xdist", "-q", f"--junitxml={report}", "--pyargs",
               *_selection()]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=1800)
    (folder / "pytest.log").write_text(done.stdout + done.stderr)
    assert report.exists(), f"nbgrader's app tests ({'plug-ins' if plugins else 'plain'}) wrote no report: {done.stdout[-2000:]}"
    module_of = {test_class: module for module, test_class in CLASSES.items()}
    outcomes = {module: {} for module in SELECTED}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        module = module_of[case.get("classname", "").rsplit(".", 1)[-1]]  # the report names the class only
        outcomes[module][case.get("name")] = ("failed" if kinds & {"failure", "error"} else
                                                             "skipped" if "skipped" in kinds else "passed")
    return outcomes


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict:
    """``{(module, "plain" | "plugins"): {test: outcome}}``: the plain run and the plug-ins' run side by side."""
    root = tmp_path_factory.mktemp("nbgrader-apps")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        runs = {mode: pool.submit(_run, mode == "plugins", root / mode) for mode in ("plain", "plugins")}
        results = {mode: run.result() for mode, run in runs.items()}
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

"""nbgrader's own app tests (``nbgrader/tests/apps``, shipped in its wheel): run plain or with the course's plug-ins,
and the plain run's outcomes recorded per nbgrader version in :data:`RECORD`.

tests/integration/test_nbgrader_apps.py runs them with the plug-ins on every ``make test`` and compares with the
record of the installed nbgrader. The plain run changes only when nbgrader does, so it runs when a version is recorded:
``make test-upgrade`` (the newest nbgrader) and ``make nbgrader-record`` (the venv's) run this file, which runs the
plain selection, writes its outcomes under the version and says what changed::

    python tests/support/nbgrader_apps.py
"""
import importlib.metadata
import json
import os
import pathlib
import pwd
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

from coursekit.paths import COURSE

__all__ = ["SELECTED", "RECORD", "selection", "run", "missing", "version", "recorded", "record"]

RECORD = pathlib.Path(__file__).with_name("nbgrader_plain_outcomes.json")
# nbgrader's test module -> the tests make test runs: those that reach a plug-in (the grading kernel, the
# preprocessors the course replaces, the feedback page, the release)
SELECTED = {
    "test_nbgrader_autograde": ["test_grade", "test_side_effects", "test_hidden_tests_single_notebook",
                                "test_grade_overwrite_files", "test_infinite_loop"],
    "test_nbgrader_validate": ["test_validate_unchanged", "test_grade_cell_changed_ignore_checksums",
                               "test_validate_unchanged_ignore_checksums", "test_locked_cell_changed_ignore_checksums",
                               "test_validate_timeout"],
    "test_nbgrader_generate_feedback": ["test_single_file", "test_force"],
    "test_nbgrader_releasefeedback": ["test_single_student"],
    "test_nbgrader_fetchfeedback": ["test_single_file"],
    # collect and list --inbound through the course's CheckedCollect and CheckedList (test_permissions, a
    # deliberate difference, and the feedback listing run with ATTN_NBGRADER_APPS=all)
    "test_nbgrader_collect": ["test_collect", "test_owner_check", "test_collect_before_due_date"],
    "test_nbgrader_list": ["test_list_inbound"],
}
CLASSES = {"test_nbgrader_autograde": "TestNbGraderAutograde", "test_nbgrader_validate": "TestNbGraderValidate",
           "test_nbgrader_generate_feedback": "TestNbGraderFeedback",
           "test_nbgrader_releasefeedback": "TestNbGraderReleaseFeedback",
           "test_nbgrader_fetchfeedback": "TestNbGraderFetchFeedback", "test_nbgrader_collect": "TestNbGraderCollect",
           "test_nbgrader_list": "TestNbGraderList"}
# what the plug-ins' run leaves out of the course's config: it names the course, not a plug-in
NOT_PLUGINS = [("CourseDirectory", "root"), ("CourseDirectory", "course_id"), ("Exchange", "root"),
               ("ClearSolutions", "code_stub"), ("ClearSolutions", "text_stub")]
PLUGINS_CONFIG = """\
# The course's plug-ins for nbgrader's own app tests (tests/support/nbgrader_apps.py), from its config.
from coursekit.plugins import name_unanswered_questions

c = get_config()  # noqa: F821
load_subconfig({course!r})  # noqa: F821
for section, key in {unset!r}:
    c[section].pop(key, None)
name_unanswered_questions()  # the students' Validate, as their server extension makes it
"""


def selection(everything=False) -> list:
    """What to run: each module (``everything``), or its selected tests by node id (``-k`` would match by substring)."""
    if everything:
        return [f"nbgrader.tests.apps.{module}" for module in SELECTED]
    return [f"nbgrader.tests.apps.{module}::{CLASSES[module]}::{name}"
            for module, names in SELECTED.items() for name in names]


def _environment(plugins: bool, folder: pathlib.Path) -> dict:
    """A clean HOME and Jupyter folders in ``folder``; with ``plugins``, the course's config on the config path."""
    for name in ("home", "config", "data", "runtime", "tmp", "plugins"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    env = {"PATH": f"{pathlib.Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(folder / "home"),
           "USER": pwd.getpwuid(os.getuid()).pw_name,  # nbgrader's exchange reads it (KeyError without)
           "TMPDIR": str(folder / "tmp"), "JUPYTER_CONFIG_DIR": str(folder / "config"),
           "JUPYTER_DATA_DIR": str(folder / "data"), "JUPYTER_RUNTIME_DIR": str(folder / "runtime"),
           "JUPYTER_PLATFORM_DIRS": "1", "LANG": "C.UTF-8"}
    if plugins:
        (folder / "plugins" / "nbgrader_config.py").write_text(
            PLUGINS_CONFIG.format(course=str(COURSE / "nbgrader_config.py"), unset=NOT_PLUGINS))
        env["JUPYTER_CONFIG_PATH"] = str(folder / "plugins")
    return env


def run(plugins: bool, folder: pathlib.Path, everything=False) -> dict:
    """``{module: {test name: "passed" | "failed" | "skipped"}}`` of one pytest run of the selection (one start-up,
    not one per module), in subprocesses with ``folder``'s clean HOME; its log is ``pytest.log`` in ``folder``."""
    env = _environment(plugins, folder)
    (folder / "pytest.ini").write_text("[pytest]\n")  # not this repository's settings
    report = folder / "report.xml"
    command = [sys.executable, "-m", "pytest", "-c", str(folder / "pytest.ini"), "--rootdir", str(folder),
               "-p", "no:cacheprovider", "-p", "no:xdist", "-q", f"--junitxml={report}", "--pyargs",
               *selection(everything)]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=1800)
    (folder / "pytest.log").write_text(done.stdout + done.stderr)
    if not report.exists():
        raise RuntimeError(f"nbgrader's app tests ({'plug-ins' if plugins else 'plain'}) wrote no report "
                           f"(log: {folder / 'pytest.log'}): {done.stdout[-2000:]}")
    return _outcomes(report)


def _outcomes(report: pathlib.Path) -> dict:
    module_of = {test_class: module for module, test_class in CLASSES.items()}
    outcomes = {module: {} for module in SELECTED}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        module = module_of[case.get("classname", "").rsplit(".", 1)[-1]]  # the report names the class only
        outcomes[module][case.get("name")] = ("failed" if kinds & {"failure", "error"} else
                                              "skipped" if "skipped" in kinds else "passed")
    return outcomes


def missing(outcomes: dict) -> list:
    """The selected tests ``outcomes`` has no outcome for, as ``module::test`` (a parametrized test has one outcome per
    case, ``test[case]``)."""
    return [f"{module}::{name}" for module, names in SELECTED.items() for name in names
            if not any(run == name or run.startswith(f"{name}[") for run in outcomes.get(module, {}))]


def version() -> str:
    """The installed nbgrader's version."""
    return importlib.metadata.version("nbgrader")


def _read() -> dict:
    return json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}


def recorded(nbgrader: str):
    """The plain outcomes recorded for nbgrader ``nbgrader`` (as :func:`run` gives them), or None."""
    return _read().get(nbgrader)


def record(nbgrader: str, outcomes: dict) -> list:
    """Keep ``outcomes`` as nbgrader ``nbgrader``'s plain run; lines saying what changed against what was recorded
    for it before, else for the newest version recorded."""
    every = _read()
    before_version = nbgrader if nbgrader in every else max(every, key=_version_key, default=None)
    lines = _changes(every.get(before_version, {}), outcomes)
    every[nbgrader] = outcomes
    RECORD.write_text(json.dumps(every, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    against = f"against {before_version}'s record" if before_version else "(the first record)"
    return [f"nbgrader {nbgrader}'s plain outcomes {against}: {len(lines) or 'nothing'} changed", *lines]


def _changes(before: dict, after: dict) -> list:
    tests = sorted({(m, t) for run in (before, after) for m in run for t in run[m]})
    return [f"  {module}::{test}: {before.get(module, {}).get(test, '(not run)')} -> "
            f"{after.get(module, {}).get(test, '(not run)')}" for module, test in tests
            if before.get(module, {}).get(test) != after.get(module, {}).get(test)]


def _version_key(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in text.split("."))


def main() -> int:
    """Run the plain selection with this Python's nbgrader, record it, print what changed."""
    with tempfile.TemporaryDirectory(prefix="nbgrader-plain-") as folder:
        outcomes = run(False, pathlib.Path(folder))
    if missing(outcomes):
        print(f"nbgrader {version()}'s plain run has no outcome for {missing(outcomes)}: is nbgrader's test "
              f"package installed? Nothing recorded.", file=sys.stderr)
        return 1
    print("\n".join(record(version(), outcomes)))
    print(f"written: {RECORD} (commit it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

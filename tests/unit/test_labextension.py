"""Does the students' Lab extension (autograde/coursekit/labextension) open a fetched feedback page, as
it is on disk now, when nbgrader's "(view feedback)" moves the file browser there, and nothing else;
does Lab find it; does the wheel ship exactly what the build wrote?

The extension is TypeScript (``src/index.ts``) built by JupyterLab's builder into the committed
``attention-feedback/`` (``make labextension``). Here Node loads that build as Lab's page does
(tests/support/labextension_harness.js: the remoteEntry file, the container's init and get, its
chunk through a <script> tag) and drives it against a stand-in Lab (command registry, contents
service, document manager). tests/integration/test_labextension_build.py checks that the build is
what the source builds to; the hub's Chromium tests (test_hub_service.py, test_hub.py) click the
real link.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tomllib

import jupyterlab
import pytest
from jupyterlab_server.config import get_federated_extensions
from setuptools.config.expand import canonic_data_files

REPO = pathlib.Path(__file__).resolve().parents[2]
EXTENSIONS = REPO / "autograde" / "coursekit" / "labextension"
NAME = "attention-feedback"
BUILT = EXTENSIONS / NAME
HARNESS = REPO / "tests" / "support" / "labextension_harness.js"
FOLDER = "ch04_attention/feedback/2026-12-01 10:00:00.123456 UTC"
PAGE = f"{FOLDER}/ch04_attention.html"
VIEW_FEEDBACK = {"id": "filebrowser:go-to-path", "args": {"path": FOLDER}}


def _node() -> str:
    node = shutil.which("node")
    if not node:
        if os.environ.get("CI") == "true":
            pytest.fail("node is required under CI=true (the hub needs it too): apt-get install nodejs")
        pytest.skip("node missing; enable: apt-get install nodejs")
    return node


def _run(executed, open_pages=()) -> dict:
    """What the built extension asked the stand-in Lab, after these executed commands, with documents
    already open on ``open_pages``; the Lab offers its docmanager at the installed JupyterLab's version."""
    scenario = {"executed": executed, "open": list(open_pages), "lab": jupyterlab.__version__}
    done = subprocess.run([_node(), str(HARNESS), str(BUILT), json.dumps(scenario)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_does_view_feedback_open_the_folders_html_pages_in_the_html_viewer():
    """go-to-path on a feedback folder: the folder is listed, and its HTML files (not other files or
    folders) open in the HTML viewer; a trailing slash is the same folder."""
    for path in (FOLDER, FOLDER + "/"):
        shown = _run([{"id": "filebrowser:go-to-path", "args": {"path": path}}])
        assert shown["asked"] == [
            {"list": FOLDER, "content": True},
            {"find": PAGE, "widget": None},
            {"execute": "docmanager:open", "args": {"path": PAGE, "factory": "HTML Viewer"}},
        ]
        assert shown["logged"] == {"warn": [], "error": []}


def test_does_view_feedback_read_an_already_open_page_from_disk_again_before_showing_it():
    """Fetch Feedback wrote a page released again over the one a tab shows: the open document (in any
    viewer: ``widget`` None) is reverted before Lab brings it forward, so the tab shows the new score,
    not the old one (on the hub it kept 12/20 with 8 pending while the file said 14.2)."""
    shown = _run([VIEW_FEEDBACK], open_pages=[PAGE])
    assert shown["asked"] == [
        {"list": FOLDER, "content": True},
        {"find": PAGE, "widget": None},
        {"revert": PAGE},
        {"execute": "docmanager:open", "args": {"path": PAGE, "factory": "HTML Viewer"}},
    ]


@pytest.mark.parametrize("executed", [
    {"id": "filebrowser:go-to-path", "args": {"path": "ch04_attention"}},
    {"id": "filebrowser:go-to-path", "args": {"path": "ch04_attention/feedback"}},
    {"id": "filebrowser:go-to-path", "args": {"path": PAGE}},
    {"id": "filebrowser:go-to-path", "args": {}},
    {"id": "docmanager:open", "args": {"path": FOLDER}},
])
def test_does_anything_else_leave_lab_alone(executed):
    """Any other folder, a file, no path, or another command with a feedback folder: nothing asked."""
    assert _run([executed], open_pages=[PAGE])["asked"] == []


def test_is_it_one_plugin_that_takes_lab_s_document_manager_at_the_installed_version():
    """One plugin, needing Lab's IDocumentManager, shared from the installed JupyterLab with no
    "Unsatisfied version" warning (the build's required range admits the Lab it runs in)."""
    shown = _run([])
    assert shown["ids"] == [f"{NAME}:open-on-view"]
    assert shown["requires"] == [["@jupyterlab/docmanager:IDocumentManager"]]
    assert shown["logged"] == {"warn": [], "error": []}


def test_does_jupyterlab_find_it_as_a_prebuilt_extension():
    """Lab's own discovery reads the built folder's package.json (not the source's beside it), and the
    entry it will load exists under a content-hashed name."""
    found = get_federated_extensions([str(EXTENSIONS)])
    assert list(found) == [NAME]
    build = found[NAME]["jupyterlab"]["_build"]
    assert re.fullmatch(r"static/remoteEntry\.[0-9a-f]{16,}\.js", build["load"]), build["load"]
    assert (BUILT / build["load"]).is_file()
    assert build["extension"] == "./extension"


def test_does_the_wheel_ship_exactly_what_the_build_wrote():
    """pyproject's data-files, expanded by setuptools as a wheel build does, put each built file (and
    nothing else) under share/jupyter/labextensions/<name>/: a new content hash needs no edit there."""
    data_files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = {f"{target}/{pathlib.PurePath(source).name}": source
               for target, sources in canonic_data_files(data_files, REPO) if "labextensions" in target
               for source in sources}
    built = {f"share/jupyter/labextensions/{path.relative_to(EXTENSIONS)}": str(path.relative_to(REPO))
             for path in BUILT.rglob("*") if path.is_file()}
    assert shipped == built
    assert len(built) >= 3  # package.json, remoteEntry, the plugin's chunk at least

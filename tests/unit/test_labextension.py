"""Does the students' Lab extension (autograde/coursekit/labextension) open a fetched feedback page
when nbgrader's "(view feedback)" moves the file browser there, and nothing else; does Lab find it;
does the wheel ship all of it?

The extension is JavaScript written by hand (no build step). Here Node runs the very file Lab loads,
against a stand-in for Lab's application (command registry, contents service). The hub's Chromium
tests (test_hub_service.py, test_hub.py) click the real link.
"""
import json
import os
import pathlib
import shutil
import subprocess
import tomllib

import pytest
from jupyterlab_server.config import get_federated_extensions

REPO = pathlib.Path(__file__).resolve().parents[2]
EXTENSIONS = REPO / "autograde" / "coursekit" / "labextension"
NAME = "attention-feedback"
FOLDER = "ch04_attention/feedback/2026-12-01 10:00:00.123456 UTC"

# Loads the extension as Lab's page does (window._JUPYTERLAB[name]: init, then get("./extension")),
# activates its plugins on a stand-in app, replays the executed commands of argv[2] (JSON), and
# prints what the extension asked Lab to do.
HARNESS = r"""
const fs = require('fs');
const vm = require('vm');
const [file, executedJson] = process.argv.slice(-2);
const window = {};
vm.runInNewContext(fs.readFileSync(file, 'utf8'), { window, console, Promise, Error });
const listeners = [];
const asked = [];
const app = {
  commands: {
    commandExecuted: { connect: fn => listeners.push(fn) },
    execute: async (id, args) => { asked.push({ execute: id, args }); }
  },
  serviceManager: { contents: { get: async (path, options) => {
    asked.push({ list: path, content: options.content });
    return { content: [
      { type: 'file', name: 'ch04_attention.html', path: `${path}/ch04_attention.html` },
      { type: 'file', name: 'notes.txt', path: `${path}/notes.txt` },
      { type: 'directory', name: 'old.html', path: `${path}/old.html` }
    ] };
  } } }
};
(async () => {
  const container = window._JUPYTERLAB['attention-feedback'];
  await container.init({});
  const module = (await container.get('./extension'))();
  const plugins = module.__esModule ? module.default : module;
  for (const plugin of plugins) {
    if (plugin.autoStart) plugin.activate(app);
  }
  for (const executed of JSON.parse(executedJson)) {
    listeners.forEach(fn => fn(app.commands, executed));
  }
  await new Promise(resolve => setTimeout(resolve, 50));
  let missing = null;
  try { await container.get('./other'); } catch (error) { missing = error.message; }
  console.log(JSON.stringify({ ids: plugins.map(p => p.id), asked, missing }));
})();
"""


def _node() -> str:
    node = shutil.which("node")
    if not node:
        if os.environ.get("CI") == "true":
            pytest.fail("node is required under CI=true (the hub needs it too): apt-get install nodejs")
        pytest.skip("node missing; enable: apt-get install nodejs")
    return node


def _run(executed) -> dict:
    entry = EXTENSIONS / NAME / "static" / "remoteEntry.js"
    done = subprocess.run([_node(), "-e", HARNESS, "--", str(entry), json.dumps(executed)],
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
            {"execute": "docmanager:open", "args": {"path": f"{FOLDER}/ch04_attention.html", "factory": "HTML Viewer"}},
        ]


@pytest.mark.parametrize("executed", [
    {"id": "filebrowser:go-to-path", "args": {"path": "ch04_attention"}},
    {"id": "filebrowser:go-to-path", "args": {"path": "ch04_attention/feedback"}},
    {"id": "filebrowser:go-to-path", "args": {"path": f"{FOLDER}/ch04_attention.html"}},
    {"id": "filebrowser:go-to-path", "args": {}},
    {"id": "docmanager:open", "args": {"path": FOLDER}},
])
def test_does_anything_else_leave_lab_alone(executed):
    """Any other folder, a file, no path, or another command with a feedback folder: nothing asked."""
    assert _run([executed])["asked"] == []


def test_is_it_one_plugin_and_does_it_refuse_other_modules():
    shown = _run([])
    assert shown["ids"] == [f"{NAME}:open-on-view"]
    assert shown["missing"] == f"{NAME} has no module ./other"


def test_does_jupyterlab_find_it_as_a_prebuilt_extension():
    """Lab's own discovery reads the folder's package.json, and the file it will load exists."""
    found = get_federated_extensions([str(EXTENSIONS)])
    assert list(found) == [NAME]
    build = found[NAME]["jupyterlab"]["_build"]
    assert (EXTENSIONS / NAME / build["load"]).is_file()
    assert build["extension"] == "./extension"


def test_does_the_wheel_ship_every_file_of_it_where_lab_looks():
    """pyproject's data-files put each file of the folder under share/jupyter/labextensions/<name>/."""
    data_files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = {f"{target}/{pathlib.PurePath(source).name}": source
               for target, sources in data_files.items() if "labextensions" in target for source in sources}
    on_disk = {f"share/jupyter/labextensions/{path.relative_to(EXTENSIONS)}": str(path.relative_to(REPO))
               for path in (EXTENSIONS / NAME).rglob("*") if path.is_file()}
    assert shipped == on_disk

"""Is JupyterHub's proxy installed once when several hubs need it at the same moment, and again after npm stopped
half-way? (``hub.launch.ensure_proxy``, with a stand-in ``npm`` that takes half a second and logs each run.)"""
import multiprocessing
import os
import pathlib
import stat

import pytest

from hub.launch import PROXY_MARK, ensure_proxy

FAKE_NPM = """#!/bin/sh
# npm install --prefix <prefix> ...: half a second, then the executable; one line per run
echo run >> "$NPM_LOG"
sleep 0.5
mkdir -p "$3/node_modules/.bin" && touch "$3/node_modules/.bin/configurable-http-proxy"
"""


@pytest.fixture
def fake_npm(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("npm", FAKE_NPM), ("node", "#!/bin/sh\nexit 0\n")):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(stat.S_IRWXU)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("NPM_LOG", str(tmp_path / "npm.log"))
    return tmp_path / "npm.log"


def _install(prefix: str) -> str:
    return str(ensure_proxy(pathlib.Path(prefix)))


def test_do_three_hubs_starting_at_once_install_the_proxy_once(fake_npm, tmp_path):
    prefix = tmp_path / "state" / "hub-proxy"
    with multiprocessing.get_context("fork").Pool(3) as pool:
        found = pool.map(_install, [str(prefix)] * 3)
    assert set(found) == {str(prefix / "node_modules" / ".bin" / "configurable-http-proxy")}
    assert fake_npm.read_text().splitlines() == ["run"]
    assert (prefix / PROXY_MARK).exists()
    assert _install(str(prefix)) == found[0] and fake_npm.read_text().splitlines() == ["run"]  # done: no npm


def test_is_an_install_npm_did_not_finish_made_again(fake_npm, tmp_path):
    prefix = tmp_path / "state" / "hub-proxy"
    executable = prefix / "node_modules" / ".bin" / "configurable-http-proxy"
    executable.parent.mkdir(parents=True)
    executable.touch()  # npm links the executable before it has unpacked everything
    assert _install(str(prefix)) == str(executable)
    assert fake_npm.read_text().splitlines() == ["run"] and (prefix / PROXY_MARK).exists()

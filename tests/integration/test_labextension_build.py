"""Is the committed build of the students' Lab extension (autograde/coursekit/labextension/attention-feedback/)
what its source builds to now?

Builds it as ``make labextension`` does (scripts/build_labextension.py: npm ci from package-lock.json,
tsc, JupyterLab's builder), but in temporary folders, and compares file by file, byte for byte. The
builder is deterministic once module ids are named (rspack.config.js says why): the same source
gives the same bytes in any folder. npm's cache is .state/npm; with it or without (CI's fresh clone) the
test takes 7–21 s, mostly npm unpacking ≈ 200 MB into node_modules (autograde/README.md).
"""
import importlib.util
import os

import pytest

from coursekit.paths import REPO

SCRIPT = REPO / "scripts" / "build_labextension.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("build_labextension", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_labextension = _load_script()


def _files(folder) -> dict:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_is_the_committed_build_what_the_source_builds_to(tmp_path):
    problem = build_labextension.node_problem()
    if problem:
        pytest.fail(f"{problem} (required under CI=true)") if os.environ.get("CI") == "true" else pytest.skip(problem)
    build_labextension.build(out=tmp_path / "out", work=tmp_path / "work")
    committed = build_labextension.SOURCE / build_labextension.output_dir_name()
    fresh, kept = _files(tmp_path / "out"), _files(committed)
    differ = sorted(name for name in fresh.keys() | kept.keys() if fresh.get(name) != kept.get(name))
    assert not differ, (f"{committed.relative_to(REPO)} is not what the source builds to ({', '.join(differ)} differ): "
                        "run `make labextension` and commit it")

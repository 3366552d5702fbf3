"""Tests for scripts/release_notebook.py: the student notebook is the master's nbgrader release."""
import importlib.util

import nbformat
import pytest

from coursekit.paths import REPO

SCRIPT = REPO / "scripts" / "release_notebook.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("release_notebook", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


release = _load_script()


def _executed_like(nb):
    """A copy that looks like it was run and saved in JupyterLab."""
    nb = nbformat.from_dict(nb)
    nb.metadata["widgets"] = {"state": {}}
    for cell in nb.cells:
        cell.metadata["collapsed"] = False
        if cell.cell_type == "code":
            cell.execution_count = 3
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hi\n")]
    return nb


def test_is_the_committed_student_notebook_what_make_release_produces_now():
    """Is notebooks/ch04_attention.ipynb fresh (regenerated from the master in a temp course)?"""
    fresh, committed = release.fresh_text(), release.STUDENT_NOTEBOOK.read_text(encoding="utf-8")
    assert release.without_python_version(fresh) == release.without_python_version(committed), (
        "notebooks/ch04_attention.ipynb is stale: the master changed; run `make release` and commit it"
    )


def test_does_the_notebook_carry_the_language_info_the_kernel_reports():
    """Is metadata.language_info what a real python3 kernel reports (else JupyterLab marks it changed on open)?"""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        reported = client.kernel_info(reply=True, timeout=30)["content"]["language_info"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    for path in (release.STUDENT_NOTEBOOK, release.MASTER):
        info = nbformat.read(path, as_version=4).metadata.language_info
        assert {**info, "version": ""} == {**reported, "version": ""}, path
    assert release.language_info() == reported  # made on this Python: equal, version included


def test_does_normalising_clear_outputs_and_run_time_metadata_but_keep_nbgrader_checksums():
    """Are outputs and editor metadata dropped while nbgrader metadata (checksums) and tags survive?"""
    student = nbformat.read(release.STUDENT_NOTEBOOK, as_version=4)
    clean = release.normalise(_executed_like(student))
    assert all(c.outputs == [] and c.execution_count is None for c in clean.cells if c.cell_type == "code")
    assert "widgets" not in clean.metadata
    assert [c.metadata for c in clean.cells] == [c.metadata for c in student.cells]
    assert any("checksum" in c.metadata.get("nbgrader", {}) for c in clean.cells)


@pytest.mark.parametrize("path", [release.STUDENT_NOTEBOOK, release.COURSE / "source" / "ch04_attention" / "ch04_attention.ipynb"])
def test_are_committed_notebooks_already_normalised(path):
    """Were both the master and the student copy committed with outputs cleared and metadata normalised?"""
    text = path.read_text(encoding="utf-8")
    assert release.dumps(release.normalise(nbformat.reads(text, as_version=4))) == text


def test_does_the_check_mode_report_a_stale_copy(tmp_path, monkeypatch, capsys):
    """Does `--check` exit 1 and say STALE when the committed copy differs from a fresh release?"""
    fresh = release.STUDENT_NOTEBOOK.read_text(encoding="utf-8")
    stale = tmp_path / "ch04_attention.ipynb"
    stale.write_text(fresh.replace("第 4 章", "第 5 章", 1), encoding="utf-8")
    monkeypatch.setattr(release, "fresh_text", lambda: fresh)  # the real one is tested above
    monkeypatch.setattr(release, "STUDENT_NOTEBOOK", stale)
    monkeypatch.setattr(release, "REPO", tmp_path)
    assert release.main(["--check"]) == 1
    assert "STALE" in capsys.readouterr().out

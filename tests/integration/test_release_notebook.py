"""Tests for scripts/release_notebook.py: each edition's student notebook is the master's nbgrader release."""
import nbformat
import pytest

from attnkit import edition
from coursekit.paths import source_notebook
from support.editions import ASSIGNMENTS, EDITIONS, release_script

release = release_script()


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


@pytest.mark.parametrize("lang", EDITIONS)
def test_is_the_committed_student_notebook_what_make_release_produces_now(lang):
    """Is notebooks/ch04_attention.ipynb (and notebooks/en/…) fresh (regenerated from the master in a temp course)?"""
    path = release.student_notebook(lang)
    fresh, committed = release.fresh_text(lang), path.read_text(encoding="utf-8")
    assert release.without_python_version(fresh) == release.without_python_version(committed), (
        f"{path.relative_to(release.REPO)} is stale: the master changed; run `make release` and commit it"
    )


def test_is_the_english_assignments_source_the_master_in_english_now():
    """Is autograde/source/ch04_attention_en/ what make release writes from the master now (no second copy to edit:
    the same cells, grade ids, points and solutions, in English, its language in its metadata)?"""
    path = source_notebook(release.COURSE, ASSIGNMENTS["en"])
    master = nbformat.read(release.MASTER, as_version=4)
    assert release.is_current(path, release.edition_source_text(master, "en")), (
        f"{path.relative_to(release.REPO)} is stale: the master changed; run `make release` and commit it")
    english = nbformat.read(path, as_version=4)
    assert [(c.get("id"), c.metadata.get("nbgrader")) for c in english.cells] == \
        [(c.get("id"), c.metadata.get("nbgrader")) for c in master.cells]
    assert english.metadata.edition == {"language": "en"} and not edition.foreign_text(nbformat.writes(english))


def test_does_release_check_name_a_stale_english_source(tmp_path, monkeypatch):
    """The check fails on a source edited by hand (the way a stale one would show), naming the file?"""
    course = release.copy_course(tmp_path / "course")
    path = source_notebook(course, ASSIGNMENTS["en"])
    path.write_text(path.read_text(encoding="utf-8").replace("Write your", "Type your"), encoding="utf-8")
    monkeypatch.setattr(release, "COURSE", course)
    monkeypatch.setattr(release, "fresh_text", lambda lang: release.student_notebook(lang).read_text(encoding="utf-8"))
    assert release.stale_files() == [path]


def test_does_nbgrader_checksum_the_english_cells_it_released():
    """The English edition's locked and graded cells carry nbgrader's checksum of their English source (else
    Validate would call every one of them changed)?"""
    from nbgrader.utils import compute_checksum

    cells = [c for c in nbformat.read(release.student_notebook("en"), as_version=4).cells
             if "checksum" in c.metadata.get("nbgrader", {})]
    assert len(cells) >= 13 and all(c.metadata.nbgrader.checksum == compute_checksum(c) for c in cells)


def test_does_the_notebook_carry_the_language_info_the_kernel_reports():
    """Is metadata.language_info what a real python3 kernel reports (else JupyterLab marks it changed on open)?"""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        reported = client.kernel_info(reply=True, timeout=30)["content"]["language_info"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    for path in (*map(release.student_notebook, EDITIONS), release.MASTER):
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


@pytest.mark.parametrize("path", [*map(release.student_notebook, EDITIONS), release.MASTER])
def test_are_committed_notebooks_already_normalised(path):
    """Were the master and both student copies committed with outputs cleared and metadata normalised (the
    master keeping each cell's English, the glossary as attnkit writes it)?"""
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    clean = release.refresh_master(nb) if path == release.MASTER else release.normalise(nb)
    assert release.dumps(clean) == text


def test_does_the_release_drop_the_translations_and_keep_the_language():
    """Normalising a release drops the master's per-cell English but keeps metadata.edition (its language)?"""
    english = edition.translate(nbformat.read(release.MASTER, as_version=4), "en", release.chapter_translation("en"))
    english.cells[0].metadata[edition.KEY] = {"en": {"source": ["left over"]}}
    clean = release.normalise(english)
    assert clean.metadata.edition == {"language": "en"}
    assert not any(edition.KEY in c.metadata for c in clean.cells)


def test_does_the_check_mode_report_a_stale_copy(tmp_path, monkeypatch, capsys):
    """Does `--check` exit 1 and say STALE for exactly the edition whose committed copy differs?"""
    fresh = {lang: release.student_notebook(lang).read_text(encoding="utf-8") for lang in EDITIONS}
    copies = {"zh": tmp_path / "ch04_attention.ipynb", "en": tmp_path / "en" / "ch04_attention.ipynb"}
    copies["en"].parent.mkdir()
    copies["zh"].write_text(fresh["zh"], encoding="utf-8")
    copies["en"].write_text(fresh["en"].replace("Chapter 4", "Chapter 5", 1), encoding="utf-8")
    monkeypatch.setattr(release, "fresh_text", lambda lang="zh": fresh[lang])  # the real one is tested above
    monkeypatch.setattr(release, "student_notebook", copies.get)
    monkeypatch.setattr(release, "REPO", tmp_path)
    monkeypatch.setattr(release, "COURSE", release.copy_course(tmp_path / "autograde"))  # its English source: fresh
    assert release.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert "ch04_attention.ipynb is fresh" in out and "en/ch04_attention.ipynb is STALE" in out

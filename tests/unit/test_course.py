"""Is the nbgrader course in autograde/ set up as documented: its config, the master's cells, the release's stubs?

Read from the files only; running the notebooks, validating and grading them: tests/integration/.
"""
import os
import re
import subprocess

import nbformat
import pytest
from nbconvert.preprocessors import Preprocessor
from traitlets.config.loader import PyFileConfigLoader

from attnkit import lab, verify
from attnkit.gradecell import TEST_CELLS
from coursekit.paths import COURSE, MASTER, REPO
from coursekit.paths import STUDENT_NOTEBOOK as STUDENT
from coursekit.plugins import ZeroOnFailureExporter
from grader.checks import HIDDEN
from grader.practice import EXERCISES
from support.course_tools import MANUAL, POINTS
from support.course_tools import cells_by_id as _cells



def _config():
    return PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()


def test_does_the_config_keep_everything_inside_the_course_by_default(monkeypatch):
    """Without env vars: course id attention-ch04, exchange under autograde/, 10 s cell timeout?"""
    for var in ("ATTN_COURSE_ID", "ATTN_EXCHANGE", "ATTN_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    cfg = _config()
    assert cfg.CourseDirectory.course_id == "attention-ch04"
    assert cfg.CourseDirectory.root == str(COURSE)
    assert cfg.Exchange.root == str(COURSE / "exchange")
    assert cfg.Execute.timeout == 10


def test_can_course_id_exchange_and_timeout_be_overridden_by_env(monkeypatch, tmp_path):
    """Do ATTN_COURSE_ID, ATTN_EXCHANGE and ATTN_TIMEOUT reach the nbgrader config?"""
    monkeypatch.setenv("ATTN_COURSE_ID", "ch04-spring")
    monkeypatch.setenv("ATTN_EXCHANGE", str(tmp_path / "exchange"))
    monkeypatch.setenv("ATTN_TIMEOUT", "7")
    cfg = _config()
    assert (cfg.CourseDirectory.course_id, cfg.Exchange.root, cfg.Execute.timeout) == (
        "ch04-spring", str(tmp_path / "exchange"), 7)


def test_is_the_notebook_checked_once_after_the_last_step_and_still_refused_when_invalid():
    """Grading's exporter: a notebook invalid after one step is not refused if a later step repairs it, and a
    notebook invalid at the end still is (checked once, not after each of nbgrader's steps)?"""
    class Breaks(Preprocessor):
        def preprocess(self, nb, resources):
            nb.cells[0].outputs = "not a list"
            return nb, resources

    class Repairs(Preprocessor):
        def preprocess(self, nb, resources):
            nb.cells[0].outputs = []
            return nb, resources

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    exporter = ZeroOnFailureExporter(config=_config())
    exporter.register_preprocessor(Breaks, enabled=True)
    exporter.register_preprocessor(Repairs, enabled=True)
    exported, _ = exporter.from_notebook_node(nb)
    assert nbformat.reads(exported, as_version=4).cells[0].outputs == []
    broken = ZeroOnFailureExporter(config=_config())
    broken.register_preprocessor(Breaks, enabled=True)
    with pytest.raises(nbformat.ValidationError):
        broken.from_notebook_node(nb)


def test_are_deleted_test_cells_restored_and_stubs_the_assignments():
    """add_missing_cells on; the release stubs chosen per assignment (the chapter's: the Chinese comment plus
    `pass`, not NotImplementedError)?"""
    from coursekit.stubs import AssignmentStubs

    cfg = _config()
    assert cfg.OverwriteCells.add_missing_cells is True
    assert AssignmentStubs in cfg.GenerateAssignment.preprocessors


def test_are_generated_course_folders_ignored_by_git():
    """Would release/, submitted/, autograded/, feedback/, exchange/ and the gradebook stay out of git?"""
    paths = [f"autograde/{p}" for p in ("release/x", "submitted/x", "autograded/x", "feedback/x",
                                        "exchange/x", "gradebook.db")]
    ignored = subprocess.run(["git", "check-ignore", *paths], cwd=REPO, capture_output=True, text=True)
    assert ignored.stdout.split() == paths


# ---------- the master's structure ----------

def test_does_the_master_grade_what_the_readme_documents():
    """Four autograded test cells (4+3+3+2, as attnkit.gradecell says) and eight manual answers (1 each): 20 points;
    the practice exercises' test cells are graded too, at 0 points each?"""
    meta = [c.metadata["nbgrader"] for c in nbformat.read(MASTER, as_version=4).cells if "nbgrader" in c.metadata]
    graded = {m["grade_id"]: m["points"] for m in meta if m["grade"]}
    assert graded == {**POINTS, **{q: 1 for q in MANUAL}, **{e.grade_id: 0 for e in EXERCISES}}
    assert list(POINTS.values()) == [4, 3, 3, 2] and sum(graded.values()) == 20
    readme = (COURSE / "README.md").read_text(encoding="utf-8")
    for exercise in EXERCISES:
        row = f"| `{exercise.grade_id}` | practice | 0 | 0 + {len(exercise.checks)} = {len(exercise.checks)} |"
        assert row in readme
    report = verify.run_all(*lab.REFERENCE, file=open(os.devnull, "w"))
    for test, visible_report in zip(TEST_CELLS, report.tests):
        visible, hidden = visible_report.total, len(HIDDEN[test.number])
        row = f"| `{test.grade_id}` | autograded | {test.points:g} | {visible} + {hidden} = {visible + hidden} |"
        assert row in readme
        assert test.points / (visible + hidden) == 0.25  # every check is worth the same
    answers = [m["grade_id"] for m in meta if m["solution"] and not m["grade"]]
    assert answers[:3] == ["student_attention_scores", "student_apply_mask", "student_softmax"]
    assert sorted(answers[3:]) == sorted(e.function for e in EXERCISES)  # the practice exercises' functions


@pytest.mark.parametrize("test", TEST_CELLS, ids=[t.grade_id for t in TEST_CELLS])
def test_is_each_test_cell_shaped_for_partial_credit(test):
    """Docstring first, then gradecell.run(n, …) as the score; no hidden region (the grader runs in a process of
    its own and grades the cell before it runs: nothing of it is in the notebook)?"""
    source = _cells(nbformat.read(MASTER, as_version=4))[test.grade_id].source
    args = ", ".join(test.roles)
    assert source.startswith('"""检查 ')  # the master is the Chinese edition; its English: test_editions.py
    assert "HIDDEN TESTS" not in source and "grader" not in source.replace("the grader", "")
    assert f"_score = gradecell.run({test.number}, {args})" in source
    assert source.splitlines()[-1] == "_score"


def test_is_the_release_s_test_cell_the_master_s():
    """The students get the very test cells the course grades (nothing is removed from them on release)?"""
    master, release = (_cells(nbformat.read(path, as_version=4)) for path in (MASTER, STUDENT))
    assert all(master[test.grade_id].source == release[test.grade_id].source for test in TEST_CELLS)


def test_are_there_no_hidden_regions_and_no_grader_in_attnkit():
    """No cell of the master has a hidden region, and attnkit (which every kernel imports) never names the grader?"""
    cells = nbformat.read(MASTER, as_version=4).cells
    assert not [c.get("id") for c in cells if "HIDDEN TESTS" in c.source]
    assert not [p for p in (REPO / "attnkit").glob("*.py") if "ATTN_GRADER" in p.read_text(encoding="utf-8")]


def test_is_every_placeholder_filled():
    """No cell is still a placeholder (tagged placeholder:* or marked 待补充)?"""
    cells = nbformat.read(MASTER, as_version=4).cells
    assert not [c.get("id") for c in cells if "待补充" in c.source or
                any(t.startswith("placeholder:") for t in c.metadata.get("tags", []))]


def test_do_the_released_stubs_keep_the_input_checks():
    """In the student copy, the input checks and `return 0` stay; only the solution became the stub?"""
    cells = _cells(nbformat.read(STUDENT, as_version=4))
    scores = cells["student_attention_scores"].source
    assert re.search(r"if not scores_inputs_ok\(Q, K, out\):.*\n        return -1\n"
                     r"    # 在这里写你的实现\n    pass\n    return 0$", scores)
    assert "mask_inputs_ok(scores, mask)" in cells["student_apply_mask"].source
    assert "softmax_inputs_ok(out, inp)" in cells["student_softmax"].source
    assert not any("BEGIN" in c.source or "ATTN_GRADER" in c.source for c in cells.values())


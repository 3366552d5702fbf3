"""Tests for the nbgrader course in autograde/: its config, the master notebook and its release.

The grading matrix and the full instructor round trip (release → fetch → submit → collect →
autograde → feedback → export) live in their own test files; here each notebook runs once.
"""
import os
import re
import shutil
import subprocess

import nbclient
import nbformat
import pytest
from nbgrader.preprocessors import ClearSolutions
from traitlets.config.loader import PyFileConfigLoader

from attnkit import lab, verify
from attnkit.gradecell import TEST_CELLS
from grader.checks import HIDDEN
from support.course_tools import COURSE, MANUAL, MASTER, POINTS, REPO, STUDENT, index_of
from support.course_tools import cell_score as _score, cells_by_id as _cells, course_copy as _course_copy
from support.course_tools import output_text as _text, run_nbgrader as _nbgrader

pytestmark = pytest.mark.integration  # real nbgrader, kernels, servers or a browser: `make test` only

# (visible verify checks passed by the untouched stubs, visible total, hidden total, hidden passed) per
# test cell. The stubs pass exactly one hidden check in TEST 1-3: the given input checks ("rejects bad input").
STUB_COUNTS = {"test1_scores": (6, 9, 7, 1), "test2_mask": (3, 6, 6, 1),
               "test3_softmax": (0, 4, 8, 1), "test4_end_to_end": (2, 3, 5, 0)}
HIDDEN_LIMIT = 40  # lines inside all hidden regions together: they only load the grader and call it
# The chapter's figure cells (issue 4) and what each must display when run.
FIGURES = ["pipeline", "neg-inf-figure", "multihead-grid"]


# ---------- helpers ----------

def _config():
    return PyFileConfigLoader("nbgrader_config.py", path=str(COURSE)).load_config()


def _execute(nb, cwd):
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120, allow_errors=True,
                            resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def _stubbed_master():
    """The master with solutions replaced by the configured stub, hidden tests kept (= autograding it)."""
    nb = nbformat.read(MASTER, as_version=4)
    nb, _ = ClearSolutions(config=_config()).preprocess(nb, {})
    return nb


def _with_cell_after(nb, grade_id, source):
    """A student's added cell (no nbgrader metadata) right after the cell ``grade_id``."""
    nb.cells.insert(index_of(nb, grade_id) + 1, nbformat.v4.new_code_cell(source))
    return nb


@pytest.fixture(scope="module")
def master_run(tmp_path_factory):
    return _cells(_execute(nbformat.read(MASTER, as_version=4), tmp_path_factory.mktemp("master")))


@pytest.fixture(scope="module")
def student_run(tmp_path_factory):
    return _cells(_execute(nbformat.read(STUDENT, as_version=4), tmp_path_factory.mktemp("student")))


@pytest.fixture(scope="module")
def stubbed_run(tmp_path_factory):
    return _cells(_execute(_stubbed_master(), tmp_path_factory.mktemp("stubbed")))


# ---------- configuration ----------

def test_does_the_config_keep_everything_inside_the_course_by_default(monkeypatch):
    """Without env vars: course id attention-ch04, exchange under autograde/, 60 s cell timeout?"""
    for var in ("ATTN_COURSE_ID", "ATTN_EXCHANGE", "ATTN_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    cfg = _config()
    assert cfg.CourseDirectory.course_id == "attention-ch04"
    assert cfg.CourseDirectory.root == str(COURSE)
    assert cfg.Exchange.root == str(COURSE / "exchange")
    assert cfg.Execute.timeout == 60


def test_can_course_id_exchange_and_timeout_be_overridden_by_env(monkeypatch, tmp_path):
    """Do ATTN_COURSE_ID, ATTN_EXCHANGE and ATTN_TIMEOUT reach the nbgrader config?"""
    monkeypatch.setenv("ATTN_COURSE_ID", "ch04-spring")
    monkeypatch.setenv("ATTN_EXCHANGE", str(tmp_path / "exchange"))
    monkeypatch.setenv("ATTN_TIMEOUT", "7")
    cfg = _config()
    assert (cfg.CourseDirectory.course_id, cfg.Exchange.root, cfg.Execute.timeout) == (
        "ch04-spring", str(tmp_path / "exchange"), 7)


def test_are_deleted_test_cells_restored_and_stubs_chinese():
    """add_missing_cells on; the release stub is the Chinese comment plus `pass`, not NotImplementedError?"""
    cfg = _config()
    assert cfg.OverwriteCells.add_missing_cells is True
    assert cfg.ClearSolutions.code_stub == {"python": "# 在这里写你的实现\npass"}


def test_are_generated_course_folders_ignored_by_git():
    """Would release/, submitted/, autograded/, feedback/, exchange/ and the gradebook stay out of git?"""
    paths = [f"autograde/{p}" for p in ("release/x", "submitted/x", "autograded/x", "feedback/x",
                                        "exchange/x", "gradebook.db")]
    ignored = subprocess.run(["git", "check-ignore", *paths], cwd=REPO, capture_output=True, text=True)
    assert ignored.stdout.split() == paths


# ---------- the master's structure ----------

def test_does_the_master_grade_what_the_readme_documents():
    """Four autograded test cells (4+3+3+2, as attnkit.gradecell says) and eight manual answers (1 each): 20 points?"""
    meta = [c.metadata["nbgrader"] for c in nbformat.read(MASTER, as_version=4).cells if "nbgrader" in c.metadata]
    graded = {m["grade_id"]: m["points"] for m in meta if m["grade"]}
    assert graded == {**POINTS, **{q: 1 for q in MANUAL}}
    assert list(POINTS.values()) == [4, 3, 3, 2] and sum(graded.values()) == 20
    readme = (COURSE / "README.md").read_text(encoding="utf-8")
    report = verify.run_all(*lab.REFERENCE, file=open(os.devnull, "w"))
    for test, visible_report in zip(TEST_CELLS, report.tests):
        visible, hidden = visible_report.total, len(HIDDEN[test.number])
        row = f"| `{test.grade_id}` | autograded | {test.points:g} | {visible} + {hidden} = {visible + hidden} |"
        assert row in readme
        assert test.points / (visible + hidden) == 0.25  # every check is worth the same
    answers = [m["grade_id"] for m in meta if m["solution"] and not m["grade"]]
    assert answers == ["student_attention_scores", "student_apply_mask", "student_softmax"]


@pytest.mark.parametrize("test", TEST_CELLS, ids=[t.grade_id for t in TEST_CELLS])
def test_is_each_test_cell_shaped_for_partial_credit(test):
    """Docstring first; visible part gradecell.run(n, …); a hidden region that only loads the grader and calls it?"""
    source = _cells(nbformat.read(MASTER, as_version=4))[test.grade_id].source
    args = ", ".join(test.roles)
    assert source.startswith('"""Check that ')
    assert source.count("### BEGIN HIDDEN TESTS") == source.count("### END HIDDEN TESTS") == 1
    hidden = re.search(r"### BEGIN HIDDEN TESTS\n(.*)### END HIDDEN TESTS\n", source, flags=re.S).group(1)
    visible = source.replace(hidden, "")
    assert f"_score = gradecell.run({test.number}, {args})" in visible
    assert '_os.environ["ATTN_GRADER"]' in hidden and f"_grader.grade({test.number}, {args})" in hidden
    assert source.splitlines()[-1] == "_score"


def test_are_the_hidden_regions_small():
    """All hidden regions together stay within the limit: the grader lives in autograde/grader/, not in cells?"""
    text = "\n".join(c.source for c in nbformat.read(MASTER, as_version=4).cells)
    regions = re.findall(r"BEGIN HIDDEN TESTS(.*?)END HIDDEN TESTS", text, flags=re.S)
    assert len(regions) == 4
    assert sum(len([line for line in r.splitlines() if line.strip()]) for r in regions) <= HIDDEN_LIMIT


def test_are_hidden_tests_only_in_test_cells():
    """Hidden regions appear in the four autograded test cells and nowhere else (not in attnkit either)?"""
    cells = nbformat.read(MASTER, as_version=4).cells
    holders = [c.metadata.get("nbgrader", {}).get("grade_id") for c in cells if "BEGIN HIDDEN TESTS" in c.source]
    assert holders == list(POINTS)
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


# ---------- running the notebooks ----------

def test_does_the_master_run_top_to_bottom_and_pass_everything(master_run):
    """With solutions: no error, no stderr anywhere, verify prints 全 PASS, every test cell gets full points?"""
    assert not [k for k, c in master_run.items() if c.cell_type == "code" and
                any(o.output_type == "error" for o in c.outputs)]
    assert not [k for k, c in master_run.items() if c.cell_type == "code" and _text(c, "stderr")]
    assert "结果: 全 PASS  (22 个断言)" in _text(master_run["verify_student"])
    assert {g: _score(master_run[g]) for g in POINTS} == {g: float(p) for g, p in POINTS.items()}


def test_does_the_release_run_top_to_bottom_and_show_the_lab_baseline(student_run):
    """Untouched release: no error, no stderr, both verify cells print 11 失败 / 11 通过?"""
    codes = [c for c in student_run.values() if c.cell_type == "code"]
    assert not [c.source[:40] for c in codes if any(o.output_type == "error" for o in c.outputs) or _text(c, "stderr")]
    assert "结果: 11 失败 / 11 通过" in _text(student_run["verify_student"])
    assert "结果: 11 失败 / 11 通过" in _text(student_run["verify_baseline"])


def test_does_the_chapter_show_its_figures_widget_and_timing(student_run):
    """Figures render as images, the explorer as a live widget, the timing as a measured ratio?"""
    for cell_id in FIGURES:
        assert any("image/png" in o.get("data", {}) for o in student_run[cell_id].outputs), cell_id
    widget_mime = "application/vnd.jupyter.widget-view+json"
    assert any(widget_mime in o.get("data", {}) for o in student_run["explorer"].outputs)
    assert len(re.findall(r"快 +\d+ 倍   结果一致: True", _text(student_run["timing"]))) == 4


def test_does_the_diagnosis_follow_the_visible_verify(master_run, student_run):
    """Right after verify: the reference gets no finding, the untouched stubs are told scores deviates first?"""
    assert "没有发现问题" in _text(master_run["diagnosis"])
    assert "最先偏离参考实现的是 student_attention_scores（scores 阶段）" in _text(student_run["diagnosis"])
    order = list(student_run)
    assert order.index("diagnosis") == order.index("verify_student") + 2  # after its markdown lead-in


def test_does_the_release_give_visible_partial_credit_as_plain_floats(student_run):
    """Release test cells (no hidden part): points × visible passed / visible total, rounded, as float text?"""
    for grade_id, (passed, total, _, _) in STUB_COUNTS.items():
        assert _score(student_run[grade_id]) == round(POINTS[grade_id] * passed / total, 2)
        assert "评分时" in _text(student_run[grade_id])
    assert student_run["test1_scores"].outputs[-1].data["text/plain"] == "2.67"  # 4 × 6/9, not 2.6666666666666665


def test_does_autograding_the_untouched_stubs_give_the_documented_baseline(stubbed_run):
    """Master with stubs (as autograde sees it): points × (visible + hidden passed) / all checks?"""
    for grade_id, (passed, total, hidden, hidden_passed) in STUB_COUNTS.items():
        cell = stubbed_run[grade_id]
        assert not _text(cell, "stderr")
        assert _score(cell) == pytest.approx(POINTS[grade_id] * (passed + hidden_passed) / (total + hidden), rel=1e-12)
        assert len(re.findall(r"\[(PASS|FAIL)\] 隐藏检查 \d+:", _text(cell))) == hidden


def test_does_delegating_to_attnkit_earn_nothing_for_that_function(tmp_path):
    """student_softmax redefined in an added cell as attnkit's reference: TEST 3 and TEST 4 score 0?"""
    nb = _with_cell_after(nbformat.read(MASTER, as_version=4), "student_softmax",
                          "import attnkit\nstudent_softmax = attnkit.lab.softmax")
    cells = _cells(_execute(nb, tmp_path))
    scores = {g: _score(cells[g]) for g in POINTS}
    assert scores == {"test1_scores": 4.0, "test2_mask": 3.0, "test3_softmax": 0.0, "test4_end_to_end": 0.0}
    assert "attnkit 的参考实现" in _text(cells["test3_softmax"])


def test_does_shadowing_builtins_in_the_notebook_leave_grading_alone(tmp_path):
    """`from numpy import *` and a student's own `sum` in the namespace: full marks, plain floats?"""
    nb = _with_cell_after(nbformat.read(MASTER, as_version=4), "student_attention_scores",
                          "from numpy import *\n\ndef sum(values):\n    return 0")
    cells = _cells(_execute(nb, tmp_path))
    assert {g: _score(cells[g]) for g in POINTS} == {g: float(p) for g, p in POINTS.items()}


def test_does_monkeypatching_verify_earn_nothing(tmp_path):
    """A stub submission that makes verify's float comparison always true: every test cell scores 0?"""
    nb = _with_cell_after(_stubbed_master(), "student_attention_scores",
                          "import attnkit\nattnkit.verify._eq = lambda value, expected: True")
    cells = _cells(_execute(nb, tmp_path))
    assert {g: _score(cells[g]) for g in POINTS} == {g: 0.0 for g in POINTS}
    assert "被改动" in _text(cells["test1_scores"])


# ---------- nbgrader itself ----------

def test_does_nbgrader_validate_pass_the_master(tmp_path):
    """`nbgrader validate` on the master (solutions + hidden tests) reports success?"""
    result = _nbgrader("validate", str(MASTER), cwd=tmp_path)
    assert "Success! Your notebook passes all the tests." in result.stdout, result.stdout + result.stderr


def test_does_nbgrader_validate_report_the_untouched_release_as_failing(tmp_path):
    """`nbgrader validate` on the release: 4 test cells with partial credit + 8 empty answers fail?"""
    result = _nbgrader("validate", str(STUDENT), cwd=tmp_path)
    assert "VALIDATION FAILED ON 12 CELL(S)!" in result.stdout, result.stdout + result.stderr
    assert result.stdout.count("You did not provide a response.") == len(MANUAL)


def test_does_feedback_show_results_but_neither_hidden_tests_nor_solutions(tmp_path):
    """Autograde an untouched submission: feedback keeps [PASS]/[FAIL] lines, drops grader code and answers?"""
    course = _course_copy(tmp_path)
    assert _nbgrader("generate_assignment", "ch04_attention", cwd=course).returncode == 0
    submission = course / "submitted" / "student1" / "ch04_attention"
    submission.mkdir(parents=True)
    shutil.copy2(course / "release" / "ch04_attention" / "ch04_attention.ipynb", submission)
    for step in ("autograde", "generate_feedback"):
        result = _nbgrader(step, "ch04_attention", cwd=course)
        assert result.returncode == 0, result.stderr
    html = (course / "feedback" / "student1" / "ch04_attention" / "ch04_attention.html").read_text(encoding="utf-8")
    assert "[FAIL] out[0][0] = 0.5" in html and "隐藏检查 7" in html and "本项得分" in html
    assert "最先偏离参考实现的是 student_attention_scores" in html  # the diagnosis, printed by TEST 4
    for secret in ("ATTN_GRADER", "spec_from_file_location", "BEGIN HIDDEN TESTS", "ALLOWED_LAB",  # the loader
                   "vnd.attnkit.grading", "每行最大值变成 0", "两万倍"):  # grading records; solution; answer
        assert secret not in html
    release = (course / "release" / "ch04_attention" / "ch04_attention.ipynb").read_text(encoding="utf-8")
    for name in _grader_function_names():
        assert f"def {name}(" not in html and f"def {name}(" not in release, name
    autograded = nbformat.read(course / "autograded" / "student1" / "ch04_attention" / "ch04_attention.ipynb", 4)
    for grade_id in POINTS:  # the grader's record travels in the autograded notebook, one per test cell
        outputs = _cells(autograded)[grade_id].outputs
        assert sum("application/vnd.attnkit.grading+json" in o.get("data", {}) for o in outputs) == 1
    # one merged block of printed text per test cell (verify prints line by line)
    assert html.count("output_stream output_stdout") <= sum(c.cell_type == "code" for c in autograded.cells)


def _grader_function_names() -> set:
    return {name for path in (COURSE / "grader").glob("*.py")
            for name in re.findall(r"^\s*def (\w+)\(", path.read_text(encoding="utf-8"), flags=re.M)}

"""Do the master and its release run top to bottom, validate, and grade and give feedback as documented?

Each notebook runs once here as a student runs it, and once validated by nbgrader's own Validator; the master
only validated (tests/support/validating.py: what ``nbgrader validate`` prints, and every cell's outputs from the
same run). The untouched release's autograded
notebook and feedback come from the shared class (tests/support/classes.py: ``shadow_grader`` submitted it
unchanged).
"""
import re

import nbclient
import nbformat
import pytest

from attnkit import edition
from coursekit.record import MIME
from coursekit.paths import ASSIGNMENT, COURSE, MASTER
from coursekit.paths import STUDENT_NOTEBOOK as STUDENT
from support.course_tools import MANUAL, POINTS, pictures
from support.course_tools import cell_score as _score
from support.course_tools import cells_by_id as _cells
from support.course_tools import output_text as _text
from support.editions import master as edition_master
from support.editions import release as edition_release
from support.validating import validate

# (visible verify checks passed by the untouched stubs, visible total, hidden total, hidden passed) per
# test cell. The stubs pass exactly one hidden check in TEST 1-3: the given input checks ("rejects bad input").
STUB_COUNTS = {"test1_scores": (6, 9, 7, 1), "test2_mask": (3, 6, 6, 1),
               "test3_softmax": (0, 4, 8, 1), "test4_end_to_end": (2, 3, 5, 0)}
# The chapter's figure cells (issue 4) and what each must display when run.
FIGURES = ["pipeline", "neg-inf-figure", "multihead-grid"]


SUCCESS = "Success! Your notebook passes all the tests."


# ---------- helpers ----------

@pytest.fixture(scope="module")
def master():
    """The master (solutions, hidden tests), validated."""
    return validate(MASTER)


@pytest.fixture(scope="module")
def master_run(master):
    return _cells(master.executed)


def _execute(nb, cwd):
    """``nb`` run as a student runs it (not graded: the timing and the live explorer are shown)."""
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120, allow_errors=True,
                            resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


@pytest.fixture(scope="module")
def student_run(tmp_path_factory):
    """The release as a student first runs it (notebooks/)."""
    return _cells(_execute(nbformat.read(STUDENT, as_version=4), tmp_path_factory.mktemp("student")))


@pytest.fixture(scope="module")
def english_run(tmp_path_factory):
    """The English edition as a student first runs it (notebooks/en/)."""
    return _cells(_execute(edition_release("en"), tmp_path_factory.mktemp("english")))


@pytest.fixture(scope="module")
def untouched(shared_class):
    """The untouched release as autograding left it (hidden regions back), by cell id."""
    return _cells(nbformat.read(shared_class.notebook("shadow_grader"), as_version=4))


# ---------- running the notebooks ----------

def test_does_the_master_run_top_to_bottom_and_pass_everything(master, master_run):
    """With solutions: nbgrader validate's success, no error, no stderr anywhere, verify prints 全 PASS, every test
    cell gets full points?"""
    assert SUCCESS in master.said, master.said
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


def test_does_the_english_release_run_in_english(english_run, student_run):
    """Untouched English release: no error, no stderr, both verify cells print the English baseline, each test cell
    the same visible score as the Chinese one, and no Chinese character in any output?"""
    codes = [c for c in english_run.values() if c.cell_type == "code"]
    assert not [c.source[:40] for c in codes if any(o.output_type == "error" for o in c.outputs) or _text(c, "stderr")]
    assert "Result: 11 failed / 11 passed" in _text(english_run["verify_student"])
    assert "Result: 11 failed / 11 passed" in _text(english_run["verify_baseline"])
    assert {g: _score(english_run[g]) for g in STUB_COUNTS} == {g: _score(student_run[g]) for g in STUB_COUNTS}
    assert "the first stage to leave the reference is student_attention_scores" in _text(english_run["diagnosis"])
    printed = [(k, edition.foreign_text(_text(c) + str([o.get("data", {}).get("text/plain") for o in c.outputs])))
               for k, c in english_run.items() if c.cell_type == "code"]
    assert [(k, chars) for k, chars in printed if chars] == []
    for cell_id in FIGURES:
        assert pictures(english_run[cell_id].outputs), cell_id
    assert len(re.findall(r"\d+× faster   same result: True", _text(english_run["timing"]))) == 4


def test_does_the_chapter_show_its_figures_widget_and_timing(student_run):
    """Figures render as images, the explorer as a live widget, the timing as a measured ratio?"""
    for cell_id in FIGURES:
        assert pictures(student_run[cell_id].outputs), cell_id
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


def test_does_autograding_the_untouched_stubs_give_the_documented_baseline(untouched):
    """The untouched release, autograded: points × (visible + hidden passed) / all checks?"""
    for grade_id, (passed, total, hidden, hidden_passed) in STUB_COUNTS.items():
        cell = untouched[grade_id]
        assert not _text(cell, "stderr")
        assert _score(cell) == pytest.approx(POINTS[grade_id] * (passed + hidden_passed) / (total + hidden), rel=1e-12)
        assert len(re.findall(r"\[(PASS|FAIL)\] 隐藏检查 \d+:", _text(cell))) == hidden


# ---------- nbgrader itself ----------

def test_does_nbgrader_validate_pass_the_english_master_and_fail_its_release_as_the_chinese(tmp_path):
    """The master in English (solutions, hidden tests) passes `nbgrader validate`; its untouched English release
    fails on the same 12 cells, 8 of them unanswered?"""
    path = tmp_path / "master" / f"{ASSIGNMENT}.ipynb"
    path.parent.mkdir()
    nbformat.write(edition_master("en"), path)
    assert SUCCESS in validate(path).said
    english = validate(STUDENT.parent / "en" / STUDENT.name)
    assert "VALIDATION FAILED ON 12 CELL(S)!" in english.said, english.said
    assert english.said.count("You did not provide a response.") == len(MANUAL)


def test_does_nbgrader_validate_report_the_untouched_release_as_failing():
    """`nbgrader validate` on the release: 4 test cells with partial credit + 8 empty answers fail?"""
    student = validate(STUDENT)
    assert "VALIDATION FAILED ON 12 CELL(S)!" in student.said, student.said
    assert student.said.count("You did not provide a response.") == len(MANUAL)


def test_does_feedback_show_results_but_neither_hidden_tests_nor_solutions(shared_class, untouched):
    """The untouched submission's feedback keeps [PASS]/[FAIL] lines, drops grader code and answers?"""
    html = shared_class.feedback("shadow_grader").read_text(encoding="utf-8")
    assert "[FAIL] out[0][0] = 0.5" in html and "隐藏检查 7" in html and "本项得分" in html
    assert "最先偏离参考实现的是 student_attention_scores" in html  # the diagnosis, printed by TEST 4
    for secret in ("ATTN_GRADER", "spec_from_file_location", "BEGIN HIDDEN TESTS", "ALLOWED_LAB",  # the loader
                   "vnd.attnkit.grading", "每行最大值变成 0", "两万倍"):  # grading records; solution; answer
        assert secret not in html
    release = (shared_class.course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8")
    for name in _grader_function_names():
        assert f"def {name}(" not in html and f"def {name}(" not in release, name
    for grade_id in POINTS:  # the grader's record travels in the autograded notebook, one per test cell
        assert sum(MIME in o.get("data", {}) for o in untouched[grade_id].outputs) == 1
    # one merged block of printed text per test cell (verify prints line by line)
    assert html.count("output_stream output_stdout") <= sum(c.cell_type == "code" for c in untouched.values())


def _grader_function_names() -> set:
    return {name for path in (COURSE / "grader").glob("*.py")
            for name in re.findall(r"^\s*def (\w+)\(", path.read_text(encoding="utf-8"), flags=re.M)}

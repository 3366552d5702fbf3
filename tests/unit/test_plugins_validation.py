"""Does validate fold unanswered written answers into one Chinese entry naming them (coursekit/plugins/validation.py)?

Synthetic notebooks and the results nbgrader's Validator returns for them; the real ``nbgrader validate``
runs in tests/integration/test_course_workflow.py.
"""
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader import utils
from nbgrader.validator import Validator

from coursekit.plugins import validation
from coursekit.plugins.validation import NO_RESPONSE, name_unanswered_questions

STUB = "在这里写你的回答。"



@pytest.fixture(autouse=True, scope="module")
def _wrapped():
    """What the students' server extension does when their Jupyter server starts."""
    name_unanswered_questions()


def _answer(grade_id, source):
    cell = new_markdown_cell(STUB)
    cell.metadata["nbgrader"] = {"grade": True, "solution": True, "grade_id": grade_id, "points": 1, "locked": False}
    cell.metadata["nbgrader"]["checksum"] = utils.compute_checksum(cell)  # as released
    cell.source = source
    return cell


def _test(grade_id, source):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, "points": 4, "locked": True}
    return cell


def _class(answered=()):
    cells = [new_markdown_cell("### 任务 4.2：实现 scores"), _test("test1_scores", "run(1)"),
             new_markdown_cell("### 端到端评分：TEST 4"), _test("test4_end_to_end", "run(4)")]
    for n in (1, 2, 3):
        cells += [new_markdown_cell(f"### 思考题 {n}"), _answer(f"q{n}", "我的回答" if n in answered else STUB)]
    return new_notebook(cells=cells)


def _nbgraders(nb, failing_tests=()):
    """The failed entries nbgrader's Validator returns: failing test cells, then each unanswered answer."""
    entries = [{"source": c.source, "error": "Partial credit", "raw_error": "Partial credit"} for c in nb.cells
               if c.metadata.get("nbgrader", {}).get("grade_id") in failing_tests]
    entries += [{"source": STUB, "error": NO_RESPONSE, "raw_error": NO_RESPONSE} for c in nb.cells if c.source == STUB]
    return {"failed": entries}


def test_are_unanswered_answers_one_entry_naming_them_with_the_code_passing():
    """Two unanswered of three: one entry, both names, not the answered one, and '2 个评分单元格全部通过'?"""
    nb = _class(answered=(2,))
    folded = validation._fold(_nbgraders(nb), nb)
    [entry] = folded["failed"]
    assert entry["source"] == "2 道书面题还没有作答"
    assert "  · 思考题 1\n  · 思考题 3\n" in entry["raw_error"] and "思考题 2" not in entry["raw_error"]
    assert entry["raw_error"].endswith("代码：2 个评分单元格全部通过。") and entry["error"] == entry["raw_error"]
    assert NO_RESPONSE not in str(folded)


def test_does_a_failing_test_cell_keep_its_own_entry_and_get_named_in_the_verdict():
    nb = _class()
    folded = validation._fold(_nbgraders(nb, failing_tests=("test4_end_to_end",)), nb)
    kept, entry = folded["failed"]
    assert kept["source"] == "run(4)" and kept["raw_error"] == "Partial credit"
    assert entry["raw_error"].endswith("代码：1 个评分单元格没有全部通过（见上面各自的条目）：\n  · 端到端评分：TEST 4")


def test_are_results_without_unanswered_answers_left_as_nbgrader_made_them():
    nb = _class(answered=(1, 2, 3))
    results = _nbgraders(nb, failing_tests=("test1_scores",))
    assert validation._fold(results, nb) is results
    assert validation._fold({}, _class()) == {}


def test_does_the_fold_keep_to_what_nbgrader_reported_when_it_ignores_checksums():
    """With --Validator.ignore_checksums nbgrader reports no answer as unanswered (it cannot tell one as released):
    a failing test cell stays its only entry, and no entry about written questions is added."""
    nb = _class()
    results = {"failed": [e for e in _nbgraders(nb, failing_tests=("test4_end_to_end",))["failed"]
                          if e["raw_error"] != NO_RESPONSE]}
    assert validation._fold(results, nb) == results


def test_is_the_validator_wrapped_once_however_often_it_is_asked():
    """The first call wraps Validator.validate; calling it again changes nothing?"""
    name_unanswered_questions()
    wrapped = Validator.validate
    assert wrapped.folds_unanswered and not getattr(wrapped.__wrapped__, "folds_unanswered", False)
    name_unanswered_questions()
    assert Validator.validate is wrapped

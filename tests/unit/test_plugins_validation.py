"""Does validate remind the student of the unanswered written answers by name, not as a failed cell, in the notebook's language
(coursekit/plugins/validation.py)?

Synthetic notebooks and the results nbgrader's Validator returns for them; the real ``nbgrader validate``
runs in tests/integration/test_course_workflow.py.
"""
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader import utils
from nbgrader.validator import Validator
from traitlets.config import Config

from attnkit.edition import CJK, stubs
from coursekit.plugins import validation
from coursekit.plugins.validation import NO_RESPONSE, name_unanswered_questions

PARTIAL = "Partial credit; passed some but not all of the tests"  # nbgrader's (the Lab extension says it)
STUB = stubs("zh")["text"]
CHAPTER = Config({"CourseKit": {"assignments": {"ch04_attention": {"plugin": "attnkit.course"}}}})


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


def test_are_unanswered_answers_a_reminder_naming_them_not_a_failed_cell():
    """Two unanswered of three, the code passing: no failed entry at all (nbgrader's success), and a reminder naming
    both, not the answered one, saying it does not change the code's result?"""
    nb = _class(answered=(2,))
    folded = validation._fold(_nbgraders(nb), nb)
    assert "failed" not in folded and folded["language"] == "zh"
    assert folded["unanswered"]["names"] == ["思考题 1", "思考题 3"]
    text = folded["unanswered"]["text"]
    assert text.startswith("提醒：还有 2 道书面题没有作答：\n  · 思考题 1\n  · 思考题 3\n") and "思考题 2" not in text
    assert "不影响上面代码检查的结果" in text and NO_RESPONSE not in str(folded)


def test_does_a_failing_test_cell_stay_the_only_failed_entry_beside_the_reminder():
    """A failing test cell and three unanswered answers: nbgrader's entry for the cell, named, is all that failed?"""
    nb = _class()
    folded = validation._fold(_nbgraders(nb, failing_tests=("test4_end_to_end",)), nb)
    [kept] = folded["failed"]
    assert kept["source"] == "run(4)" and kept["raw_error"] == "Partial credit" and kept["name"] == "端到端评分：TEST 4"
    assert folded["unanswered"]["names"] == ["思考题 1", "思考题 2", "思考题 3"]


def test_are_results_without_unanswered_answers_nbgraders_entries_named():
    """All answered: nbgrader's own entries, each with its cell's name added (the assignment's plug-in's: Chapter 4's
    TEST number first), nothing folded, and the notebook's language beside them?"""
    nb = _class(answered=(1, 2, 3))
    results = _nbgraders(nb, failing_tests=("test1_scores",))
    assert validation._fold(results, nb, "ch04_attention", CHAPTER) == {
        "failed": [dict(results["failed"][0], name="TEST 1 · 任务 4.2：实现 scores")], "language": "zh"}
    assert validation._fold(results, nb)["failed"][0]["name"] == "任务 4.2：实现 scores"  # a plain assignment's
    assert validation._fold({}, _class()) == {"language": "zh"}


def _english_class(answered=()):
    """The same class as the English edition has it: English headings, stubs and metadata."""
    cells = [new_markdown_cell("### Task 4.2: implement scores"), _test("test1_scores", "run(1)"),
             new_markdown_cell("### End-to-end grading: TEST 4"), _test("test4_end_to_end", "run(4)")]
    for n in (1, 2, 3):
        answer = _answer(f"q{n}", "My answer" if n in answered else stubs("en")["text"])
        answer.metadata.nbgrader["checksum"] = utils.compute_checksum(
            new_markdown_cell(stubs("en")["text"], metadata=answer.metadata))
        cells += [new_markdown_cell(f"### Question {n}"), answer]
    return new_notebook(cells=cells, metadata={"edition": {"language": "en"}})


def test_does_the_english_edition_read_english_only():
    """An English notebook: the folded entry, nbgrader's "Partial credit" and the names in English, no Chinese?"""
    nb = _english_class(answered=(2,))
    results = {"failed": [{"source": "run(4)", "error": PARTIAL, "raw_error": PARTIAL}]
               + [{"source": stubs("en")["text"], "error": NO_RESPONSE, "raw_error": NO_RESPONSE}] * 2}
    folded = validation._fold(results, nb)
    assert folded["failed"] == [{"source": "run(4)", "name": "End-to-end grading: TEST 4", "error": PARTIAL,
                                 "raw_error": PARTIAL}]
    assert folded["unanswered"]["text"].startswith(
        "A reminder: written questions not answered yet (2):\n  · Question 1\n  · Question 3\n")
    assert not CJK.findall(str(folded))


def test_does_the_validator_say_the_notebooks_language_beside_nbgraders_keys(tmp_path, monkeypatch):
    """The wrapped Validator's results carry the notebook's edition language (what the Lab extension frames the dialog
    in), also when everything passes (nbgrader's {}), and leave nbgrader's verdict alone?"""
    monkeypatch.setattr(Validator, "_preprocess", lambda self, nb: nb)  # the cells as they are: no kernel here
    for lang, nb in (("zh", _class(answered=(1, 2, 3))), ("en", _english_class(answered=(1, 2, 3)))):
        nbformat.write(nb, tmp_path / f"{lang}.ipynb")
        assert Validator().validate(str(tmp_path / f"{lang}.ipynb")) == {"language": lang}
    nbformat.write(_english_class(answered=(2,)), tmp_path / "unanswered.ipynb")
    results = Validator().validate(str(tmp_path / "unanswered.ipynb"))
    assert results["language"] == "en" and "failed" not in results and results["unanswered"]["names"] == ["Question 1",
                                                                                                         "Question 3"]


def test_does_the_fold_keep_to_what_nbgrader_reported_when_it_ignores_checksums():
    """With --Validator.ignore_checksums nbgrader reports no answer as unanswered (it cannot tell one as released):
    a failing test cell stays its only entry, and no entry about written questions is added."""
    nb = _class()
    results = {"failed": [e for e in _nbgraders(nb, failing_tests=("test4_end_to_end",))["failed"]
                          if e["raw_error"] != NO_RESPONSE]}
    assert validation._fold(results, nb) == {"failed": [dict(results["failed"][0], name="端到端评分：TEST 4")],
                                             "language": "zh"}


def test_is_the_validator_wrapped_once_however_often_it_is_asked():
    """The first call wraps Validator.validate; calling it again changes nothing?"""
    name_unanswered_questions()
    wrapped = Validator.validate
    assert wrapped.folds_unanswered and not getattr(wrapped.__wrapped__, "folds_unanswered", False)
    name_unanswered_questions()
    assert Validator.validate is wrapped

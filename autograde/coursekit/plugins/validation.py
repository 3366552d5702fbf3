"""``nbgrader validate`` (and the Validate button) names the written questions still unanswered, in the notebook's
language.

nbgrader reports each written answer left as released as a failed cell of its own, all alike:
the stub as "source" and ``You did not provide a response.`` as the error — eight identical
entries that name no question and bury the code's verdict. :func:`name_unanswered_questions`
makes the Validator fold them into **one** entry that lists the questions by the chapter's
names (:func:`.cell_names.cell_names`) and says, apart, how the code did: every test cell
passed, or which did not (those keep nbgrader's own entries above it, each with its chapter
``name`` added and nbgrader's English "Partial credit; …" said in the notebook's language).
Every word is the notebook's edition's (:data:`TEXT`, ``metadata.edition.language``), so that
the student of each edition reads only their language (the Validate dialog itself is the course's
Lab extension's, which shows the names: ``coursekit/labextension/src/validate.ts``).

nbgrader 0.9 builds its ``Validator`` itself (the CLI, the Validate button's handler) and offers
no setting for this, so the class's ``validate`` is wrapped, in the process that imports
:mod:`coursekit.plugins` — as :func:`.output_cap.cap_validator_outputs` swaps its preprocessors.
Wrapping twice changes nothing. What nbgrader decides (pass/fail, the other entries) is unchanged.
"""
import os

from nbformat import current_nbformat, read
from nbgrader import utils
from nbgrader.validator import Validator

from .cell_names import cell_names
from .feedback_page import page_language

__all__ = ["NO_RESPONSE", "PARTIAL", "TEXT", "name_unanswered_questions", "unanswered_entry"]

NO_RESPONSE = "You did not provide a response."  # nbgrader's error for an answer left as released
PARTIAL = "Partial credit; passed some but not all of the tests"  # nbgrader's error for a test cell's partial score
# What Validate says, by the notebook's language: the same keys, the same placeholders.
TEXT = {
    "zh": {"source": "{n} 道书面题还没有作答", "unanswered": "还没有作答的书面题（{n} 道）：",
           "how": "在每道题下方的回答单元格里写上你的回答（双击进入编辑，Shift + Enter 完成），提交后由老师批改。",
           "code_failing": "代码：{n} 个评分单元格没有全部通过（见上面各自的条目）：",
           "code_passing": "代码：{n} 个评分单元格全部通过。", "partial": "部分得分：这个单元格的检查有的通过、有的没有通过。"},
    "en": {"source": "Written questions not answered yet: {n}", "unanswered": "Written questions not answered yet ({n}):",
           "how": "Write your answer in the answer cell below each question (double-click it to edit, Shift + Enter to "
                  "finish); your instructor marks it after you submit.",
           "code_failing": "Code: {n} of the graded cells did not pass completely (see their own entries above):",
           "code_passing": "Code: all {n} graded cells pass.",
           "partial": "Partial credit: some of this cell's checks passed, not all of them."},
}


def _unanswered(cell) -> bool:
    """A written answer (markdown, graded, a solution) still as released: nbgrader scores it 0."""
    return (cell.cell_type == "markdown" and utils.is_grade(cell) and utils.is_solution(cell)
            and utils.determine_grade(cell)[0] == 0)


def _bullets(names) -> str:
    return "\n".join(f"  · {name}" for name in names)


def unanswered_entry(names: list, tests: int, failing: list, lang: str = "zh") -> dict:
    """The one failed entry for ``names`` (unanswered questions); ``failing``: test cells that did not pass."""
    words = TEXT[lang]
    if failing:
        code = words["code_failing"].format(n=len(failing)) + f"\n{_bullets(failing)}"
    else:
        code = words["code_passing"].format(n=tests)
    text = f"{words['unanswered'].format(n=len(names))}\n{_bullets(names)}\n{words['how']}\n{code}"
    return {"source": words["source"].format(n=len(names)), "error": text, "raw_error": text}


def _named(entry: dict, names: dict, lang: str) -> dict:
    """A test cell's entry with its chapter name, nbgrader's "Partial credit" said in ``lang``."""
    named = dict(entry, name=names.get(entry["source"], ""))
    if entry.get("raw_error") == PARTIAL:
        named.update(error=TEXT[lang]["partial"], raw_error=TEXT[lang]["partial"])
    return named


def _fold(results: dict, nb) -> dict:
    """``results`` with the entries of unanswered written answers folded into :func:`unanswered_entry`, the test
    cells' entries named and in the notebook's language."""
    if "failed" not in results:
        return results
    lang, names = page_language(nb), cell_names(nb)
    tests = [cell for cell in nb.cells if utils.is_grade(cell) and not utils.is_solution(cell)]
    by_source = {cell.source.strip(): names[cell.metadata.nbgrader["grade_id"]] for cell in tests}
    written = [cell for cell in nb.cells if _unanswered(cell)]
    left = {cell.source.strip() for cell in written}
    kept = [_named(entry, by_source, lang) for entry in results["failed"]
            if not (entry["source"] in left and entry["raw_error"] == NO_RESPONSE)]
    if not written:
        return dict(results, failed=kept)
    failing = [name for source, name in by_source.items() if source in {entry["source"] for entry in kept}]
    entry = unanswered_entry([names[cell.metadata.nbgrader["grade_id"]] for cell in written], len(tests), failing,
                             lang)
    return dict(results, failed=[*kept, dict(entry, name="")])


def name_unanswered_questions() -> None:
    """Wrap ``Validator.validate`` once so that its results go through :func:`_fold` (idempotent)."""
    original = Validator.validate
    if getattr(original, "folds_unanswered", False):
        return

    def validate(self, filename):
        results = original(self, filename)
        if "failed" not in results:
            return results
        return _fold(results, read(os.path.abspath(filename), as_version=current_nbformat))

    validate.folds_unanswered = True
    validate.__wrapped__ = original
    validate.__doc__ = original.__doc__
    Validator.validate = validate

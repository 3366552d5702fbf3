"""``nbgrader validate`` (and the Validate button) names the written questions still unanswered, in the notebook's
language.

nbgrader reports each written answer left as released as a failed cell of its own, all alike:
the stub as "source" and ``You did not provide a response.`` as the error — eight identical
entries that name no question and bury the code's verdict. :func:`name_unanswered_questions`
makes the Validator fold them into **one** entry that lists the questions by the chapter's
names (:func:`.cell_names.cell_names`) and says, apart, how the code did: every test cell
passed, or which did not (those keep nbgrader's own entries above it, each with its chapter
``name`` added).
Every word is the notebook's edition's (:data:`TEXT`, ``metadata.edition.language``), and the
results say that language (``"language"``, beside nbgrader's keys), so that the student of each
edition reads only their language: nbgrader's Validate dialog words its frame (and its "Partial
credit; …") in English, and the course's Lab extension says it in the notebook's language and
shows each failing cell by its name (``coursekit/labextension/src/validation.ts``).

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

__all__ = ["NO_RESPONSE", "TEXT", "name_unanswered_questions", "unanswered_entry"]

NO_RESPONSE = "You did not provide a response."  # nbgrader's error for an answer left as released
# What Validate says, by the notebook's language: the same keys, the same placeholders.
TEXT = {
    "zh": {"source": "{n} 道书面题还没有作答", "unanswered": "还没有作答的书面题（{n} 道）：",
           "how": "在每道题下方的回答单元格里写上你的回答（双击进入编辑，Shift + Enter 完成），提交后由老师批改。",
           "code_failing": "代码：{n} 个评分单元格没有全部通过（见上面各自的条目）：",
           "code_passing": "代码：{n} 个评分单元格全部通过。"},
    "en": {"source": "Written questions not answered yet: {n}", "unanswered": "Written questions not answered yet ({n}):",
           "how": "Write your answer in the answer cell below each question (double-click it to edit, Shift + Enter to "
                  "finish); your instructor marks it after you submit.",
           "code_failing": "Code: {n} of the graded cells did not pass completely (see their own entries above):",
           "code_passing": "Code: all {n} graded cells pass."},
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


def _named(entry: dict, names: dict) -> dict:
    """A test cell's entry with its chapter name (the dialog shows it instead of the cell's source)."""
    return dict(entry, name=names.get(entry["source"], ""))


def _fold(results: dict, nb) -> dict:
    """``results`` with the entries of unanswered written answers folded into :func:`unanswered_entry` (in the
    notebook's language), the test cells' entries named."""
    if "failed" not in results:
        return results
    lang, names = page_language(nb), cell_names(nb)
    tests = [cell for cell in nb.cells if utils.is_grade(cell) and not utils.is_solution(cell)]
    by_source = {cell.source.strip(): names[cell.metadata.nbgrader["grade_id"]] for cell in tests}
    written = [cell for cell in nb.cells if _unanswered(cell)]
    left = {cell.source.strip() for cell in written}
    kept = [_named(entry, by_source) for entry in results["failed"]
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
        nb = read(os.path.abspath(filename), as_version=current_nbformat)
        # the notebook's language beside nbgrader's keys: the course's Lab extension frames the dialog in it
        return dict(_fold(results, nb), language=page_language(nb))

    validate.folds_unanswered = True
    validate.__wrapped__ = original
    validate.__doc__ = original.__doc__
    Validator.validate = validate

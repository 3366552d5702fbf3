"""``nbgrader validate`` (and the Validate button) names the written questions still unanswered, in the notebook's
language.

nbgrader reports each written answer left as released as a failed cell of its own, all alike:
the stub as "source" and ``You did not provide a response.`` as the error — eight identical
entries that name no question and bury the code's verdict. :func:`name_unanswered_questions`
makes the Validator fold them into **one** entry that lists the questions by the chapter's
names (:func:`coursekit.cell_names.names_in`) and says, apart, how the code did: every test cell
passed, or which did not (those keep nbgrader's own entries above it, each with its ``name``
added). Every word is in the notebook's language (:data:`TEXT`, :func:`coursekit.language.of_notebook`),
and the results say that language (``"language"``, beside nbgrader's keys), so that each student reads
only their own: nbgrader's Validate dialog words its frame (and its "Partial credit; …") in English,
and the course's Lab extension says it in the notebook's language and shows each failing cell by its
name (``coursekit/labextension/src/validation.ts``).

nbgrader 0.9 builds its ``Validator`` itself (the CLI, the Validate button's handler) and offers
no setting for this, so the class's ``validate`` is wrapped
(:func:`coursekit.upstream.nbgrader.fold_validate_results`) by the one program that shows the result:
the students' server extension (:mod:`.students`). Wrapping twice changes nothing. What nbgrader
decides (pass/fail, the other entries) is unchanged.
"""
import os

from nbformat import current_nbformat, read
from nbgrader import utils

from ..language import of_notebook
from ..upstream.nbgrader import NO_RESPONSE_ERROR, fold_validate_results
from ..cell_names import names_in

__all__ = ["NO_RESPONSE", "TEXT", "name_unanswered_questions", "unanswered_entry"]

NO_RESPONSE = NO_RESPONSE_ERROR  # nbgrader's error for an answer left as released
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


def _fold(results: dict, nb, assignment: str = "", config=None) -> dict:
    """``results`` with the notebook's language beside nbgrader's keys, the entries of unanswered written answers
    folded into :func:`unanswered_entry` (in that language) and each test cell's entry named.

    Only answers nbgrader itself reported are folded: with ``--Validator.ignore_checksums`` it reports none (it
    cannot tell an answer as released without the checksum), and neither does the fold."""
    lang = of_notebook(nb)
    results = dict(results, language=lang)  # the course's Lab extension frames nbgrader's dialog in it
    if "failed" not in results:
        return results
    names = names_in(nb, assignment, config, lang)
    tests = [cell for cell in nb.cells if utils.is_grade(cell) and not utils.is_solution(cell)]
    by_source = {cell.source.strip(): names[cell.metadata.nbgrader["grade_id"]] for cell in tests}
    reported = {entry["source"] for entry in results["failed"] if entry.get("raw_error") == NO_RESPONSE}
    written = [cell for cell in nb.cells if _unanswered(cell) and cell.source.strip() in reported]
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
    """Make ``Validator.validate``'s results go through :func:`_fold` (once: asked again, nothing changes)."""
    fold_validate_results(_fold_file, "folds_unanswered")


def _fold_file(results: dict, filename: str, config) -> dict:
    """:func:`_fold` for the notebook ``filename``; its assignment is the folder it lies in (as nbgrader keeps them)."""
    path = os.path.abspath(filename)
    return _fold(results, read(path, as_version=current_nbformat), os.path.basename(os.path.dirname(path)), config)

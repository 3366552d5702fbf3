"""``nbgrader validate`` (and the Validate button) names the written questions still unanswered, in Chinese.

nbgrader reports each written answer left as released as a failed cell of its own, all alike:
the stub as "source" and ``You did not provide a response.`` as the error — eight identical
entries that name no question and bury the code's verdict. :func:`name_unanswered_questions`
makes the Validator fold them into **one** entry that lists the questions by the chapter's
names (:func:`.cell_names.names_in`) and says, apart, how the code did: every test cell
passed, or which did not (those keep nbgrader's own entries above it).

nbgrader 0.9 builds its ``Validator`` itself (the CLI, the Validate button's handler) and offers
no setting for this, so the class's ``validate`` is wrapped
(:func:`coursekit.upstream.nbgrader.fold_validate_results`) by the one program that shows the result:
the students' server extension (:mod:`.students`). Wrapping twice changes nothing. What nbgrader
decides (pass/fail, the other entries) is unchanged.
"""
import os

from nbformat import current_nbformat, read
from nbgrader import utils

from ..upstream.nbgrader import NO_RESPONSE_ERROR, fold_validate_results
from .cell_names import names_in

__all__ = ["NO_RESPONSE", "name_unanswered_questions", "unanswered_entry"]

NO_RESPONSE = NO_RESPONSE_ERROR  # nbgrader's error for an answer left as released


def _unanswered(cell) -> bool:
    """A written answer (markdown, graded, a solution) still as released: nbgrader scores it 0."""
    return (cell.cell_type == "markdown" and utils.is_grade(cell) and utils.is_solution(cell)
            and utils.determine_grade(cell)[0] == 0)


def _bullets(names) -> str:
    return "\n".join(f"  · {name}" for name in names)


def unanswered_entry(names: list, tests: int, failing: list) -> dict:
    """The one failed entry for ``names`` (unanswered questions); ``failing``: test cells that did not pass."""
    if failing:
        code = f"代码：{len(failing)} 个评分单元格没有全部通过（见上面各自的条目）：\n{_bullets(failing)}"
    else:
        code = f"代码：{tests} 个评分单元格全部通过。"
    text = (f"还没有作答的书面题（{len(names)} 道）：\n{_bullets(names)}\n"
            "在每道题下方的回答单元格里写上你的回答（双击进入编辑，Shift + Enter 完成），提交后由老师批改。\n"
            f"{code}")
    return {"source": f"{len(names)} 道书面题还没有作答", "error": text, "raw_error": text}


def _fold(results: dict, nb, assignment: str = "", config=None) -> dict:
    """``results`` with the entries of unanswered written answers folded into :func:`unanswered_entry`.

    Only answers nbgrader itself reported are folded: with ``--Validator.ignore_checksums`` it reports none (it
    cannot tell an answer as released without the checksum), and neither does the fold."""
    reported = {entry["source"] for entry in results.get("failed", []) if entry.get("raw_error") == NO_RESPONSE}
    written = [cell for cell in nb.cells if _unanswered(cell) and cell.source.strip() in reported]
    if not written:
        return results
    names, left = names_in(nb, assignment, config), {cell.source.strip() for cell in written}
    kept = [entry for entry in results["failed"] if not (entry["source"] in left and entry["raw_error"] == NO_RESPONSE)]
    tests = [cell for cell in nb.cells if utils.is_grade(cell) and not utils.is_solution(cell)]
    failing = [names[cell.metadata.nbgrader["grade_id"]] for cell in tests
               if cell.source.strip() in {entry["source"] for entry in kept}]
    entry = unanswered_entry([names[cell.metadata.nbgrader["grade_id"]] for cell in written], len(tests), failing)
    return dict(results, failed=[*kept, entry])


def name_unanswered_questions() -> None:
    """Make ``Validator.validate``'s results go through :func:`_fold` (once: asked again, nothing changes)."""
    fold_validate_results(_fold_file, "folds_unanswered")


def _fold_file(results: dict, filename: str, config) -> dict:
    """:func:`_fold` for the notebook ``filename``; its assignment is the folder it lies in (as nbgrader keeps them)."""
    path = os.path.abspath(filename)
    return _fold(results, read(path, as_version=current_nbformat), os.path.basename(os.path.dirname(path)), config)

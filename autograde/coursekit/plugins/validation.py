"""``nbgrader validate`` (and the Validate button) reminds the student of the written questions still unanswered, by
name, in the notebook's language, apart from the code's verdict.

nbgrader reports each written answer left as released as a failed cell of its own, all alike:
the stub as "source" and ``You did not provide a response.`` as the error — entries that name no
question, bury the code's verdict and call an answer not yet written a failure. :func:`name_unanswered_questions`
makes the Validator take them out of ``failed`` and list the questions, by the chapter's names
(:func:`coursekit.cell_names.names_in`), under a key of their own, ``unanswered`` (:func:`reminder`): a
reminder, not a failed cell. What is left is nbgrader's verdict on the code: every test cell
passed (no ``failed`` at all: nbgrader's success), or which did not (nbgrader's own entries, each
with its ``name`` added). Every word is in the notebook's language (the course's catalogue, ``validate.*``;
:func:`coursekit.language.of_notebook`), and the results say that language (``"language"``, beside
nbgrader's keys), so that each student reads only their own: nbgrader's Validate dialog words its
frame (and its "Partial credit; …") in English, and the course's Lab extension says it in the
notebook's language, shows each failing cell by its name and adds the reminder below the verdict
(``coursekit/labextension/src/validation.ts``).

nbgrader 0.9 builds its ``Validator`` itself (the CLI, the Validate button's handler) and offers
no setting for this, so the class's ``validate`` is wrapped
(:func:`coursekit.upstream.nbgrader.fold_validate_results`) by the one program that shows the result:
the students' server extension (:mod:`.students`). Wrapping twice changes nothing. What nbgrader
decides about the code (pass/fail, its entries) is unchanged.
"""
import os

from nbformat import current_nbformat, read
from nbgrader import utils

from ..language import WORDS, of_notebook
from ..upstream.nbgrader import NO_RESPONSE_ERROR, fold_validate_results
from ..cell_names import names_in

__all__ = ["NO_RESPONSE", "name_unanswered_questions", "reminder"]

NO_RESPONSE = NO_RESPONSE_ERROR  # nbgrader's error for an answer left as released
def _unanswered(cell) -> bool:
    """A written answer (markdown, graded, a solution) still as released: nbgrader scores it 0."""
    return (cell.cell_type == "markdown" and utils.is_grade(cell) and utils.is_solution(cell)
            and utils.determine_grade(cell)[0] == 0)


def reminder(names: list, lang: str = "zh") -> dict:
    """The results' ``unanswered``: the questions' ``names`` and the reminder's ``text`` that lists them."""
    bullets = "\n".join(f"  · {name}" for name in names)
    unanswered, how = WORDS.say(lang, "validate.unanswered", n=len(names)), WORDS.say(lang, "validate.how")
    return {"names": list(names), "text": f"{unanswered}\n{bullets}\n{how}"}


def _named(entry: dict, names: dict) -> dict:
    """A test cell's entry with its chapter name (the dialog shows it instead of the cell's source)."""
    return dict(entry, name=names.get(entry["source"], ""))


def _fold(results: dict, nb, assignment: str = "", config=None) -> dict:
    """``results`` with the notebook's language beside nbgrader's keys, the entries of unanswered written answers
    taken out of ``failed`` into :func:`reminder` (in that language) and each test cell's entry named; a ``failed``
    left empty is dropped, so that nbgrader shows its success.

    Only answers nbgrader itself reported are taken: with ``--Validator.ignore_checksums`` it reports none (it
    cannot tell an answer as released without the checksum), and neither does the reminder."""
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
    results = {key: value for key, value in results.items() if key != "failed"}
    if kept:
        results["failed"] = kept
    if written:
        results["unanswered"] = reminder([names[cell.metadata.nbgrader["grade_id"]] for cell in written], lang)
    return results


def name_unanswered_questions() -> None:
    """Make ``Validator.validate``'s results go through :func:`_fold` (once: asked again, nothing changes)."""
    fold_validate_results(_fold_file, "folds_unanswered")


def _fold_file(results: dict, filename: str, config) -> dict:
    """:func:`_fold` for the notebook ``filename``; its assignment is the folder it lies in (as nbgrader keeps them)."""
    path = os.path.abspath(filename)
    return _fold(results, read(path, as_version=current_nbformat), os.path.basename(os.path.dirname(path)), config)

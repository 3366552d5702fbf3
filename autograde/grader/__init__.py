"""The course's grader: the hidden checks of each test cell, run in the grader process (instructor-only).

Grading starts a process of its own for it (coursekit.sandbox.grader_host), forked before any
student code existed, that runs no student code and that the student's kernel cannot see: not its
files, not its memory, not its signals. For each test cell it calls :func:`grade`, whose
``functions`` are the student's functions as seen from here: calling one sends its arguments to the
student's kernel, where it runs (under attnkit.guard's delegation probe), and brings back what it
returned and what became of its arrays. Only what a function is given ever reaches the student's
process; expected values, tolerances and these checks never do.

:func:`grade` returns what the cell shows (the lab's TEST n as verify prints it, then the hidden
checks and the score), its points, and the record the class report reads
(:class:`coursekit.record.CellRecord`), all in the notebook's language (``lang``, which the grading
process reads from the notebook's ``metadata.edition.language``). Nothing raised inside escapes as a
traceback.

* :mod:`.checks` — the hidden checks of each test cell (generalisations of the lab's visible ones);
* :mod:`.inputs` — their inputs, drawn from the submission's seed (never the same for two submissions);
* :mod:`.oracle` — the pure-Python reference the hidden checks compare against (independent of attnkit);
* :mod:`.outcome` — a cell's verdict as a record, and the lines the feedback shows, in each language;
* :mod:`.words` — the grader's catalogue (``locale/``): every word above, by message id.
"""
import contextlib
import dataclasses
import functools
import io
import traceback
import warnings

from attnkit import gradecell, lab, language, safecall, verify
from attnkit.diagnose import diagnose, diagnose_stage
from coursekit import record

from . import checks, outcome

__all__ = ["HANDLES", "grade", "evaluate", "describe_check"]

HANDLES = tuple(test.grade_id for test in gradecell.TEST_CELLS)  # the test cells this grader grades


def grade(grade_id: str, functions, lang: str, seed: str) -> dict:
    """Grade the test cell ``grade_id``: ``{"points", "text", "data"}`` (``data``: the record, by its MIME type).
    ``seed``: the submission's (:mod:`coursekit.seeds`), which the hidden checks draw their inputs from and the
    record keeps, so that a disputed grade can be replayed."""
    test = next(test for test in gradecell.TEST_CELLS if test.grade_id == grade_id)
    lang = lang if lang in language.SPOKEN else language.DEFAULT  # the worker's word, but never an unknown one
    fns = tuple(functions.function(lab.ROLE[stage]) for stage in test.stages)
    shown = ""
    try:
        with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cell, shown = evaluate(test, fns, functions, lang, checks.Inputs(seed))
    except KeyboardInterrupt:  # a function ran out of the cell's time: it is not called again
        cell = outcome.failed(test, record.TIMEOUT, outcome.reason("timeout", lang))
    except BaseException as exc:  # noqa: B036 -- the kernel died, or the grader broke: the cell scores 0
        traceback.print_exc()  # the grader's log (only the instructor reads it)
        cell = outcome.failed(test, record.ERROR, outcome.reason("error", lang, name=type(exc).__name__))
    cell = dataclasses.replace(cell, seed=seed)
    return {"points": float(cell.score), "text": shown + outcome.text(cell, lang) + "\n",
            "data": {record.MIME: cell.to_dict()}}


def evaluate(test, fns: tuple, functions, lang: str, inputs):
    """Every check of ``test`` (the lab's visible ones, then the hidden ones) and the verdict; what the cell shows."""
    if any(safecall.hung(fn) for fn in fns):
        return outcome.failed(test, record.TIMEOUT, outcome.reason("hung", lang)), ""
    shown, report = gradecell.render(test.number, fns, lang)
    hidden = checks.run_checks(checks.HIDDEN[test.number], fns, lab.TOLERANCE, inputs)
    if functions.limits:
        return outcome.failed(test, record.LIMIT, outcome.reason("limit", lang, codes=functions.limits)), shown
    if functions.forbidden:  # what it computed was attnkit's (or nothing): no diagnosis of the student's own code
        return outcome.graded(test, report.checks, hidden, sorted(functions.forbidden), [], lang), shown
    findings = diagnose(*fns) if len(test.stages) > 1 else diagnose_stage(test.stages[0], fns[0])
    return outcome.graded(test, report.checks, hidden, [], findings, lang), shown


def describe_check(check_id: str, lang: str) -> str:
    """What the check ``check_id`` (``verify.17``, ``test3.masked_rows``) tests, in ``lang``; "" for an id this grader
    does not know. For the class report, which speaks the course's language whatever edition a student wrote."""
    hidden = {check.id: check for checks_ in checks.HIDDEN.values() for check in checks_}
    if check_id in hidden:
        return hidden[check_id].text(lang)
    return _visible(lang if lang in language.SPOKEN else language.DEFAULT).get(check_id, "")


@functools.cache
def _visible(lang: str) -> dict:
    """``{"verify.<n>": message}`` of verify's 22 checks in ``lang``, as the reference passes them."""
    with contextlib.redirect_stdout(io.StringIO()):
        report = verify.run_all(*lab.REFERENCE, lang=lang)
    return {f"verify.{check.number}": check.message for check in report.checks}

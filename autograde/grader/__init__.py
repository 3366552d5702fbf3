"""The course's grader: what the hidden region of each test cell runs (instructor-only).

``nbgrader_config.py`` puts this file's path in ``ATTN_GRADER``; kernels that validate or
autograde inherit it. The hidden region of test cell n loads this package from that path
under a private module name (a file a student submits next to the notebook is never on
that path) and calls :func:`grade` with the cell's student functions. Each cell loads it
anew and stands alone: no state is shared between test cells except attnkit's record of a
function that already timed out (``attnkit.safecall``), so an infinite loop costs one timeout.

:func:`evaluate` does the work and returns an :class:`attnkit.record.CellRecord` (built from the
grader's private load of attnkit); :func:`grade` prints it, publishes it (MIME type
``attnkit.record.MIME``, read by the class report, removed from the feedback) and returns the
score nbgrader reads: a plain float. Nothing raised inside ever escapes: a traceback would show
this instructor-only code.
"""
import contextlib
import io
import sys
import warnings

for _stale in [name for name in sys.modules if name.startswith(__name__ + ".")]:
    del sys.modules[_stale]  # a previous cell's submodules (or a student's replacement) never serve this one

from . import checks, guard, integrity, outcome  # noqa: E402

__all__ = ["evaluate", "grade"]


def grade(number: int, *fns) -> float:
    """Grade TEST ``number`` with the student functions ``fns``; print, publish, return the score."""
    namespace = sys._getframe(1).f_globals  # the notebook's namespace (checked for tampering)
    try:
        fresh = integrity.pristine()
    except BaseException as exc:  # noqa: B036 -- attnkit's own files do not load: nothing to grade with
        print(f"评分器无法读取 attnkit（{type(exc).__name__}），本项记 0 分，请告诉老师。")
        return 0.0
    record, test = fresh["record"], fresh["gradecell"].cell(number)
    try:
        with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cell = evaluate(number, fns, namespace, fresh)
    except KeyboardInterrupt:  # the cell timed out: attnkit remembers the function, it is not called again
        cell = outcome.failed(record, test, record.TIMEOUT, "运行超时被中断（可能有死循环），本项记 0 分。")
    except MemoryError as exc:  # the sandbox's memory limit, reached outside a student call
        cell = outcome.failed(record, test, record.LIMIT, guard.limit_hit(exc) + "，本项记 0 分。")
    except BaseException as exc:  # noqa: B036 -- a traceback would print instructor code
        cell = outcome.failed(record, test, record.ERROR, f"评分中断（{type(exc).__name__}），本项记 0 分。")
    print(outcome.text(cell))
    outcome.publish(record, cell)
    return float(cell.score)


def evaluate(number: int, fns: tuple, namespace: dict, fresh: dict | None = None):
    """Every check of TEST ``number`` (the lab's, re-run privately, and the hidden ones) and the verdict.

    ``fresh``: the private attnkit modules (``integrity.pristine()``), loaded here when not given.
    """
    fresh = fresh or integrity.pristine()
    record, test, tol = fresh["record"], fresh["gradecell"].cell(number), fresh["lab"].TOLERANCE
    problems = integrity.tampering(namespace, fresh)
    if problems:
        return outcome.failed(record, test, record.TAMPERED, "检测到评分环境被改动，本项不计分：" + "；".join(problems[:5]))
    safecall = sys.modules["attnkit.safecall"]
    if any(safecall.hung(fn) for fn in fns):
        return outcome.failed(record, test, record.TIMEOUT, "这个函数在前面的单元格里运行超时，评分时不再调用，本项记 0 分。")
    probe = guard.Guard(integrity.attnkit_dir(), safecall.hung, safecall.mark_if_hung)
    traced = tuple(probe.wrap(fn, role) for fn, role in zip(fns, test.roles))
    with contextlib.redirect_stdout(io.StringIO()):
        visible = getattr(fresh["verify"], f"run_test{number}")(*traced).checks
    hidden = checks.run_checks(checks.HIDDEN[number], traced, tol)
    if probe.over_limit:
        return outcome.failed(record, test, record.LIMIT, "；".join(sorted(probe.over_limit)) + "，本项记 0 分。")
    return outcome.graded(record, test, visible, hidden, sorted(probe.forbidden), _findings(test.stages, fns))


def _findings(stages: tuple, fns: tuple) -> list:
    """The diagnosis of the graded functions (informational: points never depend on it)."""
    diagnose = sys.modules["attnkit.diagnose"]
    if len(stages) > 1:
        return diagnose.diagnose(*fns)
    return diagnose.diagnose_stage(stages[0], fns[0])

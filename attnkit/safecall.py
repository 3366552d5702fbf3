"""Calling a student's function so that nothing it does can break the caller.

The diagnosis calls student code many times, in the notebook and in nbgrader test
cells. There, any stderr output scores the cell 0 and a raised exception hides the
feedback, so :func:`call_student`

* turns an exception into data (``Call.error``, one line naming its type),
* swallows prints, Python warnings and numpy floating-point warnings,
* watches one parameter and reports whether the function *rebound* it
  (``out = ...`` instead of writing into ``out``), the classic out-parameter slip.

Under nbgrader (``NBGRADER_EXECUTION`` set) a student function interrupted by the cell
timeout is remembered (:func:`mark_if_hung`): verify, the diagnosis and the grader then
report it instead of calling it again, so an infinite loop costs one timeout, not four.
"""
import contextlib
import inspect
import io
import os
import sys
import warnings
import weakref
from dataclasses import dataclass

import numpy as np

__all__ = ["Call", "HUNG", "call_student", "describe_exception", "hung", "mark_if_hung", "observe"]

# Call.error of a function that already timed out: not called again. No exception's description looks like
# it; the diagnosis says it in the reader's language (attnkit.bugs.error_text).
HUNG = "TimeoutError: <timed out in an earlier cell>"

_HUNG = weakref.WeakSet()  # student functions that hit the cell timeout while grading


def hung(fn) -> bool:
    """Did ``fn`` already run into the cell timeout during this grading run (here, or in the kernel it runs in: the
    grader process's stand-in for it says ``timed_out``)?"""
    if getattr(fn, "timed_out", False) is True:
        return True
    try:
        return fn in _HUNG
    except TypeError:  # not weak-referenceable: never marked
        return False


@contextlib.contextmanager
def mark_if_hung(fn):
    """Remember ``fn`` when the timeout interrupts it under nbgrader; the interrupt still propagates."""
    try:
        yield
    except KeyboardInterrupt:
        if os.environ.get("NBGRADER_EXECUTION"):
            with contextlib.suppress(TypeError):
                _HUNG.add(fn)
        raise


@dataclass(frozen=True)
class Call:
    """What one call did: its return value, or the exception it raised, and the rebinding."""
    returned: object = None
    error: str | None = None
    rebound: bool = False


def describe_exception(exc: BaseException) -> str:
    """``"IndexError: index 3 is out of bounds"``: type and first line, at most 80 characters."""
    detail = str(exc).splitlines()[0][:80] if str(exc) else ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


@contextlib.contextmanager
def _quiet():
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _parameter_code(fn, index: int):
    """The code object that owns parameter ``index`` of ``fn`` and that parameter's name."""
    try:
        code = inspect.unwrap(fn).__code__
    except (AttributeError, ValueError, TypeError):
        return None, None
    if code.co_argcount <= index:
        return None, None
    return code, code.co_varnames[index]


def _tracer(code, name: str, original, seen: dict):
    """A trace function noting, when ``code``'s frame returns, whether ``name`` is still ``original``."""
    def on_return(frame, event, arg):
        if event == "return":  # the outermost call returns last, so its verdict wins
            seen["rebound"] = frame.f_locals.get(name, original) is not original
        return on_return

    def on_call(frame, event, arg):
        if frame.f_code is not code:
            return None
        frame.f_trace_lines = False  # only the return event is needed: keep loops fast
        return on_return

    return on_call


def observe(fn, args: tuple, watch: int | None = None):
    """``fn(*args)`` quietly: ``(returned, the exception it raised or None, whether args[watch] was rebound)``.

    A KeyboardInterrupt (the grading timeout) is not caught: it marks ``fn`` hung and goes on.
    """
    code, name = _parameter_code(fn, watch) if watch is not None else (None, None)
    seen, returned, error = {}, None, None
    previous = sys.gettrace()
    try:
        with _quiet():
            if code is not None:
                sys.settrace(_tracer(code, name, args[watch], seen))
            try:
                with mark_if_hung(fn):
                    returned = fn(*args)
            finally:
                sys.settrace(previous)
    except (Exception, SystemExit) as exc:
        error = exc
    return returned, error, seen.get("rebound", False)


def call_student(fn, args: tuple, watch: int | None = None) -> Call:
    """Call ``fn(*args)`` quietly; with ``watch``, also report whether ``args[watch]`` was rebound.

    A function that lives in another process (the grader's view of the student's, which has a
    ``call_observed(args, watch)`` method) is asked to do the same there.
    """
    if hung(fn):
        return Call(error=HUNG)
    if hasattr(fn, "call_observed"):
        return Call(*fn.call_observed(args, watch))
    returned, error, rebound = observe(fn, args, watch)
    if error is not None:
        return Call(error=describe_exception(error), rebound=rebound)
    return Call(returned=returned, rebound=rebound)


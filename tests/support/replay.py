"""A replay table: what a student who saw the hidden checks' inputs in one feedback would hand in next.

A student function can copy its arguments into a global, and a later cell print them: the feedback page shows
every cell. :func:`leaked_table` is what that student learns, the hidden checks' calls of one submission (the
inputs drawn from ``seed``) with the right answers; :func:`replaying` is their next submission's functions: the
release's stubs, but any call whose arguments are in the table answered from it. The grader's inputs come from
each submission's own seed (grader/inputs.py), so the table never matches again and the replay scores what the
stubs score. tests/unit/test_grader_inputs.py uses it in-process, tests/support/redteam.py as a notebook cell.
:func:`visible_table` is the same table for the lab's visible checks, whose inputs the release itself shows: a
student who hard-codes verify's answers (tests/support/redteam.py, :data:`~support.redteam.HARD_CODED`).
"""
import contextlib
import hashlib
import io

import numpy as np

from attnkit import lab, verify
from attnkit.lab import TOLERANCE
from grader import checks
from grader.inputs import Inputs

__all__ = ["key", "leaked_table", "visible_table", "replaying", "REPLAY_CELL"]

ROLES = ("student_attention_scores", "student_apply_mask", "student_softmax")


def key(role: str, *values) -> str:
    """The table's key for a call of ``role`` with ``values`` (arrays by dtype, shape and bytes; numbers by value)."""
    digest = hashlib.sha256(role.encode())
    for value in values:
        array = np.asarray(value)
        digest.update(f"{array.dtype.str}{array.shape}".encode() + np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _recording(table: dict):
    """The three functions, right (attnkit's reference), each call's answer written into ``table``."""
    def scores(Q, K, scale, out):
        name = key(ROLES[0], Q, K, np.float64(scale))
        rc = lab.attention_scores(Q, K, scale, out)
        table[name] = out.tolist()
        return rc

    def mask(scores_, mask_):
        name = key(ROLES[1], scores_, mask_)
        lab.apply_mask(scores_, mask_)
        table[name] = scores_.tolist()

    def softmax(out, inp):
        lab.softmax(out, inp)
        table[key(ROLES[2], inp)] = out.tolist()

    return scores, mask, softmax


def leaked_table(seed: str) -> dict:
    """``{key: answer}`` of every call the hidden checks make with the inputs of ``seed``."""
    table = {}
    scores, mask, softmax = _recording(table)
    stages = {1: (scores,), 2: (mask,), 3: (softmax,), 4: (scores, mask, softmax)}
    for number, hidden in checks.HIDDEN.items():
        checks.run_checks(hidden, stages[number], TOLERANCE, Inputs(seed))
    return table


def visible_table() -> dict:
    """``{key: answer}`` of every call the lab's visible checks (verify's 22) make: inputs anybody can read in the
    release, answered right. The stubs answering from it pass all of verify and no hidden check the stubs fail."""
    table = {}
    with contextlib.redirect_stdout(io.StringIO()):
        verify.run_all(*_recording(table))
    return table


def replaying(table: dict, stubs=lab.STUBS) -> tuple:
    """The stubs, with every call found in ``table`` answered from it (what the replaying student hands in)."""
    stub_scores, stub_mask, stub_softmax = stubs

    def scores(Q, K, scale, out):
        rc, answer = stub_scores(Q, K, scale, out), table.get(key(ROLES[0], Q, K, np.float64(scale)))
        if rc == 0 and answer is not None:  # the release's input check first, as a student keeps it
            out[...] = np.asarray(answer, out.dtype)
        return rc

    def mask(scores_, mask_):
        answer = table.get(key(ROLES[1], scores_, mask_))
        if answer is None:
            return stub_mask(scores_, mask_)
        scores_[...] = np.asarray(answer, scores_.dtype)

    def softmax(out, inp):
        answer = table.get(key(ROLES[2], inp))
        if answer is None:
            return stub_softmax(out, inp)
        out[...] = np.asarray(answer, out.dtype)

    return scores, mask, softmax


# The replay as a student's cell after the release's stubs: the table as a literal, the same lookups.
REPLAY_CELL = '''import hashlib as _h
import numpy as _np

_TABLE = {table!r}


def _key(role, *values):
    digest = _h.sha256(role.encode())
    for value in values:
        array = _np.asarray(value)
        digest.update(f"{{array.dtype.str}}{{array.shape}}".encode() + _np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


_stubs = (student_attention_scores, student_apply_mask, student_softmax)


def student_attention_scores(Q, K, scale, out):
    rc, answer = _stubs[0](Q, K, scale, out), _TABLE.get(_key("student_attention_scores", Q, K, _np.float64(scale)))
    if rc == 0 and answer is not None:
        out[...] = _np.asarray(answer, out.dtype)
    return rc


def student_apply_mask(scores, mask):
    answer = _TABLE.get(_key("student_apply_mask", scores, mask))
    if answer is None:
        return _stubs[1](scores, mask)
    scores[...] = _np.asarray(answer, scores.dtype)


def student_softmax(out, inp):
    answer = _TABLE.get(_key("student_softmax", inp))
    if answer is None:
        return _stubs[2](out, inp)
    out[...] = _np.asarray(answer, out.dtype)
'''

"""The chapter's practice exercises, as the student's notebook runs them: counted in none of the 20 points.

Each exercise (:data:`EXERCISES`) is a function the student writes in a solution cell with their own three lab
functions, followed by a test cell of 0 points (``_result = exercises.run(1, student_order_gap)``):

1. ``student_order_gap(x, perm, mask)`` (§4.5): the largest ``|attend(x[perm]) - attend(x)[perm]|``, where
   ``attend`` is self-attention with Q = K = V = x, scale ``1/sqrt(C)`` and the additive ``mask``, computed with
   the student's three functions: 0 up to rounding without a mask, not under the causal mask;
2. ``student_attention_layer(x, context, W_q, W_k, W_v, W_o, num_heads, mask)`` (§4.11): the whole multi-head layer
   head by head, ``weights @ V`` and ``@ W_o`` included (:meth:`attnkit.MultiHeadAttention.forward`);
3. ``student_all_heads(x, W_q, W_k, W_v, W_o, num_heads, mask)`` (§4.11): every head at once on ``[H, T, D]``
   arrays (:meth:`attnkit.MultiHeadAttention.forward_all_heads`).

In the student's notebook :func:`run` calls the function on the chapter's own examples, compares it with attnkit's
reference and prints each check's PASS or FAIL, then that the exercise counts for nothing and that grading checks it
again on other inputs. Under grading the course's grader has graded the cell in a process of its own
(``autograde/grader/practice.py``, against a pure-Python oracle) and :func:`run` shows its verdict instead.
Every word is a message of attnkit's catalogue (``exercise.…``), in the notebook's language.
Shape legend: T queries, S keys, C hidden dim, H heads, D = C / H.
"""
import contextlib
import io
import warnings
from dataclasses import dataclass

import numpy as np

from .attention import attention
from .gradecell import shown_verdict
from .language import WORDS, marked, resolve
from .masks import create_causal_mask
from .multihead import MultiHeadAttention
from .safecall import describe_exception

__all__ = ["Exercise", "EXERCISES", "order_gap", "layer", "run"]

TOLERANCE = 1e-12  # the examples are float64: a right answer agrees with the reference far closer than this


@dataclass(frozen=True)
class Exercise:
    number: int
    grade_id: str
    function: str


EXERCISES = (Exercise(1, "ex1_order", "student_order_gap"), Exercise(2, "ex2_layer", "student_attention_layer"),
             Exercise(3, "ex3_all_heads", "student_all_heads"))


def order_gap(x, perm, mask) -> float:
    """The reference of exercise 1: ``max |attend(x[perm]) - attend(x)[perm]|`` with attnkit's attention."""
    def attend(rows):
        return attention(rows, rows, rows, mask=mask)[0]  # (T, C); scale 1/sqrt(C)
    return float(np.abs(attend(x[perm]) - attend(x)[perm]).max())


def layer(x, context, W_q, W_k, W_v, W_o, num_heads: int, mask, all_at_once: bool = False) -> np.ndarray:
    """The reference of exercises 2 and 3: attnkit's :class:`MultiHeadAttention` with these weights."""
    mha = MultiHeadAttention(x.shape[1], num_heads, dtype=x.dtype)
    mha.W_q, mha.W_k, mha.W_v, mha.W_o = W_q, W_k, W_v, W_o
    forward = mha.forward_all_heads if all_at_once else mha.forward
    return forward(x, mask=mask, context=context)  # (T, C)


def _weights(rng, hidden: int) -> list:
    return [rng.normal(0.0, 1 / np.sqrt(hidden), (hidden, hidden)) for _ in range(4)]  # W_q, W_k, W_v, W_o


def _padding(rows: int, cols: int, blocked: int) -> np.ndarray:
    mask = np.zeros((rows, cols))  # (T, S)
    mask[:, cols - blocked:] = -1e9
    return mask


def _examples(number: int) -> list:
    """``[(message id, args, expected)]``: the chapter's own inputs (float64, fixed seeds) for exercise ``number``."""
    rng = np.random.default_rng(40 + number)
    if number == 1:
        x, perm = rng.normal(size=(6, 8)), np.array([3, 0, 5, 1, 2, 4])  # (T, C)
        masks = ((marked("exercise.order.no_mask"), np.zeros((6, 6))),
                 (marked("exercise.order.causal"), create_causal_mask(6, np.float64)))
        return [(msgid, (x, perm, mask), order_gap(x, perm, mask)) for msgid, mask in masks]
    x, memory, weights = rng.normal(size=(5, 8)), rng.normal(size=(9, 8)), _weights(rng, 8)  # (T, C), (S, C)
    causal = create_causal_mask(5, np.float64)
    if number == 2:
        return [(marked("exercise.layer.self"), (x, x, *weights, 2, causal), layer(x, x, *weights, 2, causal)),
                (marked("exercise.layer.cross"), (x, memory, *weights, 2, _padding(5, 9, 2)),
                 layer(x, memory, *weights, 2, _padding(5, 9, 2)))]
    return [(marked("exercise.heads.causal"), (x, *weights, 2, causal), layer(x, x, *weights, 2, causal, True)),
            (marked("exercise.heads.four"), (x, *weights, 4, causal), layer(x, x, *weights, 4, causal, True))]


def _check(fn, args, expected, lang: str) -> tuple:
    """``(answered, passed, why)`` of one call of the student's function on copies of ``args``."""
    args = tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = fn(*args)
    except Exception as exc:  # the student's code: any exception is a failed check, named
        return True, False, WORDS.say(lang, "exercise.raised", error=describe_exception(exc))
    if got is None:
        return False, False, ""
    got = np.asarray(got, dtype=float) if np.ndim(got) or isinstance(got, (int, float, np.number)) else got
    same = isinstance(got, np.ndarray) and got.shape == np.shape(expected) and bool(
        np.all(np.abs(got - expected) <= TOLERANCE * (1 + np.abs(expected))))
    return True, same, "" if same else WORDS.say(lang, "exercise.differs")


def run(number: int, fn, lang: str | None = None) -> float | None:
    """Check exercise ``number``'s function on the chapter's examples and print the outcome; under grading, the
    grader's verdict and its points (0) instead."""
    graded = shown_verdict()
    if graded is not None:
        return graded
    lang, exercise = resolve(lang), EXERCISES[number - 1]
    results = [(msgid, *_check(fn, args, expected, lang)) for msgid, args, expected in _examples(number)]
    lines = [WORDS.say(lang, "exercise.heading", n=number)]
    if not any(answered for _, answered, _, _ in results):
        lines.append(WORDS.say(lang, "exercise.untried", function=exercise.function))
    else:
        for msgid, _, passed, why in results:
            lines.append(WORDS.say(lang, "exercise.line", mark="PASS" if passed else "FAIL", check=WORDS.say(lang, msgid))
                         + (f"  ({why})" if why else ""))
        outcome = marked("exercise.all_pass") if all(p for _, _, p, _ in results) else marked("exercise.some_fail")
        lines.append(WORDS.say(lang, outcome))
    lines.append(WORDS.say(lang, "exercise.note"))
    print("\n".join(lines))
    return None

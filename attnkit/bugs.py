"""The catalogue of well-known mistakes: how each one shows on the probes, what to say.

A :class:`Rule` looks at one :class:`ProbeRun` (a student call on one probe, next to
the reference's output) and answers ``True`` (this deviation is what the bug
produces), ``False`` (it is not) or ``None`` (this probe cannot show the bug, e.g.
``K @ Q^T`` does not fit a non-square ``out``). Messages follow the chapter's
troubleshooting table (4.10): what was observed, the likely cause, what to check. They
describe the mistake; they never print the reference solution. Which row of that table a
finding belongs to is not the rule's to say: :mod:`attnkit.diagnose` runs verify and adds the
pointer (:func:`pointed`, the rows: :mod:`attnkit.troubleshooting`).

Each message is one of attnkit's catalogue (``bugs.<bug>``: three lines, seen / likely cause / check), and a
finding keeps it said in every language (``{"zh": …, "en": …}``, :func:`texts`): the notebook shows its
edition's, and whoever renders the finding later (feedback, report) can choose. Its terms are the glossary's
(:mod:`attnkit.glossary`; tests/unit/test_diagnose.py holds them to it).
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .attention import softmax as _softmax
from .lab import ROLE, TOLERANCE
from .language import LANGUAGES, WORDS
from .probes import Probe
from .safecall import HUNG, Call
from .troubleshooting import pointer, stage_pointer

def labels(lang: str) -> tuple:
    """The three lines' labels of every finding (the chapter's 现象 / 可能原因 / 检查, Seen / Likely cause / Check)."""
    return WORDS.say(lang, "bugs.seen"), WORDS.say(lang, "bugs.cause"), WORDS.say(lang, "bugs.check")


def pointed(messages: dict, key: str | None, stage: str) -> dict:
    """``messages`` with a pointer into §4.10's table at the end of each "likely cause" line: the row ``key``, or
    (``key`` None) the rows whose "Check first" column names the stage's function."""
    result = {}
    for lang, text in messages.items():
        lines = text.split("\n")
        words = WORDS.say(lang, "bugs.see_row", row=pointer(key, lang)) if key else \
            WORDS.say(lang, "bugs.see_rows", rows=stage_pointer(stage, lang))
        end = WORDS.say(lang, "bugs.sentence_end")
        lines[1] = lines[1].rstrip(end) + words + end
        result[lang] = "\n".join(lines)
    return result


@dataclass(frozen=True)
class ProbeRun:
    """One student call on one probe, with the reference's result for the same input."""
    probe: Probe
    before: tuple      # pristine copies of the arguments
    args: tuple        # the arguments as the student left them
    out_index: int     # which argument the function writes
    reference: np.ndarray
    expected_rc: object
    call: Call

    @property
    def out(self) -> np.ndarray:
        return self.args[self.out_index]

    @property
    def unchanged(self) -> bool:
        return bool(np.array_equal(self.out, self.before[self.out_index], equal_nan=True))

    @property
    def ok(self) -> bool:
        return self.call.error is None and close(self.out, self.reference, exact_float64=True)


@dataclass(frozen=True)
class Rule:
    """A named mistake: ``fits(outcome) -> True/False/None`` and ``explain(outcome) -> {language: message}``."""
    bug: str
    fits: Callable[[ProbeRun], bool | None]
    explain: Callable[[ProbeRun], dict]


def close(a, b, exact_float64: bool = False) -> bool:
    """Equal up to float32 rounding; with ``exact_float64``, a float64 ``b`` must match to float64 precision."""
    tight = exact_float64 and np.asarray(b).dtype == np.float64
    tol = TOLERANCE["float64" if tight else "float32"]  # the grader's tolerances (attnkit.lab)
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))


def labelled(lang: str, message: str) -> str:
    """A finding's message (three lines: what was seen, the likely cause, what to check) with each line's label."""
    return "\n".join(label + line for label, line in zip(labels(lang), message.split("\n")))


def texts(say) -> dict:
    """A finding's message in every language: ``say(lang)``, its three lines, each labelled."""
    return {lang: labelled(lang, say(lang)) for lang in LANGUAGES}


def explained(msgid: str, **values) -> Callable[[ProbeRun], dict]:
    """A rule's explanation: the message ``msgid`` in every language, with the probe it was seen on (``{at}``) and
    ``values`` (each a function of the outcome and the language)."""
    return lambda o: texts(lambda lang: WORDS.say(lang, msgid, at=at(o, lang),
                                                  **{name: value(o, lang) for name, value in values.items()}))


def at(o: ProbeRun, lang: str) -> str:
    """Which probe a finding was seen on (the probe's purpose in words)."""
    return WORDS.say(lang, "bugs.at", purpose=WORDS.say(lang, o.probe.purpose))


def error_text(error: str, lang: str) -> str:
    """A call's error line; the one attnkit wrote itself (a function that timed out before) in ``lang``."""
    return WORDS.say(lang, "bugs.hung_error") if error == HUNG else error


def _lost_precision(o: ProbeRun) -> bool | None:
    """float64 in, float32-grade out: right up to float32 rounding, wrong at float64 precision."""
    if o.reference.dtype != np.float64:
        return None
    return close(o.out, o.reference) and not close(o.out, o.reference, exact_float64=True)


def _precision_rule(stage: str, written: str) -> Rule:
    return Rule(f"{stage}_lost_precision", _lost_precision, lambda o: texts(lambda lang: WORDS.say(
        lang, "bugs.lost_precision", at=at(o, lang), written=written, role=ROLE[stage])))


def factor(out, base) -> float | None:
    """The ``c`` with ``out ≈ c * base`` (least squares), or None when out is no multiple of base."""
    out, base = np.asarray(out, np.float64), np.asarray(base, np.float64)
    if out.shape != base.shape or not np.any(base):
        return None
    with np.errstate(all="ignore"):
        c = float(np.sum(out * base) / np.sum(base * base))
    return c if np.isfinite(c) and close(out, c * base) else None


def _square(o: ProbeRun) -> bool:
    return o.before[0].shape[0] == o.before[1].shape[0]


def _new_array_note(o: ProbeRun, name: str, lang: str) -> str:
    if o.call.rebound:
        return WORDS.say(lang, "bugs.rebound_parameter", name=name)
    return WORDS.say(lang, "bugs.returned_new_array")


def _note(name: str) -> Callable[[ProbeRun, str], str]:
    return lambda o, lang: _new_array_note(o, name, lang)


def _rebound(o: ProbeRun) -> bool:
    return o.unchanged and (o.call.rebound or isinstance(o.call.returned, np.ndarray))


# --- scores ---------------------------------------------------------------------------

def _scale_hint(c: float, scale: float, head_dim: int, lang: str) -> str:
    if abs(c * np.sqrt(head_dim) - 1) < 1e-3:
        return WORDS.say(lang, "bugs.scale_recomputed", c=c)
    if abs(c * scale - 1) < 1e-3:
        return WORDS.say(lang, "bugs.scale_divided")
    if abs(c - scale * scale) < 1e-3 * scale * scale:
        return WORDS.say(lang, "bugs.scale_squared")
    return ""


def _wrong_scale_message(o: ProbeRun) -> dict:
    q, k, scale = o.before[:3]
    c = factor(o.out, q @ k.T)
    return texts(lambda lang: WORDS.say(lang, "bugs.scores_wrong_scale", at=at(o, lang), c=c, scale=scale,
                                        hint=_scale_hint(c, scale, q.shape[1], lang)))


SCORES_RULES = (
    Rule("scores_out_rebound", _rebound, explained("bugs.scores_out_rebound", note=_note("out"))),
    Rule("scores_out_not_written", lambda o: o.unchanged, explained("bugs.scores_out_not_written")),
    Rule("scores_k_qt", lambda o: factor(o.out, o.before[1] @ o.before[0].T) is not None if _square(o) else None,
         explained("bugs.scores_k_qt")),
    Rule("scores_q_qt", lambda o: factor(o.out, o.before[0] @ o.before[0].T) is not None if _square(o) else None,
         explained("bugs.scores_q_qt")),
    Rule("scores_missing_scale", lambda o: close(o.out, o.before[0] @ o.before[1].T),
         explained("bugs.scores_missing_scale", scale=lambda o, lang: o.before[2])),
    Rule("scores_wrong_scale", lambda o: factor(o.out, o.before[0] @ o.before[1].T) is not None,
         _wrong_scale_message),
)


# --- mask -----------------------------------------------------------------------------

MASK_RULES = (
    Rule("mask_not_in_place", _rebound, explained("bugs.mask_not_in_place", note=_note("scores"))),
    Rule("mask_lost_on_view", lambda o: o.unchanged and not o.out.flags.c_contiguous, explained("bugs.mask_lost_on_view")),
    Rule("mask_not_applied", lambda o: o.unchanged, explained("bugs.mask_not_applied")),
    Rule("mask_multiplied", lambda o: close(o.out, o.before[0] * o.before[1]), explained("bugs.mask_multiplied")),
    Rule("mask_replaces_scores", lambda o: close(o.out, o.before[1]), explained("bugs.mask_replaces_scores")),
)


# --- softmax --------------------------------------------------------------------------

def _wrong_axis(o: ProbeRun) -> int | None:
    """The non-last axis along which out is a softmax of the input, if any."""
    x = o.before[1]
    return next((a for a in range(x.ndim - 1) if close(o.out, _softmax(x, axis=a))), None)


def _unnormalised(o: ProbeRun) -> bool:
    x = np.asarray(o.before[1], np.float64)
    with np.errstate(all="ignore"):
        return close(o.out, np.exp(x - x.max(axis=-1, keepdims=True))) or close(o.out, np.exp(x))


def _whole_array(o: ProbeRun) -> bool:
    x = o.before[1]
    return close(o.out, _softmax(x.reshape(-1)).reshape(x.shape))


def _moderate(check: Callable[[ProbeRun], bool]) -> Callable[[ProbeRun], bool | None]:
    """Large-logit probes cannot show these bugs: the overflow would mask them."""
    return lambda o: None if o.probe.extreme else check(o)


SOFTMAX_RULES = (
    Rule("softmax_out_rebound", _rebound, explained("bugs.softmax_out_rebound", note=_note("out"))),
    Rule("softmax_out_not_written", lambda o: o.unchanged, explained("bugs.softmax_out_not_written")),
    Rule("softmax_wrong_axis", _moderate(lambda o: _wrong_axis(o) is not None),
         explained("bugs.softmax_wrong_axis", axis=lambda o, lang: _wrong_axis(o))),
    Rule("softmax_whole_array", _moderate(_whole_array), explained("bugs.softmax_whole_array")),
    Rule("softmax_not_normalised", _moderate(_unnormalised), explained("bugs.softmax_not_normalised")),
    Rule("softmax_no_max_subtraction", lambda o: o.probe.extreme and not np.all(np.isfinite(o.out)),
         explained("bugs.softmax_no_max_subtraction")),
)

# Precision first: an output right up to float32 rounding is no other mistake.
RULES = {
    "scores": (_precision_rule("scores", "out"),) + SCORES_RULES,
    "mask": (_precision_rule("mask", "scores"),) + MASK_RULES,
    "softmax": (_precision_rule("softmax", "out"),) + SOFTMAX_RULES,
}


# --- findings without a named rule ----------------------------------------------------

def exception_message(stage: str, o: ProbeRun) -> dict:
    role = ROLE[stage]
    if not o.probe.valid:  # input the C version refuses
        return texts(lambda lang: WORDS.say(lang, "bugs.exception_on_invalid_input", at=at(o, lang), role=role,
                                            error=error_text(o.call.error, lang)))
    return texts(lambda lang: WORDS.say(lang, "bugs.exception", at=at(o, lang), role=role,
                                        error=error_text(o.call.error, lang)))


def _largest_gap(out, reference, lang: str) -> str:
    out, reference = np.asarray(out, np.float64), np.asarray(reference, np.float64)
    if not np.all(np.isfinite(out)):
        return WORDS.say(lang, "bugs.gap_not_finite")
    gap = np.abs(out - reference)
    where = tuple(int(i) for i in np.unravel_index(np.argmax(gap), gap.shape))
    return WORDS.say(lang, "bugs.largest_gap", gap=gap.max(), where=where)


def wrong_values_message(stage: str, o: ProbeRun) -> dict:
    role = ROLE[stage]
    if not o.probe.valid:
        return texts(lambda lang: WORDS.say(lang, "bugs.wrote_on_invalid_input", at=at(o, lang), role=role))
    return texts(lambda lang: WORDS.say(lang, "bugs.wrong_values", at=at(o, lang), role=role,
                                        gap=_largest_gap(o.out, o.reference, lang)))


def return_code_message(o: ProbeRun) -> dict:
    def got(lang: str) -> str:
        return WORDS.say(lang, "bugs.returned_none") if o.call.returned is None else repr(o.call.returned)[:40]

    def want(lang: str) -> str:
        return WORDS.say(lang, "bugs.want_success") if o.probe.valid else WORDS.say(lang, "bugs.want_invalid")

    return texts(lambda lang: WORDS.say(lang, "bugs.return_code", at=at(o, lang), got=got(lang), want=want(lang)))


def mutation_message(stage: str, o: ProbeRun, names) -> dict:
    """``names(lang)``: the read-only inputs, named."""
    return texts(lambda lang: WORDS.say(lang, "bugs.mutates_input", at=at(o, lang), role=ROLE[stage],
                                        names=names(lang)))


def pipeline_message(stage: str, error: str | None) -> dict:
    role = ROLE[stage]

    def seen(lang: str) -> str:
        if error:
            return WORDS.say(lang, "bugs.pipeline_raised", role=role, error=error_text(error, lang))
        return WORDS.say(lang, "bugs.pipeline_differs", role=role)

    return texts(lambda lang: WORDS.say(lang, "bugs.pipeline_mismatch", seen=seen(lang)))

"""Which of scores → mask → softmax deviates first, and which well-known mistake it looks like.

The chapter's troubleshooting rule (4.10): do not ask why the whole attention is wrong,
ask which of the three stages goes wrong first. :func:`diagnose` answers it for the
three lab functions (the lab's out-parameter / in-place signatures, see
:mod:`attnkit.lab`):

1. each student function runs alone on the probes of :mod:`attnkit.probes` (inputs the
   verify cases cannot see), and its output is compared with :mod:`attnkit.lab`'s
   reference on the same input; :mod:`attnkit.bugs` names the mistake, or a generic
   finding names the stage;
2. the three run as a chain; a stage that passed alone but deviates there gets a
   ``pipeline_mismatch`` finding;
3. each stage's first finding names the row of the chapter's troubleshooting table (4.10) whose
   FAIL lines are exactly what verify prints for that function, the other two being right
   (:func:`attnkit.troubleshooting.stage_row`), and no row when none fits.

Student code cannot break the diagnosis (:mod:`attnkit.safecall`): an exception
becomes a finding naming it, and nothing is printed. A correct implementation gets
no finding. Each finding keeps its message in every language (``Finding.messages``);
:func:`format_findings` renders the list as text in the chapter's language (``lang``, default
the notebook's: :mod:`attnkit.language`) for the notebook and the graded feedback.

Under grading the notebook asks for the same diagnosis five times (the 4.9 demo, then each
graded cell), so each stage's findings and the chain's are computed once per function object
and kept for the kernel's life (:func:`_once`). A student's own run recomputes every time: a
helper the function calls may have been redefined since.
"""
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from . import lab
from .bugs import (
    RULES,
    ProbeRun,
    close,
    exception_message,
    mutation_message,
    pipeline_message,
    pointed,
    return_code_message,
    wrong_values_message,
)
from .lab import ROLE, STAGES
from .language import WORDS, marked, pick, resolve
from .probes import PIPELINE, PROBES
from .safecall import call_student
from .static import under_grading
from .troubleshooting import stage_row

__all__ = ["STAGES", "Finding", "diagnose", "diagnose_stage", "format_findings", "first_deviation"]


@dataclass(frozen=True)
class Finding:
    """One diagnosed problem; ``student`` and ``reference`` are the arrays the heatmap compares.

    ``messages`` holds the explanation in every language (``{"zh": …, "en": …}``); :meth:`text`
    picks one, and :attr:`message` is the one in the notebook's language.
    """
    stage: str
    bug: str
    messages: dict
    probe: str = ""
    student: np.ndarray | None = field(default=None, compare=False, repr=False)
    reference: np.ndarray | None = field(default=None, compare=False, repr=False)

    def text(self, lang: str | None = None) -> str:
        """The explanation in ``lang`` (the notebook's language when None)."""
        return pick(self.messages, resolve(lang))

    @property
    def message(self) -> str:
        return self.text()


@dataclass(frozen=True)
class _Stage:
    name: str
    reference: Callable
    out_index: int      # the argument the function writes
    inputs: tuple       # the read-only array arguments
    input_names: str    # the read-only inputs, named: a message id

    def named_inputs(self, lang: str) -> str:
        return WORDS.say(lang, self.input_names)


_SPECS = (
    _Stage("scores", lab.attention_scores, 3, (0, 1), marked("diagnose.inputs_scores")),
    _Stage("mask", lab.apply_mask, 0, (1,), marked("diagnose.inputs_mask")),
    _Stage("softmax", lab.softmax, 0, (1,), marked("diagnose.inputs_softmax")),
)


def _copy(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _run(spec: _Stage, probe, fn) -> ProbeRun:
    args = probe.build()
    before, mine = _copy(args), _copy(args)
    expected_rc = spec.reference(*mine)
    call = call_student(fn, args, watch=spec.out_index)
    return ProbeRun(probe, before, args, spec.out_index, mine[spec.out_index], expected_rc, call)


def _finding(spec: _Stage, bug: str, message: dict, o: ProbeRun, arrays: bool = True) -> Finding:
    student, reference = (o.out.copy(), o.reference) if arrays else (None, None)
    return Finding(spec.name, f"{spec.name}_{bug}", message, o.probe.name, student, reference)


def _verdict(rule, o: ProbeRun):
    v = rule.fits(o)
    return None if v is None else bool(v)


def _named(spec: _Stage, bad: list) -> Finding | None:
    """The first rule that explains every deviating outcome (a raised call only if the probe cannot show it)."""
    for rule in RULES[spec.name]:
        verdicts = [(o, _verdict(rule, o)) for o in bad]
        if all(v is None if o.call.error else v is not False for o, v in verdicts):
            shown = next((o for o, v in verdicts if v and not o.call.error), None)
            if shown is not None:
                return Finding(spec.name, rule.bug, rule.explain(shown), shown.probe.name,
                               shown.out.copy(), shown.reference)
    return None


def _value_finding(spec: _Stage, outcomes: list) -> Finding | None:
    bad = [o for o in outcomes if o.probe.valid and not o.ok]
    if not bad:
        return None
    raised = next((o for o in bad if o.call.error), None)
    if named := _named(spec, bad):
        return named
    if raised is not None:
        return _finding(spec, "exception", exception_message(spec.name, raised), raised, arrays=False)
    return _finding(spec, "wrong_values", wrong_values_message(spec.name, bad[0]), bad[0])


def _guard_finding(spec: _Stage, outcomes: list) -> Finding | None:
    """Inputs the C checks reject: the function must neither raise nor write."""
    o = next((o for o in outcomes if not o.probe.valid and not o.ok), None)
    if o is None:
        return None
    if o.call.error:
        return _finding(spec, "exception", exception_message(spec.name, o), o, arrays=False)
    return _finding(spec, "wrong_values", wrong_values_message(spec.name, o), o)


def _return_code_finding(spec: _Stage, outcomes: list) -> Finding | None:
    if spec.name != "scores":
        return None
    wrong = (o for o in outcomes if not o.call.error and not lab.is_return_code(o.call.returned, o.expected_rc))
    o = next(wrong, None)
    return None if o is None else _finding(spec, "return_code", return_code_message(o), o, arrays=False)


def _mutation_finding(spec: _Stage, outcomes: list) -> Finding | None:
    for o in outcomes:
        changed = [i for i in spec.inputs if not np.array_equal(o.args[i], o.before[i], equal_nan=True)]
        if changed and not o.call.error:
            i = changed[0]
            return Finding(spec.name, f"{spec.name}_mutates_input", mutation_message(spec.name, o, spec.named_inputs),
                           o.probe.name, o.args[i].copy(), o.before[i])
    return None


_MEMO: dict = {}  # (what, id of each function) -> (the functions, their results); under grading only


def _once(what: str, fns: tuple, compute: Callable):
    """``compute()``, or under grading its result for these very function objects if already known."""
    if not under_grading():
        return compute()
    key = (what, *(id(fn) for fn in fns))
    known = _MEMO.get(key)
    if known is None or any(a is not b for a, b in zip(known[0], fns)):
        known = _MEMO[key] = (fns, compute())  # the functions are kept: their ids stay theirs
    return known[1]


def diagnose_stage(stage: str, fn) -> list:
    """The findings for one student function alone (``stage`` is "scores", "mask" or "softmax")."""
    spec = _SPECS[STAGES.index(stage)]
    return list(_once(stage, (fn,), lambda: _diagnose_stage(spec, fn)))


def _diagnose_stage(spec: _Stage, fn) -> list:
    outcomes = [_run(spec, probe, fn) for probe in PROBES[spec.name]]
    found = {}
    for finder in (_value_finding, _guard_finding, _return_code_finding, _mutation_finding):
        f = finder(spec, outcomes)
        if f is not None and f.bug not in found:
            found[f.bug] = f
    return _pointed(spec.name, list(found.values()), fn)


def _valid_probe(stage: str, name: str) -> bool:
    return any(p.valid for p in PROBES[stage] if p.name == name)


def _pointed(stage: str, findings: list, fn) -> list:
    """The first finding names its row of §4.10's table (verify is run only when there is a finding); a mistake
    the diagnosis has no name for, and no row, points at the rows of its function."""
    key = stage_row(stage, fn) if findings else None
    result = []
    for i, f in enumerate(findings):
        if i == 0 and key:
            f = replace(f, messages=pointed(f.messages, key, stage))
        elif f.bug == f"{stage}_wrong_values" and _valid_probe(stage, f.probe):
            f = replace(f, messages=pointed(f.messages, None, stage))
        result.append(f)
    return result


def _pipeline_deviation(fns: tuple) -> Finding | None:
    """Run the chain; the first stage whose output differs from the reference on the same input."""
    q, k, scale, mask = PIPELINE.build()
    scores = np.zeros((q.shape[0], k.shape[0]), q.dtype)  # (T, S)
    weights = np.zeros_like(scores)  # (T, S)
    for spec, fn, args in zip(_SPECS, fns, ((q, k, scale, scores), (scores, mask), (weights, scores))):
        mine = _copy(args)
        spec.reference(*mine)
        call = call_student(fn, args)
        student, reference = args[spec.out_index], mine[spec.out_index]
        if call.error or not close(student, reference):
            found = Finding(spec.name, "pipeline_mismatch", pipeline_message(spec.name, call.error),
                            PIPELINE.name, student.copy(), reference)
            return _pointed(spec.name, [found], fn)[0]
    return None


def diagnose(scores_fn, mask_fn, softmax_fn) -> list:
    """Return the findings for three lab-signature functions, ordered scores → mask → softmax."""
    fns = (scores_fn, mask_fn, softmax_fn)
    findings = [f for stage, fn in zip(STAGES, fns) for f in diagnose_stage(stage, fn)]
    chained = _once("pipeline", fns, lambda: _pipeline_deviation(fns))
    if chained is not None and all(f.stage != chained.stage for f in findings):
        findings.append(chained)
        findings.sort(key=lambda f: STAGES.index(f.stage))  # stable: keeps each stage's own order
    return findings


def first_deviation(findings: list) -> Finding | None:
    """The first stage's first finding that carries arrays to compare (None: nothing to plot)."""
    if not findings:
        return None
    return next((f for f in findings if f.stage == findings[0].stage and f.student is not None), None)


def format_findings(findings: list, lang: str | None = None) -> str:
    """The findings as text for the notebook and the graded feedback, in ``lang`` (the notebook's by default)."""
    lang = resolve(lang)
    if not findings:
        return WORDS.say(lang, "diagnose.nothing_found")
    stage = findings[0].stage
    lines = [WORDS.say(lang, "diagnose.first_deviation", role=ROLE[stage], stage=stage, count=len(findings))]
    for n, f in enumerate(findings, 1):  # each finding in words; its bug id is for the instructor's report only
        lines.append(f"{n}. [{f.stage}]")
        lines.extend("   " + line for line in f.text(lang).splitlines())
    return "\n".join(lines)

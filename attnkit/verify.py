"""The port of Lab04's ``verify.c``: TEST 1-4, 22 assertions, the same printed lines.

``run_all(scores_fn, mask_fn, softmax_fn)`` runs every TEST against three callables with
the lab signatures (see :mod:`attnkit.lab`) and prints the C harness's transcript; each
TEST can also run alone (``run_test1`` ... ``run_test4``). The returned reports keep
every assertion, so the hidden tests and the diagnosis reuse them.

A student function that raises does not stop the run: one line names the exception, the
assertions that depend on that call FAIL, and the run goes on.

Every line is in the chapter's language (``lang``, default the notebook's: :mod:`attnkit.language`), each
the message ``verify.<key>`` of attnkit's catalogue (``attnkit/locale``). The Chinese lines are byte for byte
the C lab's ``verify.c`` (``/work/shared/spec/lab04-verify.md``); every other language says the same assertions
in the same order.
"""
import sys
from dataclasses import dataclass, field

import numpy as np

from .lab import ROLE, is_return_code
from .language import WORDS, marked, resolve
from .masks import MASKED_BELOW, create_causal_mask
from .safecall import describe_exception, hung, mark_if_hung

RULE = "=" * 40
SCORES, MASK, SOFTMAX = (ROLE[stage] for stage in ("scores", "mask", "softmax"))
FLOAT_TOLERANCE = 1e-4  # the C harness's FLOAT_EQ

@dataclass(frozen=True)
class Check:
    """One assertion: its number (1-22), its TEST (1-4), message and outcome."""
    number: int
    test: int
    message: str
    passed: bool


@dataclass
class TestReport:
    """One TEST: its checks and the extra lines it printed (row sums, exceptions)."""
    number: int
    title: str
    checks: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.checks)

    @property
    def total(self) -> int:
        return len(self.checks)

    @property
    def failed(self) -> int:
        return self.total - self.passed


@dataclass
class VerifyReport:
    """The whole run: the four TEST reports and the footer's counts."""
    tests: list

    @property
    def checks(self) -> list:
        return [c for t in self.tests for c in t.checks]

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tests)

    @property
    def failed(self) -> int:
        return sum(t.failed for t in self.tests)

    @property
    def exit_code(self) -> int:
        """0 when nothing failed, 1 otherwise, as the C program exits."""
        return 0 if self.failed == 0 else 1


class _Run:
    """Prints one TEST as it goes and records its checks."""

    def __init__(self, number: int, first_check: int, file, lang: str | None):
        self.lang = resolve(lang)
        title = _title(self.lang, number)
        self.report = TestReport(number, title)
        self._next, self._file = first_check, file
        self._emit(f"\n[TEST {number}] {title} ...")  # verify.c: printf("\n[TEST n] ...\n")

    def _emit(self, line: str) -> None:
        print(line, file=self._file or sys.stdout, flush=True)

    def note(self, line: str) -> None:
        self.report.notes.append(line)
        self._emit(line)

    def check(self, message: str, predicate) -> None:
        """Record ``predicate()`` under the line ``message``; a predicate that raises (odd student output) is a FAIL."""
        try:
            passed = bool(predicate())
        except Exception:
            passed = False
        self.report.checks.append(Check(self._next, self.report.number, message, passed))
        self._next += 1
        self._emit(f"  [{'PASS' if passed else 'FAIL'}] {message}")

    def call(self, role: str, fn, *args):
        """Call a student function; return ``(completed, result)`` instead of raising."""
        if hung(fn):
            self.note(WORDS.say(self.lang, "verify.hung", role=role))
            return False, None
        try:
            with mark_if_hung(fn):
                result = fn(*args)
        except (Exception, SystemExit) as exc:
            self.note(WORDS.say(self.lang, "verify.raised", role=role, error=describe_exception(exc)))
            return False, None
        if isinstance(result, np.ndarray) and not any(result is arg for arg in args):
            self.note(WORDS.say(self.lang, "verify.new_array", role=role))
        return True, result


def _title(lang: str, number: int) -> str:
    """TEST ``number``'s title, naming the function it checks."""
    titles = (marked("verify.title1"), marked("verify.title2"), marked("verify.title3"), marked("verify.title4"))
    return WORDS.say(lang, titles[number - 1], scores=SCORES, mask=MASK, softmax=SOFTMAX)


def _eq(value, expected: float) -> bool:
    return abs(float(value) - expected) < FLOAT_TOLERANCE


def _row_sums_ok(run: _Run, probs: np.ndarray, expected: bool) -> bool:
    """Print each row whose sum is off by more than the tolerance (NaN counts as off)."""
    all_ok, suffix = True, WORDS.say(run.lang, "verify.expected_one") if expected else ""
    for i, total in enumerate(np.asarray(probs, dtype=np.float64).sum(axis=-1)):
        if not abs(total - 1.0) <= FLOAT_TOLERANCE:
            run.note(f"    row {i} sum = {total:.6f}{suffix}")
            all_ok = False
    return all_ok


def _f32(rows) -> np.ndarray:
    return np.array(rows, dtype=np.float32)


def run_test1(scores_fn, file=None, lang=None) -> TestReport:
    """TEST 1: shape and scale of the scores on 2x2 and 3x3 identities (checks 1-9)."""
    run = _Run(1, 1, file, lang)
    eye2, out = _f32(np.eye(2)), np.zeros((2, 2), np.float32)
    done, rc = run.call(SCORES, scores_fn, eye2, eye2.copy(), 0.5, out)
    run.check(WORDS.say(run.lang, "verify.returns_0"), lambda: done and is_return_code(rc, 0))
    run.check(WORDS.say(run.lang, "verify.shape"), lambda: done and out.shape == (2, 2))
    for (i, j), want in {(0, 0): 0.5, (0, 1): 0.0, (1, 0): 0.0, (1, 1): 0.5}.items():
        line = WORDS.say(run.lang, "verify.out", i=i, j=j, want=want)
        run.check(line, lambda i=i, j=j, want=want: done and _eq(out[i, j], want))
    eye3, out3 = _f32(np.eye(3)), np.zeros((3, 3), np.float32)
    done, rc = run.call(SCORES, scores_fn, eye3, eye3.copy(), 1.0, out3)
    run.check(WORDS.say(run.lang, "verify.seq3"), lambda: done and is_return_code(rc, 0))
    run.check(WORDS.say(run.lang, "verify.eye", j=0, want=1), lambda: done and _eq(out3[0, 0], 1.0))
    run.check(WORDS.say(run.lang, "verify.eye", j=1, want=0), lambda: done and _eq(out3[0, 1], 0.0))
    return run.report


def run_test2(mask_fn, file=None, lang=None) -> TestReport:
    """TEST 2: the causal mask added in place to zero scores (checks 10-15)."""
    run = _Run(2, 10, file, lang)
    scores = np.zeros((3, 3), np.float32)
    done, _ = run.call(MASK, mask_fn, scores, create_causal_mask(3))
    for i, j in [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]:
        if j > i:
            line = WORDS.say(run.lang, "verify.masked", i=i, j=j)
            run.check(line, lambda i=i, j=j: done and scores[i, j] < MASKED_BELOW)
        else:
            run.check(WORDS.say(run.lang, "verify.kept", i=i, j=j), lambda i=i, j=j: done and _eq(scores[i, j], 0.0))
    return run.report


def run_test3(softmax_fn, file=None, lang=None) -> TestReport:
    """TEST 3: softmax rows sum to 1, and a constant row becomes uniform (checks 16-19)."""
    run = _Run(3, 16, file, lang)
    out = np.zeros((4, 4), np.float32)
    done, _ = run.call(SOFTMAX, softmax_fn, out, np.zeros((4, 4), np.float32))
    rows_ok = done and _row_sums_ok(run, out, expected=True)
    run.check(WORDS.say(run.lang, "verify.zeros_sum"), lambda: rows_ok)
    out = np.zeros((1, 3), np.float32)
    done, _ = run.call(SOFTMAX, softmax_fn, out, _f32([[1, 1, 1]]))
    for j in range(3):
        run.check(WORDS.say(run.lang, "verify.third", j=j), lambda j=j: done and _eq(out[0, j], 1.0 / 3.0))
    return run.report


def run_test4(scores_fn, mask_fn, softmax_fn, file=None, lang=None) -> TestReport:
    """TEST 4: scores -> mask -> softmax on a 4x4 identity (checks 20-22)."""
    run = _Run(4, 20, file, lang)
    eye4, scores = _f32(np.eye(4)), np.zeros((4, 4), np.float32)
    scored, rc = run.call(SCORES, scores_fn, eye4, eye4.copy(), 0.5, scores)
    run.check(WORDS.say(run.lang, "verify.scored"), lambda: scored and is_return_code(rc, 0))
    masked, _ = run.call(MASK, mask_fn, scores, create_causal_mask(4))
    attn = np.zeros((4, 4), np.float32)
    normalised, _ = run.call(SOFTMAX, softmax_fn, attn, scores)
    completed = scored and masked and normalised
    rows_ok = completed and _row_sums_ok(run, attn, expected=False)
    run.check(WORDS.say(run.lang, "verify.attn_sum"), lambda: rows_ok)
    upper = attn[np.triu_indices(4, k=1)]  # (6,) the future positions
    run.check(WORDS.say(run.lang, "verify.upper"), lambda: completed and bool(np.all(upper <= 1e-6)))
    return run.report


def print_header(file=None, lang=None) -> None:
    banner = WORDS.say(resolve(lang), "verify.banner")
    print(f"{RULE}\n   {banner}\n{RULE}", file=file or sys.stdout, flush=True)


def print_footer(report: VerifyReport, file=None, lang=None) -> None:
    lang = resolve(lang)
    verdict = WORDS.say(lang, "verify.counts", failed=report.failed, passed=report.passed) if report.failed else \
        WORDS.say(lang, "verify.all_pass", passed=report.passed)
    print(f"\n{RULE}\n{verdict}\n{RULE}", file=file or sys.stdout, flush=True)


def run_all(scores_fn, mask_fn, softmax_fn, file=None, lang=None) -> VerifyReport:
    """Run TEST 1-4 like ``make test`` in the C lab; print the transcript, return the report."""
    lang = resolve(lang)  # one language for the whole transcript
    print_header(file, lang)
    report = VerifyReport([
        run_test1(scores_fn, file, lang),
        run_test2(mask_fn, file, lang),
        run_test3(softmax_fn, file, lang),
        run_test4(scores_fn, mask_fn, softmax_fn, file, lang),
    ])
    print_footer(report, file, lang)
    return report

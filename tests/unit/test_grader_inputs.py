"""Are the hidden checks' inputs a submission's own: the same on a regrade, new for any other submission, and do
they still catch exactly what the mistake table says, whatever the seed?

The grader draws every hidden input from the submission's seed (autograde/grader/inputs.py); the grading process
makes the seed from the course's secret and the submission (coursekit/seeds.py). Each run tries seeds of its own
(from the run's TEST_SEED), so every run explores new inputs; ``TEST_SEED=<n>`` repeats one.
"""
import hashlib
import os
import warnings

import numpy as np
import pytest

from attnkit import lab
from attnkit.lab import TOLERANCE
from grader import checks
from grader.inputs import Inputs
from support.mistakes import MISTAKES, functions, release
from support.replay import leaked_table, replaying

RELEASE = release()
SEEDS = [hashlib.sha256(f"inputs {os.environ['TEST_SEED']} {n}".encode()).hexdigest() for n in range(5)]
# delegating rows score 0 by the probe whatever their values; the stubs are the untouched release
ROWS = {m.name: functions(m, RELEASE) for m in MISTAKES if "delegate" not in m.name} | {"release stubs": lab.STUBS}


def _passed(fns, seed) -> tuple:
    """Which hidden checks ``fns`` pass with the inputs of ``seed``, in order."""
    stages = {1: fns[:1], 2: fns[1:2], 3: fns[2:], 4: fns}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # overflow and 0/0 are what some mistakes do
        return tuple(ok for number, hidden in checks.HIDDEN.items()
                     for _, ok in checks.run_checks(hidden, stages[number], TOLERANCE, Inputs(seed)))


def test_does_each_row_pass_the_same_hidden_checks_whatever_the_seed():
    """Every row of the mistake table (and the untouched stubs) passes exactly the same checks with five seeds: the
    values change, what each check catches does not (so the table's points hold for every submission)?"""
    differing = {name: [_passed(fns, seed) for seed in SEEDS] for name, fns in ROWS.items()}
    assert {name: runs for name, runs in differing.items() if len(set(runs)) > 1} == {}
    assert sum(_passed(lab.STUBS, SEEDS[0])) == 3  # the given input checks only (autograde/README.md, "Points")


def test_are_the_inputs_the_same_for_a_seed_and_new_for_another():
    """One seed, one tag: the same array twice; another seed or another tag: other values, never shared?"""
    first, again, other = Inputs(SEEDS[0]), Inputs(SEEDS[0]), Inputs(SEEDS[1])
    a = first.normal("t1.rect.q", (3, 5), np.float32)
    assert np.array_equal(a, again.normal("t1.rect.q", (3, 5), np.float32))
    assert not np.array_equal(a, other.normal("t1.rect.q", (3, 5), np.float32))
    assert not np.array_equal(a, first.normal("t1.rect.k", (3, 5), np.float32))


def test_is_a_bad_seed_refused_by_name():
    with pytest.raises(ValueError, match="64 hex digits, got 'abc'"):
        Inputs("abc")


def test_does_a_replay_table_help_only_the_submission_it_was_taken_from():
    """A table of another submission's hidden calls answered right: the stubs answering from it pass every hidden
    check of that submission's inputs (it is a real replay), and of any other submission's exactly what the stubs
    pass?"""
    table = leaked_table(SEEDS[0])
    assert len(table) > 40
    replay = replaying(table)
    assert all(_passed(replay, SEEDS[0]))
    assert _passed(replay, SEEDS[1]) == _passed(lab.STUBS, SEEDS[1])

"""Do the probe inputs show what the verify cases (identities, zeros) cannot?"""
import math

import numpy as np
import pytest

from attnkit import lab
from attnkit.probes import PIPELINE, PROBES

ALL = [(stage, p) for stage, probes in PROBES.items() for p in probes]
VALID_CHECK = {"scores": lambda a: lab.scores_inputs_ok(a[0], a[1], a[3]),
               "mask": lambda a: lab.mask_inputs_ok(*a), "softmax": lambda a: lab.softmax_inputs_ok(*a)}


@pytest.mark.parametrize("stage, probe", ALL, ids=[p.name for _, p in ALL])
def test_validity_matches_the_c_checks_and_builds_are_fresh(stage, probe):
    """Does the C input check agree with ``valid``, and does each build give new arrays with the same numbers?"""
    first, second = probe.build(), probe.build()
    assert VALID_CHECK[stage](first) is probe.valid
    for a, b in zip(first, second):
        if isinstance(a, np.ndarray):
            assert not np.shares_memory(a, b)
            np.testing.assert_array_equal(a, b)


def test_scores_probes_separate_q_from_k_and_the_scale_from_its_usual_values():
    """Is Q != K, Q @ K^T non-symmetric on a square probe, seq_q != seq_k somewhere, scale neither 1 nor 1/sqrt(D)?"""
    valid = [p.build() for p in PROBES["scores"] if p.valid]
    assert any(q.shape[0] != k.shape[0] for q, k, _, _ in valid)
    assert {q.dtype for q, *_ in valid} == {np.dtype(np.float32), np.dtype(np.float64)}
    for q, k, scale, _ in valid:
        assert not np.allclose(q, k[: len(q)]) and scale != 1.0
        assert not math.isclose(scale, 1 / math.sqrt(q.shape[1]), rel_tol=1e-3)
        if q.shape[0] == k.shape[0]:
            product = q @ k.T
            assert not np.allclose(product, product.T) and not np.allclose(product, q @ q.T)


def test_mask_probes_have_nonzero_scores_and_a_general_additive_mask():
    """Do the scores under the mask differ from zero and from 1, and is one mask more than 0/-1e9?"""
    valid = [p.build() for p in PROBES["mask"] if p.valid]
    for scores, _ in valid:
        assert np.all(scores != 0) and not np.any(np.isclose(scores, 1.0))
    assert any(not np.all(np.isin(mask, [0.0, np.float32(-1e9)])) for _, mask in valid)


def test_softmax_probes_include_3d_input_and_logits_that_overflow_a_plain_exp():
    """Is there a 3-D input, and does exp overflow on the large probe while the reference stays finite?"""
    valid = [p for p in PROBES["softmax"] if p.valid]
    assert any(p.build()[1].ndim == 3 for p in valid)
    (large,) = [p for p in valid if p.extreme]
    out, logits = large.build()
    with np.errstate(over="ignore"):
        assert np.isinf(np.exp(logits)).any()
    lab.softmax(out, logits)
    assert np.all(np.isfinite(out)) and np.allclose(out.sum(axis=-1), 1.0)


def test_pipeline_probe_is_a_causal_chain_with_a_distinct_scale():
    """Is the chain's input random Q != K with a causal mask and a scale other than 1/sqrt(D)?"""
    q, k, scale, mask = PIPELINE.build()
    assert q.shape == k.shape and not np.allclose(q, k)
    assert mask.shape == (q.shape[0], q.shape[0]) and mask[0, -1] < -1e8 and mask[-1, 0] == 0
    assert not math.isclose(scale, 1 / math.sqrt(q.shape[1]), rel_tol=1e-3)

"""Does the browser explorer compute what attnkit computes? sharpness.js in Chromium vs attnkit.sharpness.

Python is the source of truth: the same table (attnkit.sharpness.raw_scores) goes into
``attnkit/assets/sharpness.js``, run as an ES module in a blank Chromium page, and every
number the explorer shows (weights, row max, entropies, the two spreads, the curves, the
readout's words in both editions' languages, from the words the widget sends) must equal attnkit's within 1e-6.
"""
import base64
import itertools

import numpy as np
import pytest

from attnkit import sharpness
from attnkit.widgets import ASSETS
from support import lab_page

TOLERANCE = 1e-6
SEEDS = (0, 7)
SEQ_LENS = (2, 7, 33, 64)

_RUN_JS = """async ([source, table64, settings, curveSettings, numbers, zh, en]) => {
  const mod = await import(URL.createObjectURL(new Blob([source], {type: 'text/javascript'})));
  const binary = atob(table64), bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const table = new Float64Array(bytes.buffer);
  const measured = settings.map((s) => {
    const m = mod.measure(table, s);
    return {weights: Array.from(m.weights), rowMax: Array.from(m.rowMax), rowEntropy: Array.from(m.rowEntropy),
            fraction: Array.from(mod.entropyFraction(m)), rawScoreStd: m.rawScoreStd, scoreStd: m.scoreStd,
            meanEntropy: m.meanEntropy, meanMaxWeight: m.meanMaxWeight, summary: mod.summary(m, zh).join(''),
            summaryEn: mod.summary(m, en).join('')};
  });
  const curves = curveSettings.map(([seqLen, causal]) => {
    const c = mod.curves(table, %s, seqLen, causal, 64);
    return {false: Array.from(c[false]), true: Array.from(c[true]), uniform: mod.uniformEntropy(seqLen, causal)};
  });
  return {measured, curves, fixed: numbers.map(mod.fixed2)};
}""" % list(sharpness.HEAD_DIMS)

# exact ties (odd eighths), near-ties that are not ties in binary, ordinary values
NUMBERS = [0.125, 0.375, 0.625, 0.875, 1.125, 2.675, 0.005, 1 / 3, 0.0, 21.155, 7.5349, 1e-17]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    lab_page.require_chromium("the explorer's numbers test")
    with lab_page.chromium_browser(tmp_path_factory.mktemp("chromium-home"), "the explorer's numbers test") as browser:
        page = browser.new_page()
        page.set_content("<!DOCTYPE html><title>sharpness.js</title>")
        yield page


def settings():
    return [dict(index=i, headDim=d, scaled=scaled, seqLen=t, causal=causal, tableSeqLen=64)
            for (i, d), t, scaled, causal in itertools.product(enumerate(sharpness.HEAD_DIMS), SEQ_LENS,
                                                              (False, True), (False, True))]


_RUNS: dict = {}


def run(page, seed: int) -> dict:
    """What sharpness.js computes from raw_scores(seed) for settings() (once per seed)."""
    if seed not in _RUNS:
        _RUNS[seed] = _run(page, seed)
    return _RUNS[seed]


def _run(page, seed: int) -> dict:
    table = base64.b64encode(sharpness.raw_scores(seed).astype("<f8").tobytes()).decode()
    curve_settings = [[t, c] for t in SEQ_LENS for c in (False, True)]
    source = (ASSETS / "sharpness.js").read_text(encoding="utf-8")
    words = [sharpness.words(lang) for lang in ("zh", "en")]  # what the widget sends the browser
    return page.evaluate(_RUN_JS, [source, table, settings(), curve_settings, NUMBERS, *words])


def close(actual, expected, what: str) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=float), expected, rtol=TOLERANCE, atol=TOLERANCE, err_msg=what)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_setting_matches_attnkit(page, seed):
    """For all 11 head_dims × 4 seq_lens × scaling × causal: weights, row stats, spreads and readout as attnkit's?"""
    result = run(page, seed)
    for s, js in zip(settings(), result["measured"]):
        m = sharpness.measure(s["headDim"], scaled=s["scaled"], seq_len=s["seqLen"], seed=seed, causal=s["causal"])
        what = f"seed={seed} {s}"
        close(js["weights"], m.weights.ravel(), "weights " + what)
        close(js["rowMax"], m.row_max, "row max " + what)
        close(js["rowEntropy"], m.row_entropy, "row entropy " + what)
        close(js["fraction"], m.row_entropy_fraction, "entropy fraction " + what)
        close([js["rawScoreStd"], js["scoreStd"], js["meanEntropy"], js["meanMaxWeight"]],
              [m.raw_score_std, m.score_std, m.mean_entropy, m.mean_max_weight], "spreads and means " + what)
        assert js["summary"] == sharpness.summary(m, "zh"), what
        assert js["summaryEn"] == sharpness.summary(m, "en"), what


@pytest.mark.parametrize("seed", SEEDS)
def test_curves_match_attnkit(page, seed):
    """Are both curves (mean entropy vs head_dim) and the uniform ceiling attnkit's, with and without the mask?"""
    result = run(page, seed)
    for (seq_len, causal), js in zip([(t, c) for t in SEQ_LENS for c in (False, True)], result["curves"]):
        for scaled in (False, True):
            expected = sharpness.curve(scaled=scaled, seq_len=seq_len, seed=seed, causal=causal).mean_entropy
            close(js[str(scaled).lower()], expected, f"curve scaled={scaled} seq_len={seq_len} causal={causal}")
        close([js["uniform"]], [sharpness.uniform_entropy(seq_len, causal)], f"uniform {seq_len} {causal}")


def test_readout_numbers_round_as_python_does(page):
    """Does the readout's 2-decimal format round as Python's f"{x:.2f}", exact ties (0.125) included?"""
    assert run(page, 0)["fixed"] == [f"{x:.2f}" for x in NUMBERS]


def test_a_wrong_number_is_caught(page):
    """Control: a weight off by 1e-5 fails the comparison (the tolerance is not too loose to notice)."""
    m = sharpness.measure(64, scaled=True, seq_len=8, seed=0)
    with pytest.raises(AssertionError):
        close(m.weights.ravel() + 1e-5, m.weights.ravel(), "control")

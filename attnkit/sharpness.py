"""How sharp is softmax(Q Kᵀ)? Everything the chapter's sharpness explorer shows (§4.6).

Shape legend: ``T`` queries = keys (self-attention), ``D`` head dim, ``N`` head dims on a curve.
Q and K are random with unit-variance entries, so a raw dot product ``q·k`` has standard
deviation ``sqrt(D)``: without the ``1/sqrt(D)`` scale the scores spread wider as ``D``
grows and softmax collapses toward one-hot; with it the spread stays near 1.
Every draw nests: the first ``t`` rows and ``d`` columns of ``random_qk(D, T, seed)`` are
``random_qk(d, t, seed)``, so moving a slider grows or shrinks the same vectors instead of
drawing new ones, and one table, :func:`raw_scores` (the q·k of the largest sequence at
every head_dim), holds every setting the explorer can show. The browser explorer
(:mod:`attnkit.widgets`, ``attnkit/assets/sharpness.js``) gets that table once and computes
scale, mask, softmax and the statistics itself; :func:`measure` stays the reference.
Pure numpy.
"""
import math
from dataclasses import dataclass

import numpy as np

from .attention import add_mask, default_scale, softmax
from .errors import require_positive_int
from .language import WORDS, marked, resolve
from .masks import create_causal_mask

__all__ = ["words", "HEAD_DIMS", "MAX_SEQ_LEN", "Sharpness", "Curve", "random_qk", "raw_scores", "row_entropy", "measure", "curve",
           "uniform_entropy", "summary"]

HEAD_DIMS = tuple(2 ** i for i in range(11))  # 1, 2, 4, ..., 1024: the explorer's log steps
MAX_SEQ_LEN = 64  # the explorer's seq_len slider: 2 ... 64


@dataclass(frozen=True)
class Sharpness:
    """One draw: the weights and the numbers that say how peaked they are."""
    head_dim: int
    scaled: bool
    causal: bool
    weights: np.ndarray  # (T, T)
    visible: np.ndarray  # (T, T) bool: False where the causal mask blocks
    raw_score_std: float  # spread of the unscaled q·k over the visible cells; ≈ sqrt(D)
    score_std: float  # spread of what softmax actually sees (after the scale, if any)
    row_max: np.ndarray  # (T,) the largest weight of each row; 1 = one-hot
    row_entropy: np.ndarray  # (T,) in nats; 0 = one-hot
    row_entropy_max: np.ndarray  # (T,) ln(visible keys): the entropy of a uniform row

    @property
    def mean_entropy(self) -> float:
        return float(np.mean(self.row_entropy))

    @property
    def mean_max_weight(self) -> float:
        return float(np.mean(self.row_max))

    @property
    def row_entropy_fraction(self) -> np.ndarray:
        """Entropy / its uniform ceiling, in [0, 1]; a row with one visible key counts as 0."""
        ceiling = np.where(self.row_entropy_max > 0, self.row_entropy_max, 1.0)
        return self.row_entropy / ceiling  # (T,)


@dataclass(frozen=True)
class Curve:
    """Mean entropy and mean max weight against head_dim, for one scaling."""
    head_dims: np.ndarray  # (N,)
    mean_entropy: np.ndarray  # (N,)
    mean_max_weight: np.ndarray  # (N,)
    scaled: bool


def _check_sizes(head_dim: int, seq_len: int) -> None:
    require_positive_int("head_dim", head_dim)
    require_positive_int("seq_len", seq_len)


def random_qk(head_dim: int, seq_len: int, seed: int = 0):
    """Return ``(q, k)``, each ``[seq_len, head_dim]`` with independent N(0, 1) entries.

    Each row of q and of k is its own random stream (seeded by ``seed``, q or k, and the row),
    so a smaller head_dim or seq_len is a corner of a larger draw: the draws nest.
    """
    _check_sizes(head_dim, seq_len)
    if not (isinstance(seed, (int, np.integer)) and seed >= 0):
        raise ValueError(f"seed must be an integer >= 0: seed={seed!r}")
    q, k = (np.stack([_row_stream(seed, role, t).standard_normal(head_dim) for t in range(seq_len)])
            for role in (0, 1))  # (T, D) x2
    return q, k


def _row_stream(seed: int, role: int, row: int) -> np.random.Generator:
    """Row ``row`` of q (role 0) or k (role 1): Philox keyed by (seed, role), starting at its own counter."""
    return np.random.Generator(np.random.Philox(key=[int(seed), role], counter=[0, 0, row, 0]))


def raw_scores(seed: int = 0, seq_len: int = MAX_SEQ_LEN, head_dims=HEAD_DIMS) -> np.ndarray:
    """The unscaled ``q·k`` at every head_dim: ``[N, seq_len, seq_len]``, float64.

    ``raw_scores(seed)[i, :t, :t]`` is ``q @ k.T`` of ``random_qk(head_dims[i], t, seed)``,
    for every ``t <= seq_len``: all the explorer's settings in one table.
    """
    q, k = random_qk(max(head_dims), seq_len, seed)  # (T, Dmax) x2
    return np.stack([np.einsum("td,sd->ts", q[:, :d], k[:, :d]) for d in head_dims])  # (N, T, T)


def row_entropy(weights) -> np.ndarray:
    """Shannon entropy of each row in nats, with ``0 · ln 0 = 0`` (masked cells cost nothing)."""
    weights = np.asarray(weights, dtype=np.float64)
    logs = np.log(np.where(weights > 0, weights, 1.0))  # ln 1 = 0 where the weight is 0
    return 0.0 - np.sum(weights * logs, axis=-1)  # (T,); 0.0 - x, not -x: one-hot rows print 0.00, not -0.00


def measure(head_dim: int, *, scaled: bool = True, seq_len: int = 8, seed: int = 0,
            causal: bool = False) -> Sharpness:
    """Draw Q, K for ``seed`` and return the weights of ``softmax(scale · Q Kᵀ + mask)`` and their stats."""
    q, k = random_qk(head_dim, seq_len, seed)
    # einsum, not attention_scores' @: one thread. On a busy 2-core machine OpenBLAS's threads
    # turn this 0.1 ms product into ~100 ms now and then, and a seq_len move does 22 of them.
    raw = np.einsum("td,sd->ts", q, k)  # (T, T) unscaled q·k
    scores = raw * (default_scale(head_dim) if scaled else 1.0)  # (T, T)
    visible = np.tril(np.ones_like(raw, dtype=bool)) if causal else np.ones_like(raw, dtype=bool)
    weights = softmax(add_mask(scores, create_causal_mask(seq_len, np.float64)) if causal else scores)
    return Sharpness(
        head_dim=head_dim, scaled=scaled, causal=causal, weights=weights, visible=visible,
        raw_score_std=float(np.std(raw[visible])), score_std=float(np.std(scores[visible])),
        row_max=weights.max(axis=-1), row_entropy=row_entropy(weights),
        row_entropy_max=np.log(visible.sum(axis=-1)),
    )


def curve(head_dims=HEAD_DIMS, *, scaled: bool, seq_len: int = 8, seed: int = 0,
          causal: bool = False, draws: int = 1) -> Curve:
    """Average :func:`measure` over seeds ``seed … seed+draws-1`` at every head_dim."""
    require_positive_int("draws", draws)
    stats = np.array([
        [(m.mean_entropy, m.mean_max_weight)
         for m in (measure(d, scaled=scaled, seq_len=seq_len, seed=seed + i, causal=causal)
                   for i in range(draws))]
        for d in head_dims
    ])  # (N, draws, 2)
    means = stats.mean(axis=1)  # (N, 2)
    return Curve(np.asarray(head_dims), means[:, 0], means[:, 1], scaled)


def uniform_entropy(seq_len: int, causal: bool = False) -> float:
    """Mean entropy of uniform rows: ``ln T``, or the mean of ``ln(i + 1)`` under the causal mask."""
    _check_sizes(1, seq_len)
    if not causal:
        return math.log(seq_len)
    return float(np.mean(np.log(np.arange(1, seq_len + 1))))


# Every word of the explorer's figure and readout: the live explorer (attnkit/assets/explorer.js gets them from
# attnkit.widgets, :func:`words`) and its PNG under grading (attnkit.sharpness_plot) both say these messages.
_WORDS = {
    "weights": marked("sharpness.weights"),
    "rows": marked("sharpness.rows"),
    "curve": marked("sharpness.curve"),
    "rowMax": marked("sharpness.rowMax"),
    "rowEntropy": marked("sharpness.rowEntropy"),
    "unscaled": marked("sharpness.unscaled"),
    "uniform": marked("sharpness.uniform"),
    "query": marked("sharpness.query"),
    "entropy": marked("sharpness.entropy"),
    "scale": marked("sharpness.scale"),
    "causal": marked("sharpness.causal"),
    "summaryRaw": marked("sharpness.summary_raw"),  # the readout's first clause, to its semicolon
    "summaryWeights": marked("sharpness.summary_weights"),  # its second
}


def words(lang: str | None = None) -> dict:
    """The explorer's words in ``lang``, by the names its browser module and the PNG use."""
    lang = resolve(lang)
    return {name: WORDS.say(lang, msgid) if not name.startswith("summary") else WORDS.template(lang, msgid)
            for name, msgid in _WORDS.items()}


def summary(m: Sharpness, lang: str | None = None) -> str:
    """The explorer's readout line for one measurement, in the chapter's language (``sharpness.js`` says the same)."""
    lang = resolve(lang)
    seq_len = m.weights.shape[0]
    scale = f"× 1/√{m.head_dim}" if m.scaled else WORDS.say(lang, "sharpness.unscaled")
    values = dict(head_dim=m.head_dim, scale=scale, raw=m.raw_score_std, root=math.sqrt(m.head_dim), seen=m.score_std,
                  top=m.mean_max_weight, entropy=m.mean_entropy, uniform=uniform_entropy(seq_len, m.causal))
    return WORDS.say(lang, "sharpness.summary_raw", **values) + WORDS.say(lang, "sharpness.summary_weights", **values)

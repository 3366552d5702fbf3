"""Multi-head attention, mirroring the C framework's ``attention_forward``.

Shape legend: ``T`` queries, ``S`` keys, ``C`` hidden dim, ``H`` heads, ``D = C / H``.
``W_q, W_k, W_v, W_o`` are each ``[C, C]``; Q/K/V = x @ W; every head runs
scores -> mask -> softmax -> @ V on its slice; heads are concatenated, then @ W_o.
"""
import numpy as np

from .attention import add_mask, attention_scores, default_scale, softmax
from .errors import require


class MultiHeadAttention:
    """Deterministic (seeded) multi-head attention; after ``forward``, ``weights`` is ``[H, T, S]``."""

    def __init__(self, hidden_dim: int, num_heads: int, seed: int = 0, dtype=np.float32):
        require(
            hidden_dim >= 1 and num_heads >= 1 and hidden_dim % num_heads == 0,
            f"hidden_dim must be divisible by num_heads: hidden_dim={hidden_dim}, num_heads={num_heads}",
        )
        self.hidden_dim, self.num_heads = hidden_dim, num_heads
        self.head_dim = hidden_dim // num_heads
        rng = np.random.default_rng(seed)
        std = 1.0 / np.sqrt(hidden_dim)  # keeps x @ W at the scale of x
        self.W_q, self.W_k, self.W_v, self.W_o = (
            rng.normal(0.0, std, (hidden_dim, hidden_dim)).astype(dtype) for _ in range(4)
        )
        self.weights = None

    @property
    def num_params(self) -> int:
        """``4 * hidden_dim**2``: the four projections, whatever the number of heads."""
        return sum(w.size for w in (self.W_q, self.W_k, self.W_v, self.W_o))

    def _split(self, x: np.ndarray) -> np.ndarray:
        seq_len = x.shape[0]
        return x.reshape(seq_len, self.num_heads, self.head_dim).transpose(1, 0, 2)  # (H, T, D)

    def _check(self, name: str, x: np.ndarray) -> None:
        require(
            x.ndim == 2 and x.shape[1] == self.hidden_dim,
            f"{name} must be [seq_len, hidden_dim={self.hidden_dim}]: {name}.shape={x.shape}",
        )

    def forward(self, x, mask=None, context=None) -> np.ndarray:
        """Attend from ``x`` (``[T, C]``) to ``context`` (``[S, C]``, default ``x``); return ``[T, C]``."""
        x = np.asarray(x)
        context = x if context is None else np.asarray(context)
        self._check("x", x)
        self._check("context", context)
        q = self._split(x @ self.W_q)  # (H, T, D)
        k = self._split(context @ self.W_k)  # (H, S, D)
        v = self._split(context @ self.W_v)  # (H, S, D)
        scale = default_scale(self.head_dim)
        heads, weights = [], []
        for h in range(self.num_heads):
            scores = attention_scores(q[h], k[h], scale)  # (T, S)
            if mask is not None:
                scores = add_mask(scores, mask)
            weights.append(softmax(scores))  # (T, S)
            heads.append(weights[-1] @ v[h])  # (T, D)
        self.weights = np.stack(weights)  # (H, T, S)
        return np.concatenate(heads, axis=1) @ self.W_o  # (T, C)

    __call__ = forward

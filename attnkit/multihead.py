"""Multi-head attention, mirroring the C framework's ``attention_forward``.

Shape legend: ``T`` queries, ``S`` keys, ``C`` hidden dim, ``H`` heads, ``D = C / H``.
``W_q, W_k, W_v, W_o`` are each ``[C, C]``; Q/K/V = x @ W; every head runs
scores -> mask -> softmax -> @ V on its slice; heads are concatenated, then @ W_o.

:meth:`MultiHeadAttention.forward` goes head by head, as the C framework does (the chapter's 4.11);
:meth:`MultiHeadAttention.forward_all_heads` runs every head at once, one batched matrix product
over ``[H, T, D]`` arrays (the chapter's "all heads at once"), and gives the same numbers.
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

    def split_heads(self, x: np.ndarray) -> np.ndarray:
        """``[T, C]`` -> ``[H, T, D]``: head ``h`` is columns ``h*D .. (h+1)*D`` (a view, nothing copied)."""
        seq_len = x.shape[0]
        return x.reshape(seq_len, self.num_heads, self.head_dim).transpose(1, 0, 2)  # (T, H, D) -> (H, T, D)

    def merge_heads(self, heads: np.ndarray) -> np.ndarray:
        """``[H, T, D]`` -> ``[T, C]``: the heads' outputs joined column-wise (the inverse of :meth:`split_heads`)."""
        seq_len = heads.shape[1]
        return heads.transpose(1, 0, 2).reshape(seq_len, self.hidden_dim)  # (T, H, D) -> (T, C)

    def _check(self, name: str, x: np.ndarray) -> None:
        require(
            x.ndim == 2 and x.shape[1] == self.hidden_dim,
            f"{name} must be [seq_len, hidden_dim={self.hidden_dim}]: {name}.shape={x.shape}",
        )

    def _heads(self, x, context):
        """Queries from ``x``, keys and values from ``context`` (default ``x``), checked and split per head."""
        x = np.asarray(x)
        context = x if context is None else np.asarray(context)
        self._check("x", x)
        self._check("context", context)
        q = self.split_heads(x @ self.W_q)  # (H, T, D)
        k = self.split_heads(context @ self.W_k)  # (H, S, D)
        v = self.split_heads(context @ self.W_v)  # (H, S, D)
        return q, k, v

    def forward(self, x, mask=None, context=None) -> np.ndarray:
        """Attend from ``x`` (``[T, C]``) to ``context`` (``[S, C]``, default ``x``); return ``[T, C]``."""
        q, k, v = self._heads(x, context)  # (H, T, D), (H, S, D), (H, S, D)
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

    def forward_all_heads(self, x, mask=None, context=None) -> np.ndarray:
        """:meth:`forward` with no loop over the heads: one batched product for all of them; ``weights`` as there."""
        q, k, v = self._heads(x, context)  # (H, T, D), (H, S, D), (H, S, D)
        scores = (q @ k.transpose(0, 2, 1)) * default_scale(self.head_dim)  # (H, T, S): every head at once
        if mask is not None:
            require(np.shape(mask) == scores.shape[1:],
                    f"mask must be [seq_len, context_len]={scores.shape[1:]}: mask.shape={np.shape(mask)}")
            scores = add_mask(scores, np.broadcast_to(mask, scores.shape))  # the same (T, S) mask for every head
        self.weights = softmax(scores)  # (H, T, S)
        return self.merge_heads(self.weights @ v) @ self.W_o  # (H, T, D) -> (T, C)

    __call__ = forward
